package term

import (
	"bytes"
	"cmp"
	"math"
	"math/big"
	"strings"
	"unsafe"
)

// rank orders the kinds as the encoding's tag bytes do.
var rank = [...]uint8{
	KindDesc:   0,
	KindInt:    1,
	KindFloat:  1,
	KindAtom:   2,
	KindRef:    3,
	KindPort:   4,
	KindPid:    5,
	KindTuple:  6,
	KindMap:    7,
	KindList:   8,
	KindBinary: 9,

	KindBinaryPrefix: 9, // among the binaries: see BinaryPrefix
}

// Compare returns -1, 0 or +1 as a sorts before, with or after b in the
// order of their encodings: Erlang's term order, with these rules where
// Erlang leaves it open or the format differs (docs/FORMAT.md):
//   - an integer sorts before a float of the same value when the float is
//     positive (or +0.0) and after it when the float is negative (or -0.0),
//     so -1.0 < -1 < 1 < 1.0 and -0.0 < 0 < 0.0;
//   - maps sort by size, then by their entries in key order, key before
//     value;
//   - pids, ports and references sort by node name first, then by their
//     numeric fields in the encoding's order (Erlang's own order of them,
//     which map keys follow, is CompareErlang's);
//   - a Desc sorts before every other term, and Desc terms among
//     themselves in the reverse order of what they wrap;
//   - a BinaryPrefix pattern element sorts among the binaries, after
//     every binary that begins with its prefix.
func Compare(a, b Term) int { return compare(a, b, orderBytes) }

// order selects one of the orders compare knows.
type order uint8

const (
	orderBytes      order = iota // the encoding's order: Compare
	orderKeys                    // Erlang's map key order, where 0.0 and -0.0 tie
	orderSignedKeys              // orderKeys with -0.0 before 0.0: its ties broken
)

// compareKeys is the order of map keys: Erlang's, which is Compare's except
// that every integer sorts before every float, at any depth, that 0.0 and
// -0.0 tie, and that pids, ports, references and maps compare as Erlang
// compares them (erlorder.go, measured on OTP 25). The reference writes a
// map's entries in this order (for up to 32 keys; beyond, in hash order,
// which this project does not copy), so Map keeps entries in it. OTP 25
// cannot tell keys apart that differ only in the signs of zeros ({-0.0,1}
// sorts after {0.0,0}); this model can, so such keys, and only they, are
// ordered by a second comparison that puts -0.0 first.
func compareKeys(a, b Term) int {
	if c := compare(a, b, orderKeys); c != 0 {
		return c
	}
	return compare(a, b, orderSignedKeys)
}

func compare(a, b Term, keys order) int { return compareAt(a, b, keys, 0) }

// maxCompareRecursion is how deep compareAt recurses before it hands the
// rest to compareDeep: recursion is the fast way for the terms keys are
// made of, and the explicit stack the safe way for terms built in code,
// which no input bounds and which may be nested millions deep.
const maxCompareRecursion = 1000

// compareAt compares by direct recursion, depth compounds down.
func compareAt(a, b Term, keys order, depth int) int {
	// Each kind is read once: Kind is a few instructions, not a load.
	ka, kb := a.Kind(), b.Kind()
	if ra, rb := rank[ka], rank[kb]; ra != rb {
		return cmp.Compare(ra, rb)
	}
	if depth >= maxCompareRecursion && isCompound(ka) {
		return compareDeep(a, b, keys)
	}
	switch ka {
	case KindInt, KindFloat:
		if keys != orderBytes && ka != kb {
			if ka == KindInt {
				return -1
			}
			return 1
		}
		return compareNumbers(a, b, ka, kb, keys != orderKeys)
	case KindAtom:
		return strings.Compare(a.name(), b.name())
	case KindBinary, KindBinaryPrefix:
		if ka != kb || ka == KindBinaryPrefix {
			return compareBinaryPrefix(a, b)
		}
		return compareBits(a.bytes(), a.n(), b.bytes(), b.n())
	case KindTuple:
		if c := cmp.Compare(a.n(), b.n()); c != 0 {
			return c
		}
		return compareSlices(a.slice(), b.slice(), keys, depth+1)
	case KindList:
		return compareLists(a, b, keys, depth+1)
	case KindMap:
		if c := cmp.Compare(a.n(), b.n()); c != 0 {
			return c
		}
		if keys != orderBytes {
			return compareMapsErlang(a, b, keys, depth+1)
		}
		ea, eb := a.Entries(), b.Entries()
		for i := range ea {
			if c := compareAt(ea[i].Key, eb[i].Key, keys, depth+1); c != 0 {
				return c
			}
			if c := compareAt(ea[i].Value, eb[i].Value, keys, depth+1); c != 0 {
				return c
			}
		}
		return 0
	case KindPid, KindPort, KindRef:
		return compareIdentifiers(a, b, keys)
	case KindDesc:
		return -compareAt(a.Inner(), b.Inner(), keys, depth+1)
	}
	return 0
}

// compareIdentifiers compares two pids, ports or references: in the
// encoding's order, or in Erlang's (erlorder.go) for the other orders. It
// is a function of its own so that compare's frame, which deep terms
// multiply, stays small.
//
//go:noinline
func compareIdentifiers(a, b Term, keys order) int {
	switch a.Kind() {
	case KindPid:
		pa, pb := a.Pid(), b.Pid()
		if keys != orderBytes {
			return erlangPids(pa, pb)
		}
		return cmp.Or(strings.Compare(pa.Node, pb.Node), cmp.Compare(pa.ID, pb.ID),
			cmp.Compare(pa.Serial, pb.Serial), cmp.Compare(pa.Creation, pb.Creation))
	case KindPort:
		pa, pb := a.Port(), b.Port()
		if keys != orderBytes {
			return erlangPorts(pa, pb)
		}
		return cmp.Or(strings.Compare(pa.Node, pb.Node), cmp.Compare(pa.ID, pb.ID),
			cmp.Compare(pa.Creation, pb.Creation))
	case KindRef:
		ra, rb := a.Ref(), b.Ref()
		if keys != orderBytes {
			return erlangRefs(ra, rb)
		}
		return cmp.Or(strings.Compare(ra.Node, rb.Node), cmp.Compare(ra.Creation, rb.Creation),
			compareWords(ra.IDs, rb.IDs))
	}
	return 0
}

func isCompound(k Kind) bool {
	return k == KindTuple || k == KindList || k == KindMap || k == KindDesc
}

// cmpTask is work left for compareDeep: one pair of terms, the pairs of
// two runs of children, or a fixed result (a list's end markers).
type cmpTask struct {
	x, y   Term
	xs, ys []Term // when run
	neg    bool   // inside an odd number of Descs: the result flips
	run    bool   // xs and ys, pairwise
	skip   bool   // in a run, every other term: a map's keys or values
	fixed  int8   // the result, when neither a pair nor a run
	isPair bool
}

// compareDeep walks compound terms with an explicit stack of tasks rather
// than by recursion, so that terms built in code compare at any depth: the
// first difference in a depth-first, left-to-right walk decides, as in
// compareAt and the encoding. A chain of one-element compounds keeps the
// stack at one task; it grows only with siblings still to compare.
func compareDeep(a, b Term, keys order) int {
	var buf [8]cmpTask
	st := append(buf[:0], cmpTask{x: a, y: b, isPair: true})
	for len(st) > 0 {
		top := &st[len(st)-1]
		var x, y Term
		neg := top.neg
		switch {
		case top.run:
			x, y = top.xs[0], top.ys[0]
			step := 1
			if top.skip {
				step = 2
			}
			if len(top.xs) <= step {
				st = st[:len(st)-1]
			} else {
				top.xs, top.ys = top.xs[step:], top.ys[step:]
			}
		case top.isPair:
			x, y = top.x, top.y
			st = st[:len(st)-1]
		default:
			c := int(top.fixed)
			st = st[:len(st)-1]
			if c != 0 {
				return signed(c, neg)
			}
			continue
		}
		var c int
		if c, st = compareStep(x, y, neg, keys, st); c != 0 {
			return signed(c, neg)
		}
	}
	return 0
}

// These two fail to compile unless a MapEntry is exactly two Terms, as
// compareStep takes a map's entries to be.
var _ [unsafe.Sizeof(MapEntry{}) - 2*unsafe.Sizeof(Term{})]struct{}
var _ [2*unsafe.Sizeof(Term{}) - unsafe.Sizeof(MapEntry{})]struct{}

func signed(c int, neg bool) int {
	if neg {
		return -c
	}
	return c
}

// compareStep compares what x and y hold by themselves (kinds, sizes,
// leaves) and pushes their children for later.
func compareStep(x, y Term, neg bool, keys order, st []cmpTask) (int, []cmpTask) {
	if rx, ry := rank[x.Kind()], rank[y.Kind()]; rx != ry {
		return cmp.Compare(rx, ry), st
	}
	switch x.Kind() {
	case KindTuple:
		if c := cmp.Compare(x.n(), y.n()); c != 0 || x.n() == 0 {
			return c, st
		}
		return 0, append(st, cmpTask{xs: x.slice(), ys: y.slice(), neg: neg, run: true})
	case KindList:
		return 0, pushList(x, y, neg, st)
	case KindMap:
		if c := cmp.Compare(x.n(), y.n()); c != 0 || x.n() == 0 {
			return c, st
		}
		// Each entry is a key and a value, in that order: two terms.
		xs := unsafe.Slice((*Term)(x.r.Ptr), 2*x.n())
		ys := unsafe.Slice((*Term)(y.r.Ptr), 2*y.n())
		if keys == orderBytes {
			return 0, append(st, cmpTask{xs: xs, ys: ys, neg: neg, run: true})
		}
		// Erlang's order: all keys, then all values (compareMapsErlang).
		return 0, append(st,
			cmpTask{xs: xs[1:], ys: ys[1:], neg: neg, run: true, skip: true},
			cmpTask{xs: xs, ys: ys, neg: neg, run: true, skip: true})
	case KindDesc:
		return 0, append(st, cmpTask{x: x.Inner(), y: y.Inner(), neg: !neg, isPair: true})
	}
	return compareAt(x, y, keys, 0), st // a leaf: no recursion
}

// pushList is compareLists for compareDeep.
func pushList(a, b Term, neg bool, st []cmpTask) []cmpTask {
	ea, eb := a.Elems(), b.Elems()
	n := min(len(ea), len(eb))
	endA, endB := listEnd(a, len(ea) > len(eb)), listEnd(b, len(eb) > len(ea))
	switch c := cmp.Compare(endA, endB); {
	case c != 0:
		st = append(st, cmpTask{fixed: int8(c), neg: neg})
	case endA != endProper && endA != endElem:
		st = append(st, cmpTask{x: a.Tail(), y: b.Tail(), neg: neg, isPair: true})
	}
	if n > 0 {
		st = append(st, cmpTask{xs: ea[:n], ys: eb[:n], neg: neg, run: true})
	}
	return st
}

// Equal reports whether a and b are the same term: Compare(a, b) == 0.
// Note that 1 and 1.0 are different terms, as are 0.0 and -0.0.
func Equal(a, b Term) bool { return Compare(a, b) == 0 }

func compareWords(a, b []uint32) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareSlices(a, b []Term, keys order, depth int) int {
	for i := range min(len(a), len(b)) {
		if c := compareAt(a[i], b[i], keys, depth); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareLists follows the list layout: elements in turn, then an end
// marker that sorts an improper tail (1) before the proper end (2) before
// any further element, and a bitstring tail (19) after all of them.
func compareLists(a, b Term, keys order, depth int) int {
	ea, eb := a.Elems(), b.Elems()
	for i := range min(len(ea), len(eb)) {
		if c := compareAt(ea[i], eb[i], keys, depth); c != 0 {
			return c
		}
	}
	endA, endB := listEnd(a, len(ea) > len(eb)), listEnd(b, len(eb) > len(ea))
	if c := cmp.Compare(endA, endB); c != 0 || endA == endProper || endA == endElem {
		return c
	}
	return compareAt(a.Tail(), b.Tail(), keys, depth)
}

const (
	endImproper = 1 // the format's marker bytes, in their order
	endProper   = 2
	endElem     = 3 // any element's tag lies between 2 and 19
	endBitTail  = 19
)

func listEnd(l Term, more bool) int {
	switch {
	case more:
		return endElem
	case !l.tail():
		return endProper
	case l.Tail().Kind() == KindBinary:
		return endBitTail
	}
	return endImproper
}

// compareBits compares bitstrings bit by bit, a shorter prefix first.
func compareBits(a []byte, abits int, b []byte, bbits int) int {
	n := min(abits, bbits)
	full := n >> 3
	if c := bytes.Compare(a[:full], b[:full]); c != 0 {
		return c
	}
	if r := n & 7; r != 0 {
		mask := byte(0xFF) << (8 - r)
		if c := cmp.Compare(a[full]&mask, b[full]&mask); c != 0 {
			return c
		}
	}
	return cmp.Compare(abits, bbits)
}

// compareNumbers compares two numbers in the encoding's order; signed
// false lets 0.0 and -0.0 tie, as OTP 25's map key order does.
func compareNumbers(a, b Term, ka, kb Kind, signed bool) int {
	switch {
	case ka == KindInt && kb == KindInt:
		return compareInts(a, b)
	case ka == KindFloat && kb == KindFloat:
		fa, fb := math.Float64frombits(a.r.Num), math.Float64frombits(b.r.Num)
		if signed && fa == fb && math.Signbit(fa) != math.Signbit(fb) { // -0.0 < 0.0
			if math.Signbit(fa) {
				return -1
			}
			return 1
		}
		return cmp.Compare(fa, fb)
	case ka == KindInt:
		return compareIntFloat(a, math.Float64frombits(b.r.Num))
	}
	return -compareIntFloat(b, math.Float64frombits(a.r.Num))
}

// compareInts compares two integers without allocating: a bignum lies
// beyond every int64, on its sign's side, and two bignums of one sign
// compare by their magnitudes' words.
func compareInts(a, b Term) int {
	ai, bi := a.IsInt64(), b.IsInt64()
	switch {
	case ai && bi:
		return cmp.Compare(int64(a.r.Num), int64(b.r.Num))
	case ai:
		return -bigSign(b)
	case bi:
		return bigSign(a)
	}
	if an, bn := a.tail(), b.tail(); an != bn {
		return bigSign(a)
	}
	return signed(compareMagnitudes(a.words(), b.words()), a.tail())
}

// bigSign returns a bignum's sign, -1 or +1.
func bigSign(t Term) int {
	if t.tail() {
		return -1
	}
	return 1
}

// compareMagnitudes compares two normalized magnitudes: the longer is
// the greater, and words of one length compare from the top down.
func compareMagnitudes(a, b []big.Word) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	for i := len(a) - 1; i >= 0; i-- {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareIntFloat compares exactly. Of an integer and a float of equal
// value the integer sorts nearer zero, with -0.0 below 0 and 0.0 above.
func compareIntFloat(i Term, f float64) int {
	if c := arithIntFloat(i, f); c != 0 {
		return c
	}
	if math.Signbit(f) {
		return 1
	}
	return -1
}
