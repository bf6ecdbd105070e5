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
// head is an instance of a ready index's pattern is answered from that
// index's entries, when the plan would read at least every key the index
// covers (the head's prefix does not bound the scan), in two cases:
//
//	index order_id {order,'_','_','$1'}
//	select [{{order,'_','_',500000},[],['$_']}]   reads one entry, not every order
//	select [{{order,'_','_','$1'},[{'>=','$1',100},{'<','$1',200}],['$_']}]
//	                                              reads the entries of 100 to 199
//
// In the first, the head gives the index's value as a constant: entries
// of one value sort by key, so the rows come in key order, as a select's
// must, and a token (a data key) resumes inside the entries. In the
// second, the head holds a variable where the index's one variable
// stands, and the clause's guards bound it (matchspec.Spec.VarRanges):
// the entries of those values come in value order, so the select gathers
// their keys, sorts them and reads them in key order; a token cuts the
// keys gathered, and with a Limit the select reads its plan beside the
// entries and keeps whichever ends first (select_race.go says why). A
// head that gives the value as a pattern whose prefix ends at a binary
// prefix is read the same way, over the values in the pattern's prefix
// range:
//
//	select [{{order,'_','_',<<"A1",_/binary>>},[],['$_']}]
//	                                              reads the entries of the values that start with "A1"
//
// The clause's guards and body run on each key as they would on a scan.

// maxIndexRangeKeys bounds the keys a select gathers from an index's
// range of values to sort them. Past it the select reads its plan
// instead: the plan's one sequential pass over the keys then costs no
// more than a point read for each of that many rows would, and memory
// stays bounded (some 30 bytes a key of the demo's orders).
const maxIndexRangeKeys = 1 << 18

// SelectPlan is what a Select of a specification reads, as ExplainSelect
// reports it: the byte ranges of the specification's plan, or an
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
// specification's plan.
type IndexPlan struct {
	Name string // the index's name
	// Value is the index value whose entries are read: a constant the
	// clause's head gives, the head's variable ('$N') whose values the
	// clause's guards bound, or a pattern the head gives whose prefix
	// ends at a binary prefix (<<"A1",_/binary>>), whose values in its
	// prefix range (sext.PrefixRange) are read.
	Value term.Term
	// Ranges bound the entries' keys in the store's reserved range (each
	// Lower included, Upper not), ascending, with the clauses, counted
	// from 0, that run on each entry's data key: the one clause an index
	// answers. For a constant or a pattern, one range; for a variable,
	// one for each range of values its guards allow.
	Ranges []matchspec.Range
	// Sorted reports that the entries are those of ranges of values,
	// which come in value order: the select gathers their keys (if there
	// are no more than 262,144; past that it reads its plan instead,
	// and SelectStats.Index is empty) and sorts them into key order.
	// With a Limit, it reads the plan beside the entries, a key of each
	// in turn, and yields the rows of whichever read ends first (the
	// plan's, with SelectStats.Index empty, once it has the page's
	// rows): a page reads at most twice the keys of the cheaper read, so
	// paging through the rows in small pages costs no more than twice
	// one pass of the plan, not every entry again on every page.
	Sorted bool
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
	r, ok, err := s.selectIndex(ctx, spec)
	if !ok {
		return p, err
	}
	ranges, err := s.entryRanges(r)
	if err != nil {
		return SelectPlan{}, err
	}
	p.Index = &IndexPlan{Name: r.ix.Name, Value: r.value, Ranges: ranges, Sorted: r.values != nil}
	return p, nil
}

// indexRead is how a select reads an index: the entries of one value, or
// of the values in ranges (their encodings), which a variable's guards
// allow.
type indexRead struct {
	ix     *index
	value  term.Term         // the constant, or the variable
	values []matchspec.Range // nil for a constant
}

// entryRanges returns the byte ranges of r's entries. A value's range
// [lo, hi) of encodings becomes [head ++ lo, head ++ hi) of entries
// (head ++ v ++ key): no encoding of a whole term is a proper prefix of
// hi, which is a term's encoding, the end of one's prefix range or a
// type's first byte, so every entry of a value below hi lies below
// head ++ hi.
func (s *Store) entryRanges(r indexRead) ([]matchspec.Range, error) {
	clauses := []int{0}
	if r.values == nil {
		head, err := s.codec.Append(bytes.Clone(r.ix.head), r.value)
		if err != nil {
			return nil, err
		}
		return []matchspec.Range{{Lower: head, Upper: prefixEnd(head), Clauses: clauses}}, nil
	}
	out := make([]matchspec.Range, len(r.values))
	for i, v := range r.values {
		out[i] = matchspec.Range{Lower: append(bytes.Clone(r.ix.head), v.Lower...), Upper: prefixEnd(r.ix.head), Clauses: clauses}
		if v.Upper != nil {
			out[i].Upper = append(bytes.Clone(r.ix.head), v.Upper...)
		}
	}
	return out, nil
}

// selectIndex returns the index read that can answer spec, if any: a
// constant value before a range of values, and among those the first
// index defined. The error is one reading the definitions (Select then
// reads the plan).
func (s *Store) selectIndex(ctx context.Context, spec *matchspec.Spec) (indexRead, bool, error) {
	src := spec.Term()
	if spec.Len() != 1 || src.Kind() != term.KindList || src.Len() != 1 {
		return indexRead{}, false, nil
	}
	cl := src.Elems()[0]
	if cl.Kind() != term.KindTuple || cl.Len() != 3 {
		return indexRead{}, false, nil
	}
	head := cl.Elems()[0]
	c, err := s.current(ctx)
	if err != nil {
		return indexRead{}, false, err
	}
	plan := spec.Plan()
	var byRange indexRead
	for _, ix := range c.list {
		if ix.State != IndexReady {
			continue
		}
		v, ok := ix.value(head)
		if !ok || !covers(plan, ix.lower, ix.upper) {
			continue
		}
		if ground(v) {
			return indexRead{ix: ix, value: v}, true, nil
		}
		switch {
		case byRange.ix != nil:
		case binaryPrefixFirst(v):
			lo, hi, err := s.codec.PrefixRange(v)
			if err == nil {
				byRange = indexRead{ix: ix, value: v, values: []matchspec.Range{{Lower: lo, Upper: hi, Clauses: []int{0}}}}
			}
		case s.plainCodec() && len(ix.vars) == 1 && isVariable(v):
			if rs, ok := spec.VarRanges(0, v.Atom()); ok {
				byRange = indexRead{ix: ix, value: v, values: rs}
			}
		}
	}
	return byRange, byRange.ix != nil, nil
}

// plainCodec reports whether the store encodes terms as the planner
// does (sext.Encode), so that its ranges of encodings hold here.
func (s *Store) plainCodec() bool { return !s.codec.UTF8Atoms && !s.codec.Legacy }

// isVariable reports whether t is a '$N' variable.
func isVariable(t term.Term) bool {
	return t.Kind() == term.KindAtom && sext.IsWildcard(t) && t.Atom() != "_"
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

// ground reports whether t, a part of a head, matches only itself: it
// holds no wildcard, no binary prefix and no map (a map pattern matches
// maps with more keys).
func ground(t term.Term) bool {
	switch t.Kind() {
	case term.KindAtom:
		return !sext.IsWildcard(t)
	case term.KindBinaryPrefix, term.KindMap:
		return false
	case term.KindTuple, term.KindList:
		for _, e := range t.Elems() {
			if !ground(e) {
				return false
			}
		}
		// A proper list's Tail is [], itself a list: stop there.
		return t.Kind() != term.KindList || t.IsProper() || ground(t.Tail())
	case term.KindDesc:
		return ground(t.Inner())
	}
	return true
}

// binaryPrefixFirst reports whether the first part of the head pattern t
// that is not a constant, in the order sext.Prefix walks it, is a binary
// prefix: the values t matches then lie in its prefix range, which the
// binary prefix narrows. A wildcard or a map first (a map pattern matches
// maps with more keys, which its range would not hold) is false.
func binaryPrefixFirst(t term.Term) bool {
	found, _ := prefixWalk(t)
	return found
}

// prefixWalk reports whether a binary prefix comes first in t, and
// whether the walk stopped in t.
func prefixWalk(t term.Term) (found, stop bool) {
	switch t.Kind() {
	case term.KindBinaryPrefix:
		return true, true
	case term.KindAtom:
		return false, sext.IsWildcard(t)
	case term.KindMap:
		return false, true
	case term.KindTuple, term.KindList:
		for _, e := range t.Elems() {
			if found, stop = prefixWalk(e); stop {
				return found, true
			}
		}
		if t.Kind() == term.KindList && !t.IsProper() {
			return prefixWalk(t.Tail())
		}
	case term.KindDesc:
		return prefixWalk(t.Inner())
	}
	return false, false
}

// selectByIndex runs a select over r's entries; it reports false when it
// gathered more keys than it sorts, having yielded nothing (the caller
// then reads the plan).
func (sel *selection) selectByIndex(r indexRead, after []byte, yield func(Row, error) bool) bool {
	ranges, err := sel.s.entryRanges(r)
	if err != nil {
		yield(Row{}, err)
		return true
	}
	if r.values == nil {
		sel.stats.Index = r.ix.Name
		sel.readEntries(r.ix, ranges[0], after, yield)
		return true
	}
	return sel.race(r.ix, ranges, after, yield)
}

var (
	errTooManyKeys = errors.New("store: more keys than a select sorts")
	errStopped     = errors.New("store: the caller stopped") // not reported: the caller wants no more
)

// readEntries yields the rows of the entries of one value, which come
// in key order.
func (sel *selection) readEntries(ix *index, r matchspec.Range, after []byte, yield func(Row, error) bool) {
	s := sel.s
	lo, hi, head := r.Lower, r.Upper, r.Lower
	if after != nil {
		at := append(bytes.Clone(head), after...)
		var ok bool
		if lo, hi, ok = clip(lo, hi, at, sel.opts.Reverse); !ok {
			return
		}
	}
	it, err := s.openCursor(sel.ctx, lo, hi, sel.opts.Reverse)
	if err != nil {
		yield(Row{}, err)
		return
	}
	sel.stats.Ranges++
	defer it.Close() // an early break, a panic; the normal end reports its error
	for it.Next() {
		if err = sel.ctx.Err(); err != nil {
			break
		}
		sel.stats.KeysRead++
		kb := bytes.Clone(it.Key()[len(head):]) // an entry is head, then the data key
		more, rerr := sel.row(kb, yield)
		if err = rerr; err != nil || !more {
			break
		}
	}
	if err = it.finish(err); err == nil {
		err = s.stillReady(sel.ctx, ix.Name)
	}
	if err != nil && err != errStopped {
		yield(Row{}, err)
	}
}

// readKeys yields the rows of keys, in their order.
func (sel *selection) readKeys(keys [][]byte, yield func(Row, error) bool) error {
	for _, kb := range keys {
		if err := sel.ctx.Err(); err != nil {
			return err
		}
		more, err := sel.row(kb, yield)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// row yields the row of the data key kb, if its clause takes it and it
// is still stored (unless KeysOnly). It reports false when the caller
// stopped (err errStopped) or the limit was reached.
func (sel *selection) row(kb []byte, yield func(Row, error) bool) (more bool, err error) {
	t, derr := sel.s.codec.Decode(kb)
	if derr != nil {
		return true, nil // not an entry: CheckIndexes reports it
	}
	res, ok := sel.m.MatchClauses(t, []int{0})
	if !ok {
		return true, nil
	}
	row := Row{Key: t, Result: res, raw: kb, spec: sel.spec.ID(), rev: sel.opts.Reverse}
	if !sel.opts.KeysOnly {
		val, gerr := sel.s.kv.Get(sel.ctx, kb)
		if errors.Is(gerr, ErrNotFound) {
			return true, nil // deleted since the entry was read
		}
		if gerr != nil {
			return false, gerr
		}
		row.Value = val
	}
	sel.stats.Rows++
	if !yield(row, nil) {
		return false, errStopped
	}
	return sel.opts.Limit <= 0 || sel.stats.Rows < int64(sel.opts.Limit), nil
}
