package term

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"strings"
	"unsafe"
)

// Erlang's own order of pids, ports and references, as erts compares them
// (measured against OTP 25 with 200,000 random pairs of each on nine node
// names, creations 0..4 and 2^31; docs/FORMAT.md):
//   - a pid compares by serial, then id, and only then by node name and
//     creation: pids of different nodes interleave;
//   - a port compares by node name, then creation, then id;
//   - a reference compares by node name, then creation, then its id words
//     from the last (most significant) down, high zero words ignored, so
//     that a reference with more non-zero words is the greater.
//
// Node names compare as atoms do, by their UTF-8 bytes; the local node
// (nonode@nohost) has no place of its own.

func erlangPids(a, b Pid) int {
	return cmp.Or(cmp.Compare(a.Serial, b.Serial), cmp.Compare(a.ID, b.ID),
		strings.Compare(a.Node, b.Node), cmp.Compare(a.Creation, b.Creation))
}

func erlangPorts(a, b Port) int {
	return cmp.Or(strings.Compare(a.Node, b.Node), cmp.Compare(a.Creation, b.Creation),
		cmp.Compare(a.ID, b.ID))
}

func erlangRefs(a, b Ref) int {
	return cmp.Or(strings.Compare(a.Node, b.Node), cmp.Compare(a.Creation, b.Creation),
		compareWordsErlang(a.IDs, b.IDs))
}

// compareWordsErlang is Erlang's order of reference id words: the last word
// is the most significant, and zero words at the high end do not count.
func compareWordsErlang(a, b []uint32) int {
	a, b = trimHighZeros(a), trimHighZeros(b)
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	for i := len(a) - 1; i >= 0; i-- {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func trimHighZeros(w []uint32) []uint32 {
	for len(w) > 0 && w[len(w)-1] == 0 {
		w = w[:len(w)-1]
	}
	return w
}

// erlRank is Erlang's order of types: number < atom < reference < fun <
// port < pid < tuple < map < nil < list < bitstring. A Desc, which Erlang
// does not have, sorts first as it does in Compare.
func erlRank(t Term) int {
	switch t.Kind() {
	case KindDesc:
		return 0
	case KindInt, KindFloat:
		return 1
	case KindAtom:
		return 2
	case KindRef:
		return 3
	case KindPort:
		return 5
	case KindPid:
		return 6
	case KindTuple:
		return 7
	case KindMap:
		return 8
	case KindList:
		if t.n() == 0 {
			return 9
		}
		return 10
	}
	return 11 // binary, and a binary prefix among them (see BinaryPrefix)
}

// CompareErlang returns -1, 0 or +1 as a sorts before, with or after b in
// Erlang's term order, the order of erlang:'<' and lists:sort. Unlike
// Compare it is arithmetic: an integer and a float of the same value
// compare equal (0), as do 0.0 and -0.0, and so do two references that
// differ only in zero id words at the high end. Map keys compare in map
// key order (integers before floats), as erts compares them. Within each
// type it is erts's order: see docs/FORMAT.md for pids, ports and
// references, which differ from the encoding's order.
func CompareErlang(a, b Term) int { return compareArith(a, b, false) }

// ArithEqual reports whether a == b in Erlang: CompareErlang(a, b) == 0.
// Equal is the exact comparison, Erlang's =:=, except that it tells 0.0
// from -0.0 (as OTP 27 and later do) and references by all their id
// words.
func ArithEqual(a, b Term) bool { return compareArith(a, b, false) == 0 }

// compareArith is Erlang's order; exact is true inside map keys, where
// integers sort before all floats.
func compareArith(a, b Term, exact bool) int { return compareArithAt(a, b, exact, 0) }

// compareArithAt recurses, depth compounds down, for maxCompareRecursion
// levels, then hands the rest to compareArithDeep, as compareAt does: terms
// built in code may nest deeper than any goroutine stack holds.
func compareArithAt(a, b Term, exact bool, depth int) int {
	if ra, rb := erlRank(a), erlRank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	if depth >= maxCompareRecursion && isCompound(a.Kind()) {
		return compareArithDeep(a, b, exact)
	}
	depth++
	switch a.Kind() {
	case KindInt, KindFloat:
		if exact && a.Kind() != b.Kind() {
			if a.Kind() == KindInt {
				return -1
			}
			return 1
		}
		return compareArithNumbers(a, b)
	case KindAtom:
		return strings.Compare(a.Atom(), b.Atom())
	case KindBinary, KindBinaryPrefix:
		if a.Kind() != b.Kind() || a.Kind() == KindBinaryPrefix {
			return compareBinaryPrefix(a, b)
		}
		return compareBits(a.Bytes(), a.BitLen(), b.Bytes(), b.BitLen())
	case KindPid:
		return erlangPids(a.Pid(), b.Pid())
	case KindPort:
		return erlangPorts(a.Port(), b.Port())
	case KindRef:
		return erlangRefs(a.Ref(), b.Ref())
	case KindDesc:
		return -compareArithAt(a.Inner(), b.Inner(), exact, depth)
	case KindTuple:
		if c := cmp.Compare(a.n(), b.n()); c != 0 {
			return c
		}
		sa, sb := a.slice(), b.slice()
		for i := range sa {
			if c := compareArithAt(sa[i], sb[i], exact, depth); c != 0 {
				return c
			}
		}
		return 0
	case KindMap:
		// Size, then all keys in key order, then the values in that order.
		if c := cmp.Compare(a.n(), b.n()); c != 0 {
			return c
		}
		ea, eb := a.Entries(), b.Entries()
		for i := range ea {
			if c := compareArithAt(ea[i].Key, eb[i].Key, true, depth); c != 0 {
				return c
			}
		}
		for i := range ea {
			if c := compareArithAt(ea[i].Value, eb[i].Value, exact, depth); c != 0 {
				return c
			}
		}
		return 0
	case KindList:
		return compareArithLists(a, b, exact, depth)
	}
	return 0
}

// compareArithLists compares cell by cell; where one list runs out, what
// is left of each (a tail, [] or the rest of the list) compares as a term.
func compareArithLists(a, b Term, exact bool, depth int) int {
	ea, eb := a.Elems(), b.Elems()
	n := min(len(ea), len(eb))
	for i := range n {
		if c := compareArithAt(ea[i], eb[i], exact, depth); c != 0 {
			return c
		}
	}
	if len(ea) == len(eb) {
		ta, tb := a.Tail(), b.Tail()
		if ta.Kind() == KindList && tb.Kind() == KindList { // both []
			return 0
		}
		return compareArithAt(ta, tb, exact, depth)
	}
	// One side goes on as a non-empty list, which no tail equals.
	return compareArithAt(restOf(a, n), restOf(b, n), exact, depth)
}

// restOf is the list l without its first n elements, n < l.Len(), or
// l's tail when n is its length.
func restOf(l Term, n int) Term {
	if n < l.Len() {
		s := l.slice()[n:]
		return list(unsafe.Pointer(unsafe.SliceData(s)), len(s), l.tail())
	}
	return l.Tail()
}

func compareArithNumbers(a, b Term) int {
	switch {
	case a.Kind() == KindInt && b.Kind() == KindInt:
		return compareInts(a, b)
	case a.Kind() == KindFloat && b.Kind() == KindFloat:
		return cmp.Compare(a.Float(), b.Float()) // -0.0 == 0.0
	case a.Kind() == KindInt:
		return arithIntFloat(a, b.Float())
	}
	return -arithIntFloat(b, a.Float())
}

// arithIntFloat compares an integer with a float exactly; equal values
// give 0, where compareIntFloat breaks the tie.
// It allocates nothing, for bignums too. A NaN sorts below every integer,
// as cmp.Compare puts it below every float.
func arithIntFloat(i Term, f float64) int {
	whole := math.Trunc(f)
	var c int
	switch {
	case i.IsInt64() && whole >= -(1<<63) && whole < 1<<63:
		c = cmp.Compare(int64(i.r.Num), int64(whole))
	case math.IsNaN(f):
		return 1
	case i.IsInt64(): // whole lies beyond int64, or is infinite
		if whole < 0 {
			return 1
		}
		return -1
	default:
		c = compareBigFloat(i, whole)
	}
	if c != 0 {
		return c
	}
	return -cmp.Compare(f-whole, 0)
}

// compareBigFloat compares the bignum i with whole, an integral or
// infinite float, through i's words.
func compareBigFloat(i Term, whole float64) int {
	if neg := i.tail(); neg != (whole < 0) {
		return bigSign(i)
	}
	return signed(compareMagnitudeFloat(i.words(), math.Abs(whole)), i.tail())
}

// compareMagnitudeFloat compares the normalized magnitude w with a, a
// non-negative integral or infinite float: by bit length first, then
// word by word against a's mantissa shifted into place.
func compareMagnitudeFloat(w []big.Word, a float64) int {
	if math.IsInf(a, 1) {
		return -1
	}
	if len(w) == 0 {
		return cmp.Compare(0, a)
	}
	const wbits = bits.UintSize
	frac, exp := math.Frexp(a) // a = frac * 2^exp, frac in [0.5, 1), or a = 0
	n := (len(w)-1)*wbits + bits.Len(uint(w[len(w)-1]))
	if n != exp {
		return cmp.Compare(n, exp)
	}
	m, shift := uint64(math.Ldexp(frac, 53)), exp-53 // a = m << shift
	// a is integral: bits shifted out to the right are zero.
	if shift < 0 {
		m, shift = m>>-shift, 0
	}
	for j := len(w) - 1; j >= 0; j-- {
		var x uint64 // word j of m << shift
		if lo := j*wbits - shift; lo >= 0 {
			x = m >> lo
		} else {
			x = m << -lo
		}
		if c := cmp.Compare(w[j], big.Word(x)); c != 0 {
			return c
		}
	}
	return 0
}

// compareMapsErlang is Erlang's order of two maps of one size: all keys in
// key order first, then the values in that order. The encoding's order
// takes key and value in turn instead.
func compareMapsErlang(a, b Term, keys order, depth int) int {
	ea, eb := a.Entries(), b.Entries()
	for i := range ea {
		if c := compareAt(ea[i].Key, eb[i].Key, keys, depth); c != 0 {
			return c
		}
	}
	for i := range ea {
		if c := compareAt(ea[i].Value, eb[i].Value, keys, depth); c != 0 {
			return c
		}
	}
	return 0
}

// arithTask is work left for compareArithDeep: a pair of terms, or a run
// of pairs (every other term of it for a map's keys or values).
type arithTask struct {
	x, y   Term
	xs, ys []Term
	exact  bool // inside a map key
	neg    bool // inside an odd number of Descs
	run    bool
	skip   bool
}

// compareArithDeep is compareArithAt with an explicit stack in place of
// recursion, so that it compares terms of any depth; the first difference
// in a depth-first, left-to-right walk decides, as there.
func compareArithDeep(a, b Term, exact bool) int {
	var buf [8]arithTask
	st := append(buf[:0], arithTask{x: a, y: b, exact: exact})
	for len(st) > 0 {
		top := &st[len(st)-1]
		t := *top
		if t.run {
			t.x, t.y = top.xs[0], top.ys[0]
			step := 1
			if top.skip {
				step = 2
			}
			if len(top.xs) <= step {
				st = st[:len(st)-1]
			} else {
				top.xs, top.ys = top.xs[step:], top.ys[step:]
			}
		} else {
			st = st[:len(st)-1]
		}
		x, y := t.x, t.y
		c := 0
		switch ra, rb := erlRank(x), erlRank(y); {
		case ra != rb:
			c = cmp.Compare(ra, rb)
		case x.Kind() == KindTuple:
			if c = cmp.Compare(x.n(), y.n()); c == 0 && x.n() > 0 {
				st = append(st, arithTask{xs: x.slice(), ys: y.slice(), exact: t.exact, neg: t.neg, run: true})
			}
		case x.Kind() == KindMap:
			if c = cmp.Compare(x.n(), y.n()); c == 0 && x.n() > 0 {
				xs := unsafe.Slice((*Term)(x.r.Ptr), 2*x.n()) // key, value, key, ...
				ys := unsafe.Slice((*Term)(y.r.Ptr), 2*y.n())
				st = append(st,
					arithTask{xs: xs[1:], ys: ys[1:], exact: t.exact, neg: t.neg, run: true, skip: true},
					arithTask{xs: xs, ys: ys, exact: true, neg: t.neg, run: true, skip: true})
			}
		case x.Kind() == KindList && x.n() > 0:
			ea, eb := x.Elems(), y.Elems()
			n := min(len(ea), len(eb))
			if len(ea) == len(eb) {
				if ta, tb := x.Tail(), y.Tail(); ta.Kind() != KindList || tb.Kind() != KindList {
					st = append(st, arithTask{x: ta, y: tb, exact: t.exact, neg: t.neg})
				}
			} else {
				st = append(st, arithTask{x: restOf(x, n), y: restOf(y, n), exact: t.exact, neg: t.neg})
			}
			st = append(st, arithTask{xs: ea[:n], ys: eb[:n], exact: t.exact, neg: t.neg, run: true})
		case x.Kind() == KindDesc:
			st = append(st, arithTask{x: x.Inner(), y: y.Inner(), exact: t.exact, neg: !t.neg})
		default:
			c = compareArithAt(x, y, t.exact, 0) // a leaf: no recursion
		}
		if c != 0 {
			return signed(c, t.neg)
		}
	}
	return 0
}
