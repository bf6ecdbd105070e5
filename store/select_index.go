package store

import (
	"bytes"
	"context"
	"errors"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// The select planner's use of indexes. A one-clause specification whose
// head is an instance of a ready index's pattern, with what the index's
// variables bind given as constants, is answered from that index's
// entries of that one value, when the plan would read at least every key
// the index covers (the head's prefix does not bound the scan):
//
//	index order_id {order,'_','_','$1'}
//	select [{{order,'_','_',500000},[],['$_']}]   reads one entry, not every order
//
// Entries of one value sort by key, so the rows come in key order, as a
// select's must, and a token (a data key) resumes inside the entries.
// The clause's guards and body run on each key as they would on a scan.

// SelectPlan is what a Select of a specification reads, as ExplainSelect
// reports it: the byte ranges of the specification's plan, or one
// index's entries in their place.
type SelectPlan struct {
	// Ranges is the specification's plan (matchspec.Spec.Plan), read
	// when Index is nil.
	Ranges []matchspec.Range
	// Index is the index read instead of Ranges, if one answers the
	// specification.
	Index *IndexPlan
}

// IndexPlan is how a Select reads an index in place of its
// specification's plan: one byte range of the index's entries, those of
// one index value.
type IndexPlan struct {
	Name  string    // the index's name
	Value term.Term // the index value whose entries are read
	// Lower and Upper bound the entries' keys in the store's reserved
	// range (Lower included, Upper not); a continuation token cuts them
	// as it cuts a plan's range.
	Lower, Upper []byte
	// Clauses are the specification's clauses, counted from 0, that run
	// on each entry's data key: the one clause an index answers.
	Clauses []int
}

// ExplainSelect returns what a Select of spec would read if it ran now:
// the plan's ranges, or an index's entries when an index answers spec
// (see Select). The store's index definitions decide it, and may change
// before a Select runs: SelectStats.Index says what one read. The error
// is one reading the definitions, which Select itself passes over (it
// then reads the plan).
func (s *Store) ExplainSelect(ctx context.Context, spec *matchspec.Spec) (SelectPlan, error) {
	if s.closed.Load() {
		return SelectPlan{}, ErrClosed
	}
	p := SelectPlan{Ranges: spec.Plan()}
	ix, v, ok, err := s.selectIndex(ctx, spec)
	if !ok {
		return p, err
	}
	lo, hi, err := s.entryRange(ix, v)
	if err != nil {
		return SelectPlan{}, err
	}
	p.Index = &IndexPlan{Name: ix.Name, Value: v, Lower: lo, Upper: hi, Clauses: []int{0}}
	return p, nil
}

// entryRange returns the byte range of ix's entries of the value v.
func (s *Store) entryRange(ix *index, v term.Term) (lo, hi []byte, err error) {
	head, err := s.codec.Append(bytes.Clone(ix.head), v)
	if err != nil {
		return nil, nil, err
	}
	return head, prefixEnd(head), nil
}

// selectIndex returns the index and value that can answer spec, if any;
// the error is one reading the definitions (Select then reads the plan).
func (s *Store) selectIndex(ctx context.Context, spec *matchspec.Spec) (*index, term.Term, bool, error) {
	src := spec.Term()
	if spec.Len() != 1 || src.Kind() != term.KindList || src.Len() != 1 {
		return nil, term.Term{}, false, nil
	}
	cl := src.Elems()[0]
	if cl.Kind() != term.KindTuple || cl.Len() != 3 {
		return nil, term.Term{}, false, nil
	}
	head := cl.Elems()[0]
	c, err := s.current(ctx)
	if err != nil {
		return nil, term.Term{}, false, err
	}
	plan := spec.Plan()
	for _, ix := range c.list {
		if ix.State != IndexReady {
			continue
		}
		v, ok := ix.value(head)
		if !ok || !ground(v) || !covers(plan, ix.lower, ix.upper) {
			continue
		}
		return ix, v, true, nil
	}
	return nil, term.Term{}, false, nil
}

// covers reports whether some range of plan holds all of [lo, hi): the
// plan would read every key the index covers.
func covers(plan []matchspec.Range, lo, hi []byte) bool {
	for _, r := range plan {
		if len(r.Lower) > 0 && (lo == nil || bytes.Compare(r.Lower, lo) > 0) {
			continue
		}
		if r.Upper == nil || hi != nil && bytes.Compare(r.Upper, hi) >= 0 {
			return true
		}
	}
	return false
}

// ground reports whether t holds no wildcard.
func ground(t term.Term) bool {
	switch t.Kind() {
	case term.KindAtom:
		return !sext.IsWildcard(t)
	case term.KindTuple, term.KindList:
		for _, e := range t.Elems() {
			if !ground(e) {
				return false
			}
		}
		return t.Kind() != term.KindList || ground(t.Tail())
	case term.KindMap:
		for _, e := range t.Entries() {
			if !ground(e.Key) || !ground(e.Value) {
				return false
			}
		}
	case term.KindDesc:
		return ground(t.Inner())
	}
	return true
}

// selectByIndex runs a select over the entries of ix under v.
func (sel *selection) selectByIndex(ix *index, v term.Term, after []byte, yield func(Row, error) bool) {
	s := sel.s
	lo, hi, err := s.entryRange(ix, v)
	if err != nil {
		yield(Row{}, err)
		return
	}
	head := lo
	if after != nil {
		at := append(bytes.Clone(head), after...)
		var ok bool
		if lo, hi, ok = clip(lo, hi, at, sel.opts.Reverse); !ok {
			return
		}
	}
	sel.stats.Index = ix.Name
	it, err := s.openCursor(sel.ctx, lo, hi, sel.opts.Reverse)
	if err != nil {
		yield(Row{}, err)
		return
	}
	sel.stats.Ranges++
	defer it.Close() // an early break, a panic; the normal end reports its error
	clauses := []int{0}
	for it.Next() {
		if err = sel.ctx.Err(); err != nil {
			break
		}
		sel.stats.KeysRead++
		kb := bytes.Clone(it.Key()[len(head):]) // an entry is head, then the data key
		t, derr := s.codec.Decode(kb)
		if derr != nil {
			continue // not an entry: CheckIndexes reports it
		}
		res, ok := sel.m.MatchClauses(t, clauses)
		if !ok {
			continue
		}
		row := Row{Key: t, Result: res, raw: kb, spec: sel.spec.ID(), rev: sel.opts.Reverse}
		if !sel.opts.KeysOnly {
			val, gerr := s.kv.Get(sel.ctx, kb)
			if gerr != nil {
				if errors.Is(gerr, ErrNotFound) {
					continue // deleted since the entry was read
				}
				err = gerr
				break
			}
			row.Value = val
		}
		sel.stats.Rows++
		if !yield(row, nil) {
			return // the deferred Close; the caller wants no error
		}
		if sel.opts.Limit > 0 && sel.stats.Rows >= int64(sel.opts.Limit) {
			break
		}
	}
	if err = it.finish(err); err == nil {
		err = s.stillReady(sel.ctx, ix.Name)
	}
	if err != nil {
		yield(Row{}, err)
	}
}
