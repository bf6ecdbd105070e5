package matchspec

import (
	"slices"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// Range is one byte range of a plan: the keys k with Lower <= k < Upper,
// where a nil Lower is no lower bound and a nil Upper no upper bound, and
// the clauses (indexes from 0, ascending) whose matches may lie in it.
type Range struct {
	Lower, Upper []byte
	Clauses      []int
}

// Plan returns the byte ranges a select must read: every key that some
// clause matches lies in a range that lists that clause. The ranges are
// ascending and do not overlap, so a select reads each key at most once,
// forward or reverse, and tries only the range's clauses on it, in order
// (Matcher.MatchClauses). The caller must not change the ranges.
//
// Each clause contributes the prefix range of its head (sext.PrefixRange;
// a map pattern counts as a wildcard, since it matches maps with more
// keys; a binary prefix <<"ali",_/binary>> ends the prefix as a wildcard
// does, after narrowing the range to the binaries that start with its
// bytes, by whole bytes only inside a #Desc) narrowed by its guards where
// the head's first wildcard is a '$N' the guards bound: comparisons with a number, atom, binary or [], type
// tests, =:= (and == on terms without numbers) with any constant, and
// their andalso, orelse, and and or. A variable the guards pin to a few
// constants is replaced by each of them in turn, so the prefix runs on to
// the next wildcard.
//
// Planning takes time and memory in proportion to the specification's
// size (n log n where it sorts): it works within an allowance measured
// in the spec's subterms, and what the allowance does not cover it leaves
// out, so that a plan of a huge or contrived spec is wider (reads more
// keys) than it might be, never narrower.
func (s *Spec) Plan() []Range {
	s.planOnce.Do(func() { s.plan = s.makePlan() })
	return s.plan
}

// VarRanges returns what the guards of clause number i (from 0) allow its
// head's variable name ('$N') to be, as byte ranges of the variable's own
// sext encoding, ascending and apart: every value for which all the
// guards can be true lies in one of them (they may hold values the guards
// refuse, as Plan's ranges may hold keys no clause matches; Clauses is
// {i}). A store uses them to read an index of that variable's values
// instead of the keys. ok is false when the guards leave the variable
// free (every term is allowed) or the clause binds no such variable; an
// empty list with ok true means no value can make the guards true.
//
// Guards are read as Plan reads those on a head's first variable:
// comparisons with a number, atom, binary or [], type tests, =:= and
// ==, and their andalso, orelse, and and or, within the same allowance.
func (s *Spec) VarRanges(i int, name string) (ranges []Range, ok bool) {
	if i < 0 || i >= len(s.clauses) {
		return nil, false
	}
	c := &s.clauses[i]
	slot := slices.Index(c.names, name)
	if slot < 0 {
		return nil, false
	}
	p := newPlanner(s.nodes)
	spans := p.guardSpans(c.guards, slot, spanCtx{})
	if isBase(spans, spanCtx{}) {
		return nil, false
	}
	ranges = make([]Range, 0, len(spans))
	for _, sp := range spans {
		if !sp.empty() {
			ranges = append(ranges, Range{Lower: sp.lo, Upper: sp.hi, Clauses: []int{i}})
		}
	}
	return ranges, true
}

// maxPoints bounds how many literals one clause's planning may substitute
// (the product over its variables): beyond it the clause keeps spans.
const maxPoints = 256

type clauseRange struct {
	lo, hi []byte // hi nil: unbounded
	clause int
}

func (s *Spec) makePlan() []Range {
	p := newPlanner(s.nodes)
	var rs []clauseRange
	for i := range s.clauses {
		c := &s.clauses[i]
		budget := maxPoints
		spans := c.ranges(p, c.headT, &budget)
		if cap(rs)-len(rs) < len(spans) { // doubling, not append's quarters
			rs = slices.Grow(rs, max(len(spans), cap(rs)))
		}
		for _, sp := range spans {
			rs = append(rs, clauseRange{sp.lo, sp.hi, i})
		}
	}
	return merge(rs, len(s.clauses), p.entries)
}

// ranges returns the byte ranges of keys that can match head (the
// clause's head with some variables already replaced by constants) and
// the guards. The walks over the head here are paid for by the caller.
func (c *clause) ranges(p *planner, head term.Term, budget *int) []span {
	pattern := withoutMaps(head)
	w := firstWild(pattern)
	var name string
	var ctx spanCtx
	cut := pattern // the pattern whose Prefix ends where the variable's encoding starts
	switch w.kind {
	case wildVar:
		name = w.name
	case wildDescVar:
		name, ctx = w.name, spanCtx{desc: true}
		cut = replaceAt(pattern, w.path, term.Atom("_"))
	}
	if name == "" { // a whole term (one key), or the prefix range
		// A binary prefix narrows the range past its whole bytes.
		lo, hi, err := sext.PrefixRange(cut)
		if err != nil {
			return []span{{lo: nil, hi: nil}} // read everything rather than guess
		}
		return []span{{lo: lo, hi: hi}}
	}
	pre, err := sext.Prefix(cut)
	if err != nil {
		return []span{{lo: nil, hi: nil}} // read everything rather than guess
	}
	slot := slices.Index(c.names, name)
	spans := p.guardSpans(c.guards, slot, ctx)
	points, size := 0, 0
	for _, sp := range spans {
		if sp.point != nil {
			points++
		}
		size += 2*len(pre) + len(sp.lo) + len(sp.hi)
	}
	// A prefix copied onto each of many spans could cost the product of
	// their sizes: past the allowance, the one span that holds them all.
	if len(spans) > 1 && !p.spendBytes(size) {
		hull := span{lo: spans[0].lo, hi: spans[len(spans)-1].hi}
		spans, points = []span{hull}, 0
	}
	out := make([]span, 0, len(spans))
	// Each substitution walks the head again (4 walks: maps, wildcard,
	// substitution, prefix); it is done only while the allowance pays.
	expand := points > 0 && points <= *budget && p.spend(4*points*c.headN)
	if expand {
		*budget /= points
	}
	for _, sp := range spans {
		if expand && sp.point != nil {
			out = append(out, c.ranges(p, subst(head, name, *sp.point), budget)...)
			continue
		}
		r := span{lo: append(slices.Clip(pre), sp.lo...), hi: sext.PrefixEnd(pre)}
		if sp.hi != nil {
			r.hi = append(slices.Clip(pre), sp.hi...)
		}
		out = append(out, r)
	}
	return out
}

type wildKind uint8

const (
	wildNone    wildKind = iota // no wildcard: the pattern is one term
	wildAny                     // '_', a tail, a variable inside a Desc or a binary prefix: the prefix range only
	wildVar                     // '$N' at an element's place
	wildDescVar                 // #Desc<'$N'> at an element's place
)

type wild struct {
	kind wildKind
	name string
	path []int // element indexes from the root to the Desc, for wildDescVar
}

// firstWild finds the first wildcard in the order sext.Prefix meets it. A
// binary prefix ends the prefix as a wildcard does: a variable after it
// cannot extend the prefix.
func firstWild(t term.Term) wild {
	var path []int
	var walk func(t term.Term, inDesc bool) (wild, bool)
	walk = func(t term.Term, inDesc bool) (wild, bool) {
		switch t.Kind() {
		case term.KindBinaryPrefix:
			return wild{kind: wildAny}, true
		case term.KindAtom:
			name := t.Atom()
			switch {
			case name == "_":
				return wild{kind: wildAny}, true
			case varName(name) && inDesc:
				return wild{kind: wildAny}, true
			case varName(name):
				return wild{kind: wildVar, name: name}, true
			}
		case term.KindTuple:
			for i, x := range t.Elems() {
				path = append(path, i)
				if w, ok := walk(x, inDesc); ok {
					return w, true
				}
				path = path[:len(path)-1]
			}
		case term.KindList:
			for i, x := range t.Elems() {
				path = append(path, i)
				if w, ok := walk(x, inDesc); ok {
					return w, true
				}
				path = path[:len(path)-1]
			}
			if tail := t.Tail(); !t.IsProper() {
				if tail.Kind() == term.KindAtom && (tail.Atom() == "_" || varName(tail.Atom())) {
					return wild{kind: wildAny}, true // a tail may be a cons: no order to use
				}
				w, ok := walk(tail, inDesc)
				if w.kind == wildDescVar { // its path does not lead through a tail
					w = wild{kind: wildAny}
				}
				return w, ok
			}
		case term.KindDesc:
			in := t.Inner()
			if !inDesc && in.Kind() == term.KindAtom && varName(in.Atom()) {
				return wild{kind: wildDescVar, name: in.Atom(), path: slices.Clone(path)}, true
			}
			return walk(in, true)
		}
		return wild{}, false
	}
	w, _ := walk(t, false)
	return w
}

// withoutMaps replaces every map in a head by '_': a map pattern matches
// maps with more keys than it names, so its encoding bounds nothing.
func withoutMaps(t term.Term) term.Term {
	switch t.Kind() {
	case term.KindMap:
		return term.Atom("_")
	case term.KindTuple:
		return term.Tuple(mapElems(t.Elems(), withoutMaps)...)
	case term.KindList:
		if t.Len() == 0 {
			return t
		}
		return term.ImproperList(mapElems(t.Elems(), withoutMaps), withoutMaps(t.Tail()))
	case term.KindDesc:
		return term.Desc(withoutMaps(t.Inner()))
	}
	return t
}

// subst replaces the variable name by v everywhere in t.
func subst(t term.Term, name string, v term.Term) term.Term {
	switch t.Kind() {
	case term.KindAtom:
		if t.Atom() == name {
			return v
		}
	case term.KindTuple:
		return term.Tuple(mapElems(t.Elems(), func(x term.Term) term.Term { return subst(x, name, v) })...)
	case term.KindList:
		if t.Len() == 0 {
			return t
		}
		f := func(x term.Term) term.Term { return subst(x, name, v) }
		return term.ImproperList(mapElems(t.Elems(), f), f(t.Tail()))
	case term.KindMap:
		es := slices.Clone(t.Entries())
		for i := range es {
			es[i].Value = subst(es[i].Value, name, v)
		}
		return term.Map(es...)
	case term.KindDesc:
		return term.Desc(subst(t.Inner(), name, v))
	}
	return t
}

// replaceAt replaces the subterm at path (element indexes of tuples and
// lists) by v.
func replaceAt(t term.Term, path []int, v term.Term) term.Term {
	if len(path) == 0 {
		return v
	}
	es := slices.Clone(t.Elems())
	es[path[0]] = replaceAt(es[path[0]], path[1:], v)
	if t.Kind() == term.KindTuple {
		return term.Tuple(es...)
	}
	return term.ImproperList(es, t.Tail())
}

func mapElems(es []term.Term, f func(term.Term) term.Term) []term.Term {
	out := make([]term.Term, len(es))
	for i, x := range es {
		out[i] = f(x)
	}
	return out
}
