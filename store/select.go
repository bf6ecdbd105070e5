package store

// Select: match specifications (package matchspec) run over the store.
// This file is all of the store's side of it; it reads through the KV
// seam only (NewIter), so it works on every backend.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"iter"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

var (
	// ErrToken: a continuation token is not one (mistyped, cut short, or
	// from another program).
	ErrToken = errors.New("store: malformed continuation token")
	// ErrTokenMismatch: a continuation token belongs to another match
	// specification, or to a select in the other direction.
	ErrTokenMismatch = errors.New("store: continuation token is for another select")
)

// SelectOptions adjusts a Select. The zero value reads forward, without a
// limit, with values, from the start.
type SelectOptions struct {
	// Limit is the most rows to yield; 0 or less means no limit.
	Limit int
	// Reverse yields rows in descending key order.
	Reverse bool
	// KeysOnly leaves Row.Value nil, which spares reading values.
	KeysOnly bool
	// After resumes a select right after the row whose Continuation it
	// is. The token must come from the same specification and direction.
	After string
	// OnBadKey is as for ScanOptions: keys that are no sext encoding are
	// handed to it and skipped.
	OnBadKey func(key []byte, err error)
	// Stats, when set, is filled in as the select runs.
	Stats *SelectStats
}

// SelectStats counts what a select did.
type SelectStats struct {
	Ranges   int   // byte ranges read (of the plan's, after a token's cut)
	KeysRead int64 // keys read through the KV seam
	Rows     int64 // rows yielded
}

// Row is one result of a Select.
type Row struct {
	Key   term.Term
	Value []byte // the caller's own copy; nil with KeysOnly
	// Result is what the first matching clause's body made of the key:
	// Result.Whole is set for a body of just '$_', whose row is the key
	// and its value.
	Result matchspec.Result

	raw  []byte // the key's bytes, to resume after
	spec string
	rev  bool
}

// Continuation returns a token that resumes the select right after r:
// text, safe in a URL, that any process can pass back as
// SelectOptions.After with the same specification and direction.
func (r Row) Continuation() string {
	if r.raw == nil {
		return ""
	}
	return encodeToken(r.spec, r.rev, r.raw)
}

// Select yields, in key order (descending with Reverse), a row for every
// key that spec matches: the first clause whose head matches the key and
// whose guards are true gives the row, as ets:select on an ordered_set
// does. It reads only the byte ranges of spec.Plan, each key at most once,
// and checks ctx between keys.
//
// Paging: with Limit, take the last row's Continuation and pass it as
// After to get the next page (which may be empty). A resumed select reads
// the store as it is then, from just after that row's key: it sees rows
// written or changed further on in its direction, not those written
// before that key or deleted since, and never yields a key twice. Within
// one page each range is one cursor, a snapshot of its own.
//
// Errors and early exits are as for Scan: an error is the last pair
// yielded, and the cursor is closed either way.
func (s *Store) Select(ctx context.Context, spec *matchspec.Spec, opts SelectOptions) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		if s.closed.Load() {
			yield(Row{}, ErrClosed)
			return
		}
		var after []byte
		if opts.After != "" {
			var err error
			if after, err = decodeToken(opts.After, spec.ID(), opts.Reverse); err != nil {
				yield(Row{}, err)
				return
			}
		}
		sel := selection{s: s, ctx: ctx, spec: spec, opts: opts, m: spec.NewMatcher(), stats: opts.Stats}
		if sel.stats == nil {
			sel.stats = new(SelectStats)
		}
		plan := spec.Plan()
		for i := range plan {
			r := plan[i]
			if opts.Reverse {
				r = plan[len(plan)-1-i]
			}
			lo, hi, ok := clip(r.Lower, r.Upper, after, opts.Reverse)
			if !ok {
				continue
			}
			more, err := sel.readRange(lo, hi, r.Clauses, yield)
			if err != nil {
				yield(Row{}, err)
				return
			}
			if !more {
				return
			}
		}
	}
}

// clip cuts [lo, hi) to what lies after the key a token resumes from.
func clip(lo, hi, after []byte, reverse bool) ([]byte, []byte, bool) {
	switch {
	case after == nil:
	case !reverse:
		next := append(bytes.Clone(after), 0) // the least key after it
		if bytes.Compare(next, lo) > 0 {
			lo = next
		}
	case hi == nil || bytes.Compare(after, hi) < 0:
		hi = after
	}
	return lo, hi, hi == nil || bytes.Compare(lo, hi) < 0
}

type selection struct {
	s     *Store
	ctx   context.Context
	spec  *matchspec.Spec
	opts  SelectOptions
	m     *matchspec.Matcher
	stats *SelectStats
}

// readRange yields the rows of one range; it reports false when the
// caller stopped or the limit was reached.
func (sel *selection) readRange(lo, hi []byte, clauses []int, yield func(Row, error) bool) (more bool, err error) {
	if err := sel.ctx.Err(); err != nil {
		return false, err
	}
	if len(lo) == 0 {
		lo = nil
	}
	it, err := sel.s.kv.NewIter(lo, hi, sel.opts.Reverse)
	if err != nil {
		return false, err
	}
	sel.stats.Ranges++
	open := true
	defer func() {
		if open {
			it.Close()
		}
	}()
	more = true
	for it.Next() {
		if err = sel.ctx.Err(); err != nil {
			break
		}
		sel.stats.KeysRead++
		k := it.Key()
		t, derr := sext.Decode(k)
		if derr != nil {
			if sel.opts.OnBadKey != nil {
				sel.opts.OnBadKey(bytes.Clone(k), derr)
			}
			continue
		}
		res, ok := sel.m.MatchClauses(t, clauses)
		if !ok {
			continue
		}
		row := Row{Key: t, Result: res, raw: bytes.Clone(k), spec: sel.spec.ID(), rev: sel.opts.Reverse}
		if !sel.opts.KeysOnly {
			v := it.Value()
			if v == nil && it.Err() != nil {
				break
			}
			row.Value = bytes.Clone(v)
		}
		sel.stats.Rows++
		if !yield(row, nil) {
			more = false
			break
		}
		if sel.opts.Limit > 0 && sel.stats.Rows >= int64(sel.opts.Limit) {
			more = false
			break
		}
	}
	if err == nil {
		err = it.Err()
	}
	open = false
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return more && err == nil, err
}

// A token is "s1." and the unpadded URL-safe base64 of: a version byte
// (1), a flags byte (1: reverse), the spec's 8-byte identity, the key
// bytes, and a CRC-32 (IEEE) of everything before it, so that a mistyped
// token is refused rather than resumed at a wrong place.
const (
	tokenPrefix  = "s1."
	tokenVersion = 1
	maxTokenKey  = 1 << 16 // far beyond any real key; bounds the work on junk
)

func encodeToken(specID string, reverse bool, key []byte) string {
	b := make([]byte, 0, 2+8+len(key)+4)
	var flags byte
	if reverse {
		flags = 1
	}
	b = append(b, tokenVersion, flags)
	b = appendSpecID(b, specID)
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func appendSpecID(b []byte, id string) []byte {
	raw, _ := hex.DecodeString(id) // an ID is always 16 hex digits
	return append(b, raw...)
}

func decodeToken(tok, specID string, reverse bool) ([]byte, error) {
	if len(tok) < len(tokenPrefix) || tok[:len(tokenPrefix)] != tokenPrefix {
		return nil, fmt.Errorf("%w: does not start with %q", ErrToken, tokenPrefix)
	}
	body := tok[len(tokenPrefix):]
	if base64.RawURLEncoding.DecodedLen(len(body)) > 2+8+maxTokenKey+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", ErrToken, len(tok))
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: not base64 at character %d", ErrToken, len(tokenPrefix)+int(ce))
		}
		return nil, fmt.Errorf("%w: %v", ErrToken, err)
	}
	if len(b) < 2+8+4 {
		return nil, fmt.Errorf("%w: too short", ErrToken)
	}
	n := len(b) - 4
	if crc32.ChecksumIEEE(b[:n]) != binary.BigEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: checksum does not match (mistyped or cut?)", ErrToken)
	}
	if b[0] != tokenVersion || b[1]&^1 != 0 {
		return nil, fmt.Errorf("%w: unknown version %d", ErrToken, b[0])
	}
	if want := appendSpecID(nil, specID); !bytes.Equal(b[2:10], want) {
		return nil, fmt.Errorf("%w: it was made by the match specification %x, not this one (%s)", ErrTokenMismatch, b[2:10], specID)
	}
	if rev := b[1]&1 == 1; rev != reverse {
		dir := "a forward"
		if rev {
			dir = "a reverse"
		}
		return nil, fmt.Errorf("%w: it resumes %s select", ErrTokenMismatch, dir)
	}
	return b[10:n], nil
}
