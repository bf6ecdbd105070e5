package store

// Select: match specifications (package matchspec) run over the store,
// through the KV seam's cursors only, so it works on every backend.

import (
	"bytes"
	"context"
	"iter"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
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
	Ranges   int    // byte ranges read (of the plan's, after a token's cut)
	KeysRead int64  // keys read through the KV seam
	Rows     int64  // rows yielded
	Index    string // the index read instead of the plan, if any
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
// and checks ctx between keys; or, when an index answers the spec's one
// clause and the plan would read every key the index covers, that
// index's entries of the clause's value (SelectStats.Index names it, and
// ExplainSelect reports it beforehand; if the index is dropped while the
// select reads it, the select ends with ErrNoIndex after the rows it
// read).
//
// Paging: with Limit, take the last row's Continuation and pass it as
// After to get the next page (which may be empty). A resumed select reads
// the store as it is then, from just after that row's key: it sees rows
// written or changed further on in its direction, not those written
// before that key or deleted since, and never yields a key twice. Within
// one page each range is one cursor, a snapshot of its own. A page read
// from an index's ranges of values reads the plan beside the entries
// (IndexPlan.Sorted), so that small pages do not read every entry each.
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
		// An error reading the index definitions leaves the plan to
		// answer, as it would without indexes.
		if r, ok, _ := s.selectIndex(ctx, spec); ok && sel.selectByIndex(r, after, yield) {
			return
		}
		rs := ranges{sel: &sel, todo: sel.planRanges(after), reverse: opts.Reverse}
		defer rs.close() // an early stop, a panic; the normal end reports its error
		if err := sel.stream(&rs, yield); err != nil {
			yield(Row{}, err)
		}
	}
}

// planRanges returns the ranges of the spec's plan in the read's order,
// each cut to what lies after the token's key (after, if any); the
// ranges nothing is left of are dropped.
func (sel *selection) planRanges(after []byte) []matchspec.Range {
	plan := sel.spec.Plan()
	out := make([]matchspec.Range, 0, len(plan))
	for i := range plan {
		r := plan[i]
		if sel.opts.Reverse {
			r = plan[len(plan)-1-i]
		}
		lo, hi, ok := clip(r.Lower, r.Upper, after, sel.opts.Reverse)
		if !ok {
			continue
		}
		if len(lo) == 0 {
			lo = seam.ReservedEnd // below it lie the index entries (index.go)
		}
		out = append(out, matchspec.Range{Lower: lo, Upper: hi, Clauses: r.Clauses})
	}
	return out
}

// clip cuts [lo, hi) (hi nil: unbounded) to what lies after the key a
// token resumes from (nil: none), in the read's direction, and reports
// whether anything is left.
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

// stream yields the rows of rs's keys as it reads them, until the
// ranges end, the caller stops or the limit is reached.
func (sel *selection) stream(rs *ranges, yield func(Row, error) bool) error {
	for {
		if err := sel.ctx.Err(); err != nil {
			return err
		}
		more, err := rs.next()
		if !more || err != nil {
			return err
		}
		row, ok, bad := sel.match(rs.it, rs.clauses)
		if bad != nil {
			if sel.opts.OnBadKey != nil {
				sel.opts.OnBadKey(bytes.Clone(rs.it.Key()), bad)
			}
			continue
		}
		if !ok {
			if err := rs.it.Err(); err != nil {
				return err
			}
			continue
		}
		sel.stats.Rows++
		if !yield(row, nil) || sel.opts.Limit > 0 && sel.stats.Rows >= int64(sel.opts.Limit) {
			return nil
		}
	}
}

// ranges reads byte ranges one after another, a key a call to next.
type ranges struct {
	sel     *selection
	todo    []matchspec.Range // those not yet opened
	reverse bool
	it      *cursor
	clauses []int // the open range's
}

// next moves to the next key, opening and closing ranges as it goes; it
// reports false once every range is read.
func (rs *ranges) next() (bool, error) {
	for rs.it == nil || !rs.it.Next() {
		if rs.it != nil {
			err := rs.it.finish(nil)
			rs.it = nil
			if err != nil {
				return false, err
			}
		}
		if len(rs.todo) == 0 {
			return false, nil
		}
		r := rs.todo[0]
		rs.todo = rs.todo[1:]
		it, err := rs.sel.s.openCursor(rs.sel.ctx, r.Lower, r.Upper, rs.reverse)
		if err != nil {
			return false, err
		}
		rs.it, rs.clauses = it, r.Clauses
		rs.sel.stats.Ranges++
	}
	return true, nil
}

func (rs *ranges) close() {
	if rs.it != nil {
		rs.it.Close()
		rs.it = nil
	}
}

// match reads the key under it and returns its row, if a clause of
// clauses takes it (with its value, unless KeysOnly), or as bad the
// error of a key that is no term's encoding. A value that cannot be read
// gives no row: it.Err says why.
func (sel *selection) match(it *cursor, clauses []int) (row Row, ok bool, bad error) {
	sel.stats.KeysRead++
	k := it.Key()
	t, err := sel.s.codec.Decode(k)
	if err != nil {
		return Row{}, false, err
	}
	res, ok := sel.m.MatchClauses(t, clauses)
	if !ok {
		return Row{}, false, nil
	}
	row = Row{Key: t, Result: res, raw: bytes.Clone(k), spec: sel.spec.ID(), rev: sel.opts.Reverse}
	if !sel.opts.KeysOnly {
		v := it.Value()
		if v == nil && it.Err() != nil {
			return Row{}, false, nil
		}
		row.Value = bytes.Clone(v)
	}
	return row, true, nil
}
