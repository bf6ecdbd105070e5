package store

import (
	"bytes"
	"context"
	"iter"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// Entry is one key and value that a scan yields.
type Entry struct {
	Key   term.Term
	Value []byte // the caller's own copy; nil with ScanOptions.KeysOnly
	// Bindings holds what the pattern's '$N' wildcards matched, for Scan;
	// ScanRange matches nothing and leaves it nil.
	Bindings sext.Bindings
}

// ScanOptions adjusts a scan. The zero value scans forward, without a
// limit, with values, skipping keys that do not decode without a word.
type ScanOptions struct {
	// Reverse yields entries in descending term order.
	Reverse bool
	// Limit is the most entries to yield; 0 or less means no limit. Keys
	// that are skipped (not matching, or not decoding) do not count.
	Limit int
	// KeysOnly leaves Entry.Value nil, which spares reading values.
	KeysOnly bool
	// OnBadKey, when set, is called with the raw bytes of every key in
	// the scanned range that is not a sext encoding (written by something
	// else), and the decoding error; the scan then goes on past it. Such
	// a key is never yielded and never ends a scan: one foreign key must
	// not make the rest of the data unreadable. Scan matches keys on their
	// bytes (sext.Matcher), so a foreign key that the pattern rules out
	// before its bad bytes is skipped as not matching, unreported.
	OnBadKey func(key []byte, err error)
	// OnNonCanonical, when set, is called with the raw bytes of every key
	// in the scanned range that decodes, but not from the bytes the
	// store's codec writes for its term: a legacy bignum, a map whose
	// entries another writer left unsorted. Get and Delete of that term
	// address the canonical bytes, so they do not reach such a key; Check
	// with Fix rewrites it. The key is still yielded (its data is real);
	// the check costs one encoding a key, and is skipped when this is nil.
	OnNonCanonical func(key []byte, t term.Term)
}

// Scan yields, in term order, every entry whose key matches pattern (see
// sext.Match): '_' matches any term, '$N' any term but the same one
// wherever it appears, a binary prefix <<"ali",_/binary>> any binary
// that starts with its bytes. It reads only the byte range of the
// pattern's prefix (sext.PrefixRange) and filters that with Match, so it
// is fast when the pattern's wildcards come late: {order, 42, '_', '_'}
// reads one customer's orders, {order, '_', '_', 7} reads every order,
// and {user, <<"ali",_/binary>>, '_'} reads only the users whose name
// starts with "ali".
//
// An error ends the sequence: it is the last pair yielded, with a zero
// Entry. Breaking out of the loop early is fine; the underlying iterator
// is closed either way.
func (s *Store) Scan(ctx context.Context, pattern term.Term, opts ScanOptions) iter.Seq2[Entry, error] {
	lower, upper, err := s.codec.PrefixRange(pattern)
	if err != nil {
		return failed[Entry](err)
	}
	m, err := s.codec.CompileMatch(pattern)
	if err != nil {
		return failed[Entry](err)
	}
	return s.scan(ctx, lower, upper, m, opts)
}

// ScanRange yields, in term order, every entry whose key lies from the
// first key that can match from through the last key that can match to,
// both ends included: the keys k with lower(from) <= encode(k) <
// upper(to), where [lower, upper) is sext.PrefixRange. The keys that
// match to are yielded: to names the last keys of the range, not the
// first ones left out, unlike the half-open ranges elsewhere
// (ValueRange's Before, iterator bounds). With from {order, 42, T1, '_'}
// and to {order, 42, T2, '_'} that is customer 42's orders from time T1
// to T2, the orders at T2 included; with to {user, <<"b",_/binary>>},
// every user up to and including those whose name starts with "b".
//
// Nothing is filtered by Match: a key between the bounds is yielded even
// if it matches neither pattern (an {order, 42, T, X} with T between T1
// and T2 matches neither, and is just what the range is for). Bindings
// are left nil. If to's range ends before from's starts, nothing is
// yielded. Errors and early exits are as for Scan.
func (s *Store) ScanRange(ctx context.Context, from, to term.Term, opts ScanOptions) iter.Seq2[Entry, error] {
	lower, _, err := s.codec.PrefixRange(from)
	if err != nil {
		return failed[Entry](err)
	}
	_, upper, err := s.codec.PrefixRange(to)
	if err != nil {
		return failed[Entry](err)
	}
	if upper != nil && bytes.Compare(lower, upper) >= 0 {
		return func(func(Entry, error) bool) {}
	}
	return s.scan(ctx, lower, upper, nil, opts)
}

// failed is a sequence that yields only err, for each kind of read.
func failed[E any](err error) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		var zero E
		yield(zero, err)
	}
}

// scan reads [lower, upper) through the KV seam and, with a matcher,
// keeps the keys that match it, decoding only those.
func (s *Store) scan(ctx context.Context, lower, upper []byte, m *sext.Matcher, opts ScanOptions) iter.Seq2[Entry, error] {
	if len(lower) == 0 {
		lower = seam.ReservedEnd // the empty prefix bounds only the reserved range (index.go)
	}
	return func(yield func(Entry, error) bool) {
		if s.closed.Load() {
			yield(Entry{}, ErrClosed)
			return
		}
		it, err := s.openCursor(ctx, lower, upper, opts.Reverse)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		defer it.Close() // an early break, a panic; the normal end reports its error
		n := 0
		var canon []byte // scratch for the canonical check
		for it.Next() {
			k := it.Key()
			var e Entry
			var err error
			ok := true
			if m != nil {
				e.Key, e.Bindings, ok, err = m.MatchKey(k) // decoded terms share no bytes with k
			} else {
				e.Key, err = s.codec.Decode(k)
			}
			if err != nil {
				if opts.OnBadKey != nil {
					opts.OnBadKey(bytes.Clone(k), err)
				}
				continue
			}
			if !ok {
				continue
			}
			if opts.OnNonCanonical != nil {
				var canonical bool
				if _, canon, canonical, _ = classify(s.codec, canon, k); !canonical {
					opts.OnNonCanonical(bytes.Clone(k), e.Key)
				}
			}
			if !opts.KeysOnly {
				v := it.Value()
				if v == nil && it.Err() != nil {
					break
				}
				e.Value = bytes.Clone(v)
			}
			if !yield(e, nil) {
				return
			}
			if n++; opts.Limit > 0 && n >= opts.Limit {
				break
			}
		}
		if err = it.finish(nil); err != nil {
			yield(Entry{}, err)
		}
	}
}
