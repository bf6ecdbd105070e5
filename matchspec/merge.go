package matchspec

import (
	"bytes"
	"math/bits"
	"slices"
)

// merge turns the clauses' ranges into ascending, non-overlapping ranges,
// each with the clauses that cover all of it. Neighbours serving the same
// clauses are joined. It sweeps the ranges' bounds, sorted once, keeping
// the clauses open at each point in a bit set: n ranges cost n log n, plus
// the clause lists written. Those lists are bounded (4 entries a range and
// extra, entriesBase in a plan); clauses overlapping so much that they
// would pass it get one range from the least lower bound to the greatest
// upper bound, listing every clause: wider, never missing a key.
func merge(rs []clauseRange, clauses, extra int) []Range {
	if len(rs) == 0 {
		return nil
	}
	type event struct {
		at     []byte // nil: the start of the keyspace
		clause int
		delta  int // 1 where a range starts, -1 where it ends
	}
	events := make([]event, 0, 2*len(rs))
	for _, r := range rs {
		events = append(events, event{r.lo, r.clause, 1})
		if r.hi != nil {
			events = append(events, event{r.hi, r.clause, -1})
		}
	}
	slices.SortFunc(events, func(x, y event) int { return bytes.Compare(x.at, y.at) })

	count := make([]int, clauses)           // ranges of each clause open
	open := make([]uint64, (clauses+63)/64) // clauses with count > 0
	limit := 4*len(rs) + extra
	var entries []int // every range's clause list, end to end
	var out []Range
	for i := 0; i < len(events); {
		at := events[i].at
		for ; i < len(events) && bytes.Equal(events[i].at, at); i++ {
			e := events[i]
			count[e.clause] += e.delta
			if count[e.clause] > 0 {
				open[e.clause/64] |= 1 << (e.clause % 64)
			} else {
				open[e.clause/64] &^= 1 << (e.clause % 64)
			}
		}
		var hi []byte // nil: the end
		if i < len(events) {
			hi = events[i].at
		}
		start, n := len(entries), 0
		for _, word := range open {
			n += bits.OnesCount64(word)
		}
		if start+n > limit {
			return []Range{hull(rs, clauses)}
		}
		if cap(entries)-start < n { // doubling: append's quarter steps cost five times the list
			entries = slices.Grow(entries, max(n, cap(entries)))
		}
		for w, word := range open {
			for ; word != 0; word &= word - 1 {
				entries = append(entries, 64*w+bits.TrailingZeros64(word))
			}
		}
		cls := entries[start:len(entries):len(entries)]
		if len(cls) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Upper != nil && bytes.Equal(out[n-1].Upper, at) && slices.Equal(out[n-1].Clauses, cls) {
			out[n-1].Upper = hi
			entries = entries[:start]
			continue
		}
		out = append(grow(out), Range{Lower: at, Upper: hi, Clauses: cls})
	}
	for i := range out {
		if len(out[i].Lower) == 0 {
			out[i].Lower = nil
		}
	}
	return out
}

// hull is the one range that holds all of rs, serving every clause that
// has a range.
func hull(rs []clauseRange, clauses int) Range {
	has := make([]bool, clauses)
	h := Range{Lower: rs[0].lo, Upper: rs[0].hi}
	for _, r := range rs {
		has[r.clause] = true
		if bytes.Compare(r.lo, h.Lower) < 0 {
			h.Lower = r.lo
		}
		if h.Upper != nil && (r.hi == nil || bytes.Compare(r.hi, h.Upper) > 0) {
			h.Upper = r.hi
		}
	}
	for i, ok := range has {
		if ok {
			h.Clauses = append(h.Clauses, i)
		}
	}
	if len(h.Lower) == 0 {
		h.Lower = nil
	}
	return h
}

// grow makes room for one more element, doubling the capacity when there
// is none: append alone grows large slices by a quarter, which allocates
// five times the final size in all, and by steps that put a jump into a
// doubling of the input.
func grow[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 8))
}
