package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// IndexScanOptions adjusts IndexScan and IndexScanRange. The zero value
// reads forward, without a limit, with values, from the start.
type IndexScanOptions struct {
	// Reverse yields entries in descending index order.
	Reverse bool
	// Limit is the most entries to yield; 0 or less means no limit.
	Limit int
	// KeysOnly reads only the index: Entry.Value stays nil and no data
	// key is read (an index entry is written with its key, atomically, so
	// it stands for a stored key).
	KeysOnly bool
	// After resumes a scan right after the entry whose Continuation it
	// is; the token must come from the same index, value pattern (or
	// range) and direction.
	After string
}

// IndexEntry is one result of an index scan: a stored key and value,
// and what the index holds it under.
type IndexEntry struct {
	Key        term.Term
	Value      []byte    // the caller's own copy; nil with KeysOnly
	IndexValue term.Term // what the index pattern's variables bound

	raw []byte // the index entry's key, to resume after
	id  uint64 // the scan's identity, for its tokens
	rev bool
}

// Continuation returns a token that resumes the scan right after e:
// text, safe in a URL, that any process can pass back as
// IndexScanOptions.After with the same index, value pattern and
// direction.
func (e IndexEntry) Continuation() string {
	if e.raw == nil {
		return ""
	}
	return encodeIndexToken(e.id, e.rev, e.raw)
}

// IndexScan yields the stored entries whose index value (what the index
// pattern's '$N' variables bind, or the tuple of them) matches
// valuePattern, in index order: by index value, then by key. A value
// without wildcards is an exact look-up; '_' yields the whole index. Like
// Scan, it reads only the entries under valuePattern's prefix, then one
// point read per entry for its value (none with KeysOnly).
//
// Paging works as for Select: pass the last entry's Continuation as
// After. A scan sees the index as one snapshot and reads each value
// after its entry: a key deleted in between is left out. An index that
// is not IndexReady is refused with ErrIndexBuilding, an unknown one with
// ErrNoIndex, and a scan during which the index was dropped ends with
// ErrNoIndex after what it read (DropIndex may have deleted entries
// before the scan reached them). Errors and early exits are as for Scan.
func (s *Store) IndexScan(ctx context.Context, name string, valuePattern term.Term, opts IndexScanOptions) iter.Seq2[IndexEntry, error] {
	pat := term.Tuple(atomIndex, term.Binary([]byte(name)), valuePattern, wildcard)
	lower, upper, err := s.codec.PrefixRange(pat)
	if err != nil {
		return failed[IndexEntry](err)
	}
	return s.indexScan(ctx, name, lower, upper, &valuePattern, opts)
}

// ValueRange is a range of index values for IndexScanRange, half-open as
// every range in the store is: the values from the first that can match
// From up to, and not including, the first that can match Before. With
// integer values, {From: 3, Before: 6} is 3, 4 and 5; with patterns,
// {From: {a,'_'}, Before: {b,'_'}} is every {a, X} and nothing of {b, X},
// and {From: <<"A1",_/binary>>, Before: <<"A2",_/binary>>} every binary
// that starts with "A1" and none that starts with "A2".
// A Before that sorts at or below From is an empty range.
type ValueRange struct {
	From   term.Term // included: the least value that can match it
	Before term.Term // excluded, with every value after it
}

// IndexScanRange yields the stored entries whose index value lies in r,
// in index order, without matching the values against From or Before
// (as ScanRange does for keys). Options, paging and errors are as for
// IndexScan.
func (s *Store) IndexScanRange(ctx context.Context, name string, r ValueRange, opts IndexScanOptions) iter.Seq2[IndexEntry, error] {
	// The lower ends of the patterns' prefix ranges: a binary prefix
	// (<<"A1",_/binary>>) starts its range past its whole bytes.
	lower, _, err := s.codec.PrefixRange(term.Tuple(atomIndex, term.Binary([]byte(name)), r.From, wildcard))
	if err != nil {
		return failed[IndexEntry](err)
	}
	upper, _, err := s.codec.PrefixRange(term.Tuple(atomIndex, term.Binary([]byte(name)), r.Before, wildcard))
	if err != nil {
		return failed[IndexEntry](err)
	}
	return s.indexScan(ctx, name, lower, upper, nil, opts)
}

// indexScan reads the entries in [0x00 ++ lower, 0x00 ++ upper) of the
// index name, keeps those whose value matches vp (if set), and yields
// their data.
func (s *Store) indexScan(ctx context.Context, name string, lower, upper []byte, vp *term.Term, opts IndexScanOptions) iter.Seq2[IndexEntry, error] {
	lo := append([]byte{seam.ReservedByte}, lower...)
	hi := seam.ReservedEnd
	if upper != nil {
		hi = append([]byte{seam.ReservedByte}, upper...)
	}
	id := scanID(lo, hi)
	return func(yield func(IndexEntry, error) bool) {
		if s.closed.Load() {
			yield(IndexEntry{}, ErrClosed)
			return
		}
		c, err := s.current(ctx)
		if err != nil {
			yield(IndexEntry{}, err)
			return
		}
		switch ix := c.find(name); {
		case ix == nil || ix.State == IndexDropping:
			yield(IndexEntry{}, fmt.Errorf("%w: %q", ErrNoIndex, name))
			return
		case ix.State != IndexReady:
			yield(IndexEntry{}, fmt.Errorf("%w: %q is %s", ErrIndexBuilding, name, ix.State))
			return
		}
		if opts.After != "" {
			after, err := decodeIndexToken(opts.After, id, opts.Reverse)
			if err != nil {
				yield(IndexEntry{}, err)
				return
			}
			var ok bool
			if lo, hi, ok = clip(lo, hi, after, opts.Reverse); !ok {
				return
			}
		}
		if bytes.Compare(lo, hi) >= 0 {
			return
		}
		it, err := s.openCursor(ctx, lo, hi, opts.Reverse)
		if err != nil {
			yield(IndexEntry{}, err)
			return
		}
		defer it.Close() // an early break, a panic; the normal end reports its error
		n := 0
		var kb []byte
		for it.Next() {
			raw := it.Key()
			t, err := s.codec.Decode(raw[1:])
			if err != nil || !isEntry(t) {
				continue // not an entry: CheckIndexes reports it
			}
			el := t.Elems()
			if vp != nil {
				if _, ok := sext.Match(*vp, el[2]); !ok {
					continue
				}
			}
			e := IndexEntry{Key: el[3], IndexValue: el[2], raw: bytes.Clone(raw), id: id, rev: opts.Reverse}
			if !opts.KeysOnly {
				if kb, err = s.codec.Append(kb[:0], e.Key); err != nil {
					continue
				}
				v, err := s.kv.Get(ctx, kb)
				if errors.Is(err, ErrNotFound) {
					continue // deleted since the snapshot
				}
				if err != nil {
					it.Close()
					yield(IndexEntry{}, err)
					return
				}
				e.Value = v
			}
			if !yield(e, nil) {
				return
			}
			if n++; opts.Limit > 0 && n >= opts.Limit {
				break
			}
		}
		if err := it.finish(nil); err != nil {
			yield(IndexEntry{}, err)
			return
		}
		if err := s.stillReady(ctx, name); err != nil {
			yield(IndexEntry{}, err)
		}
	}
}

// stillReady returns an error wrapping ErrNoIndex unless the index name
// is still ready: a read that found it ready, then read its entries while
// DropIndex deleted them, must not end as if it had read them all.
// DropIndex marks the index dropping before it deletes an entry (and the
// store's cache of the definitions learns it first), so an index still
// ready at the end of a read was whole for all of it, unless it was
// dropped and built again in between.
func (s *Store) stillReady(ctx context.Context, name string) error {
	c, err := s.current(ctx)
	if err != nil {
		return err
	}
	if ix := c.find(name); ix == nil || ix.State != IndexReady {
		return fmt.Errorf("%w: %q was dropped during the read", ErrNoIndex, name)
	}
	return nil
}

// scanID is the identity of an index scan, which its tokens carry: a
// hash of its byte range, which names the index and the value pattern.
func scanID(lo, hi []byte) uint64 {
	h := fnv.New64a()
	h.Write(lo)
	h.Write([]byte{0xFF})
	h.Write(hi)
	return h.Sum64()
}
