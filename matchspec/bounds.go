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
func guardSpans(guards []*expr, slot int, ctx spanCtx) []span {
	s := []span{ctx.base()}
	for _, g := range guards {
		s = intersect(s, exprSpans(g, slot, ctx))
		if len(s) == 0 {
			break
		}
	}
	return s
}

// exprSpans is what e being true allows for slot.
func exprSpans(e *expr, slot int, ctx spanCtx) []span {
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
	case fAndalso, fAnd:
		return intersect(exprSpans(e.args[0], slot, ctx), exprSpans(e.args[1], slot, ctx))
	case fOrelse, fOr:
		return union(exprSpans(e.args[0], slot, ctx), exprSpans(e.args[1], slot, ctx))
	case fIsBoolean:
		if isVar(e.args[0], slot) {
			return union(pointSpans(atomFalse, ctx), pointSpans(atomTrue, ctx))
		}
	case fLT, fLE, fGT, fGE, fEq, fExact:
		f, a, b := e.fn, e.args[0], e.args[1]
		if isVar(b, slot) && a.op == opConst {
			f, a, b = flip(f), b, a
		}
		if isVar(a, slot) && b.op == opConst {
			return cmpSpans(f, b.val, ctx)
		}
	default:
		if sp, ok := typeSpans[e.fn]; ok && isVar(e.args[0], slot) && !ctx.desc {
			return []span{sp}
		}
	}
	return []span{ctx.base()}
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
func cmpSpans(f fn, c term.Term, ctx spanCtx) []span {
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
		var out []span
		for _, x := range class {
			out = union(out, pointSpans(x, ctx))
		}
		return out
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
	return intersect([]span{ctx.base()}, []span{sp})
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

// intersect returns the spans in both a and b.
func intersect(a, b []span) []span {
	var out []span
	for _, x := range a {
		for _, y := range b {
			s := span{lo: maxLo(x.lo, y.lo), hi: minHi(x.hi, y.hi)}
			if s.empty() {
				continue
			}
			switch {
			case x.point != nil && bytes.Equal(s.lo, x.lo) && bytesEqualHi(s.hi, x.hi):
				s.point = x.point
			case y.point != nil && bytes.Equal(s.lo, y.lo) && bytesEqualHi(s.hi, y.hi):
				s.point = y.point
			}
			out = append(out, s)
		}
	}
	return normalize(out)
}

// union returns the spans in a or b.
func union(a, b []span) []span { return normalize(append(slices.Clip(a), b...)) }

// normalize sorts spans and joins those that overlap or touch; a point
// joined with anything else is a point no more.
func normalize(s []span) []span {
	slices.SortFunc(s, func(x, y span) int { return bytes.Compare(x.lo, y.lo) })
	var out []span
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
