package matchspec

import (
	"bytes"
	"math"
	"math/big"
	"slices"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// What the guards say about one variable, as byte spans of the variable's
// own encoding: the values it can take when every guard is true, a
// superset (never a subset) of the truth. A span is [lo, hi) of encoded
// terms (hi nil: no upper bound); a point span holds exactly one term,
// which the planner may substitute into the head as a literal.

type span struct {
	lo, hi []byte
	point  *term.Term
}

func (s span) empty() bool { return s.hi != nil && bytes.Compare(s.lo, s.hi) >= 0 }

var full = []span{{lo: []byte{}}}

// spanCtx says where the variable sits: plain, or directly inside a Desc,
// whose encoding reverses its inner term's order.
type spanCtx struct {
	desc bool
}

// base is the span of every term in the context.
func (c spanCtx) base() span {
	if c.desc {
		return span{lo: []byte{tagDesc}, hi: []byte{tagDesc + 1}}
	}
	return full[0]
}

// The encoding's first bytes by type (docs/FORMAT.md).
const (
	tagDesc  = 4
	tagNum   = 8 // negative bignums; numbers run to 11
	tagAtom  = 12
	tagRef   = 13
	tagPort  = 14
	tagPid   = 15
	tagTuple = 16
	tagList  = 17 // [] is 17 2; a map is 17 1
	tagBin   = 18
)

// typeSpans are the spans of the type tests, for a plain variable.
var typeSpans = map[fn]span{
	fIsInteger:   {lo: []byte{tagNum}, hi: []byte{tagAtom}},
	fIsFloat:     {lo: []byte{tagNum}, hi: []byte{tagAtom}},
	fIsNumber:    {lo: []byte{tagNum}, hi: []byte{tagAtom}},
	fIsAtom:      {lo: []byte{tagAtom}, hi: []byte{tagAtom + 1}},
	fIsReference: {lo: []byte{tagRef}, hi: []byte{tagRef + 1}},
	fIsPort:      {lo: []byte{tagPort}, hi: []byte{tagPort + 1}},
	fIsPid:       {lo: []byte{tagPid}, hi: []byte{tagPid + 1}},
	fIsTuple:     {lo: []byte{tagTuple}, hi: []byte{tagTuple + 1}},
	fIsMap:       {lo: []byte{tagList, 1}, hi: []byte{tagList, 2}},
	fIsList:      {lo: []byte{tagList, 2}, hi: []byte{tagBin}},
	fIsBinary:    {lo: []byte{tagBin}, hi: []byte{tagBin + 1}},
	fIsBitstring: {lo: []byte{tagBin}, hi: []byte{tagBin + 1}},
}

// guardSpans is what all of a clause's guards allow for slot.
func (p *planner) guardSpans(guards []*expr, slot int, ctx spanCtx) []span {
	parts := make([][]span, 0, len(guards))
	for _, g := range guards {
		sp := p.exprSpans(g, slot, ctx)
		if len(sp) == 0 {
			return nil
		}
		parts = append(parts, sp)
	}
	return p.intersectAll(parts, ctx)
}

// exprSpans is what e being true allows for slot. Chains of andalso and
// and, and of orelse and or, are read as one list of operands each, found
// without recursion, and combined at once: a chain of n operands costs
// n log n, not the n² of combining them two at a time.
func (p *planner) exprSpans(e *expr, slot int, ctx spanCtx) []span {
	if !p.spend(1) {
		return []span{ctx.base()}
	}
	switch e.op {
	case opConst:
		if isTrue(e.val) {
			return []span{ctx.base()}
		}
		return nil // a guard that is not true fails
	case opCall:
	default:
		return []span{ctx.base()}
	}
	switch e.fn {
	case fAndalso, fAnd, fOrelse, fOr:
		or := e.fn == fOrelse || e.fn == fOr
		operands, ok := p.chain(e, or)
		if !ok {
			return []span{ctx.base()}
		}
		parts := make([][]span, 0, len(operands))
		for _, x := range operands {
			sp := p.exprSpans(x, slot, ctx)
			switch {
			case or && isBase(sp, ctx):
				return sp // anything or x allows anything
			case !or && len(sp) == 0:
				return nil // nothing and x allows nothing
			}
			parts = append(parts, sp)
		}
		if or {
			return p.unionAll(parts, ctx)
		}
		return p.intersectAll(parts, ctx)
	case fIsBoolean:
		if isVar(e.args[0], slot) {
			return p.unionAll([][]span{pointSpans(atomFalse, ctx), pointSpans(atomTrue, ctx)}, ctx)
		}
	case fLT, fLE, fGT, fGE, fEq, fExact:
		f, a, b := e.fn, e.args[0], e.args[1]
		if isVar(b, slot) && a.op == opConst {
			f, a, b = flip(f), b, a
		}
		if isVar(a, slot) && b.op == opConst {
			return p.cmpSpans(f, b.val, ctx)
		}
	default:
		if sp, ok := typeSpans[e.fn]; ok && isVar(e.args[0], slot) && !ctx.desc {
			return []span{sp}
		}
	}
	return []span{ctx.base()}
}

// chain lists the operands of the chain of orelse and or (or, else of
// andalso and and) that e heads, left to right, walking it with a stack
// of its own. It reports false if the allowance ran out on the way.
func (p *planner) chain(e *expr, or bool) ([]*expr, bool) {
	inChain := func(x *expr) bool {
		if x.op != opCall {
			return false
		}
		if or {
			return x.fn == fOrelse || x.fn == fOr
		}
		return x.fn == fAndalso || x.fn == fAnd
	}
	var out []*expr
	stack := []*expr{e}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !inChain(x) {
			out = append(out, x)
			continue
		}
		if !p.spend(1) {
			return nil, false
		}
		stack = append(stack, x.args[1], x.args[0])
	}
	return out, true
}

// isBase reports whether s is every term of the context.
func isBase(s []span, ctx spanCtx) bool {
	b := ctx.base()
	return len(s) == 1 && bytes.Equal(s[0].lo, b.lo) && bytesEqualHi(s[0].hi, b.hi)
}

func isVar(e *expr, slot int) bool { return e.op == opVar && e.slot == slot }

// flip turns c OP x into x OP' c.
func flip(f fn) fn {
	switch f {
	case fLT:
		return fGT
	case fLE:
		return fGE
	case fGT:
		return fLT
	case fGE:
		return fLE
	}
	return f
}

// cmpSpans is what x F c allows for x.
func (p *planner) cmpSpans(f fn, c term.Term, ctx spanCtx) []span {
	if f == fExact {
		return pointSpans(c, ctx)
	}
	var class []term.Term // the terms == c, ascending in the encoding
	switch {
	case isNumber(c.Kind()):
		class = numberClass(c)
	case f == fEq && !looseEq(c):
		class = []term.Term{c} // == is =:= without numbers
	case c.Kind() == term.KindAtom || c.Kind() == term.KindBinary || c.Kind() == term.KindList && c.Len() == 0:
		// Orders agree: Erlang's set below or above c is the encoding's.
		class = []term.Term{c}
	default:
		return []span{ctx.base()}
	}
	if f == fEq {
		parts := make([][]span, 0, len(class))
		for _, x := range class {
			parts = append(parts, pointSpans(x, ctx))
		}
		return p.unionAll(parts, ctx)
	}
	least, greatest := class[0], class[len(class)-1]
	var sp span
	switch f {
	case fGE:
		sp = above(least, true, ctx)
	case fGT:
		sp = above(greatest, false, ctx)
	case fLE:
		sp = below(greatest, true, ctx)
	case fLT:
		sp = below(least, false, ctx)
	}
	return p.intersectAll([][]span{{ctx.base()}, {sp}}, ctx)
}

// above is the span of the terms x >= c (x > c without incl) in the
// encoding's order; inside a Desc, of Desc(x) <= Desc(c).
func above(c term.Term, incl bool, ctx spanCtx) span {
	enc, ok := encodeIn(c, ctx)
	switch {
	case !ok:
		return ctx.base()
	case ctx.desc:
		return span{lo: []byte{tagDesc}, hi: upperOf(enc, incl)}
	}
	return span{lo: lowerOf(enc, incl)}
}

// below is the span of the terms x <= c (x < c without incl); inside a
// Desc, of Desc(x) >= Desc(c).
func below(c term.Term, incl bool, ctx spanCtx) span {
	enc, ok := encodeIn(c, ctx)
	switch {
	case !ok:
		return ctx.base()
	case ctx.desc:
		return span{lo: lowerOf(enc, incl), hi: []byte{tagDesc + 1}}
	}
	return span{lo: []byte{}, hi: upperOf(enc, incl)}
}

// lowerOf is the least encoding of a term >= (or >) the term encoded as enc.
func lowerOf(enc []byte, incl bool) []byte {
	if incl {
		return enc
	}
	return sext.PrefixEnd(enc) // encodings are prefix-free
}

// upperOf is the exclusive byte bound of terms <= (or <) the term enc.
func upperOf(enc []byte, incl bool) []byte {
	if incl {
		return sext.PrefixEnd(enc)
	}
	return enc
}

func encodeIn(t term.Term, ctx spanCtx) ([]byte, bool) {
	if ctx.desc {
		t = term.Desc(t)
	}
	enc, err := sext.Encode(t)
	return enc, err == nil
}

func pointSpans(c term.Term, ctx spanCtx) []span {
	enc, ok := encodeIn(c, ctx)
	if !ok {
		return nil // no key holds an unencodable term
	}
	return []span{{lo: enc, hi: sext.PrefixEnd(enc), point: &c}}
}

// numberClass lists the numbers equal (==) to c, ascending in the
// encoding: c, the float or integer of the same value where there is one,
// and both zeros for zero.
func numberClass(c term.Term) []term.Term {
	class := []term.Term{c}
	if c.Kind() == term.KindInt {
		f, _ := new(big.Float).SetInt(c.BigInt()).Float64()
		if !math.IsInf(f, 0) && term.CompareErlang(c, term.Float(f)) == 0 {
			class = append(class, term.Float(f))
		}
	} else if f := c.Float(); f == math.Trunc(f) {
		b, _ := new(big.Float).SetFloat64(f).Int(nil)
		class = append(class, term.BigInt(b))
	}
	if term.CompareErlang(c, term.Int(0)) == 0 {
		class = []term.Term{term.Float(math.Copysign(0, -1)), term.Int(0), term.Float(0)}
	}
	slices.SortFunc(class, term.Compare)
	return slices.CompactFunc(class, term.Equal)
}

// looseEq reports whether Erlang's == admits terms other than t itself:
// whether a number (1 == 1.0) or a reference (whose zero id words at the
// high end do not count) occurs anywhere in t.
func looseEq(t term.Term) bool {
	switch t.Kind() {
	case term.KindInt, term.KindFloat, term.KindRef:
		return true
	case term.KindTuple:
		return slices.ContainsFunc(t.Elems(), looseEq)
	case term.KindList:
		return slices.ContainsFunc(t.Elems(), looseEq) || !t.IsProper() && looseEq(t.Tail())
	case term.KindMap:
		for _, e := range t.Entries() {
			if looseEq(e.Key) || looseEq(e.Value) {
				return true
			}
		}
	case term.KindDesc:
		return looseEq(t.Inner())
	}
	return false
}

// unionAll returns the spans in any of parts, each sorted and disjoint:
// all of them sorted once and joined.
func (p *planner) unionAll(parts [][]span, ctx spanCtx) []span {
	n := 0
	for _, sp := range parts {
		n += len(sp)
	}
	if !p.spend(n) {
		return []span{ctx.base()}
	}
	all := make([]span, 0, n)
	for _, sp := range parts {
		all = append(all, sp...)
	}
	return normalize(all)
}

// intersectAll returns the spans in every one of parts, each sorted and
// disjoint (so it covers any byte string at most once): a sweep over all
// their bounds, sorted once, keeps where every part covers. A result that
// is exactly one part's point span stays a point.
func (p *planner) intersectAll(parts [][]span, ctx spanCtx) []span {
	// Parts that allow everything leave the others as they are (inside a
	// Desc they clip, and stay).
	keep, n := parts[:0:0], 0
	for _, sp := range parts {
		if len(sp) == 0 {
			return nil
		}
		if ctx.desc || !isBase(sp, ctx) {
			keep, n = append(keep, sp), n+len(sp)
		}
	}
	switch {
	case len(keep) == 0:
		return []span{ctx.base()}
	case len(keep) == 1 && !ctx.desc: // one part, sorted and disjoint: itself
		return keep[0]
	case !p.spend(n):
		return []span{ctx.base()}
	}
	m := len(keep)
	events := make([]spanEvent, 0, 2*n)
	var points []span
	for _, sp := range keep {
		some := false
		for _, x := range sp {
			if x.empty() {
				continue
			}
			some = true
			events = append(events, spanEvent{at: x.lo, delta: 1})
			if x.hi != nil {
				events = append(events, spanEvent{at: x.hi, delta: -1})
			}
			if x.point != nil {
				points = append(points, x)
			}
		}
		if !some {
			return nil
		}
	}
	slices.SortFunc(events, func(x, y spanEvent) int { return bytes.Compare(x.at, y.at) })
	var out []span
	count, open := 0, false
	var from []byte
	for i := 0; i < len(events); {
		at := events[i].at
		for ; i < len(events) && bytes.Equal(events[i].at, at); i++ {
			count += events[i].delta
		}
		switch {
		case count == m && !open:
			open, from = true, at
		case count < m && open:
			open = false
			out = append(out, span{lo: from, hi: at})
		}
	}
	if open { // the parts that cover it all have no upper bound
		out = append(out, span{lo: from})
	}
	// A point's span holds one term: a result equal to it is that term.
	slices.SortFunc(points, func(x, y span) int { return bytes.Compare(x.lo, y.lo) })
	for i := range out {
		j, _ := slices.BinarySearchFunc(points, out[i].lo, func(x span, lo []byte) int { return bytes.Compare(x.lo, lo) })
		for ; j < len(points) && bytes.Equal(points[j].lo, out[i].lo); j++ {
			if bytesEqualHi(points[j].hi, out[i].hi) {
				out[i].point = points[j].point
				break
			}
		}
	}
	return out
}

// spanEvent is a bound of a span: where it starts (delta 1) or ends (-1).
type spanEvent struct {
	at    []byte
	delta int
}

// normalize sorts spans and joins those that overlap or touch; a point
// joined with anything else is a point no more.
func normalize(s []span) []span {
	slices.SortFunc(s, func(x, y span) int { return bytes.Compare(x.lo, y.lo) })
	out := s[:0]
	for _, x := range s {
		if n := len(out); n > 0 && (out[n-1].hi == nil || bytes.Compare(x.lo, out[n-1].hi) <= 0) {
			last := &out[n-1]
			if last.point != nil && x.point != nil && term.Equal(*last.point, *x.point) {
				continue
			}
			last.hi = maxHi(last.hi, x.hi)
			last.point = nil
			continue
		}
		out = append(out, x)
	}
	return out
}

func maxLo(a, b []byte) []byte {
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

func minHi(a, b []byte) []byte {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case bytes.Compare(a, b) <= 0:
		return a
	}
	return b
}

func maxHi(a, b []byte) []byte {
	if a == nil || b == nil {
		return nil
	}
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

func bytesEqualHi(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func isNumber(k term.Kind) bool { return k == term.KindInt || k == term.KindFloat }
