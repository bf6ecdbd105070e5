package term

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// ImproperList copies its elements whatever the tail, so changing the
// caller's slice afterwards changes no list; ListWithTail keeps its slice.
func TestImproperListCopies(t *testing.T) {
	for _, tail := range []Term{Atom("t"), List(Int(9)), Binary(nil)} {
		elems := []Term{Int(1), Int(2)}
		l := ImproperList(elems, tail)
		want := l.String()
		elems[0] = Atom("changed")
		if got := l.String(); got != want {
			t.Errorf("ImproperList(_, %v) kept the caller's slice: %s became %s", tail, want, got)
		}
	}
	s := []Term{Int(1), Atom("t")}
	l := ListWithTail(s...)
	s[0] = Int(7)
	if got := l.String(); got != "[7|t]" {
		t.Errorf("ListWithTail copied its slice: got %s, want [7|t]", got)
	}
}

// Int64 answers for the integers IsInt64 reports and panics for every
// other term, as the other accessors do for a term of another kind.
func TestInt64(t *testing.T) {
	tests := []struct {
		t     Term
		small bool
		want  int64
		panic string
	}{
		{Int(0), true, 0, ""},
		{Int(-17), true, -17, ""},
		{Int(math.MaxInt64), true, math.MaxInt64, ""},
		{Int(math.MinInt64), true, math.MinInt64, ""},
		{BigInt(big.NewInt(42)), true, 42, ""},
		{Uint(math.MaxInt64), true, math.MaxInt64, ""},
		{Uint(1 << 63), false, 0, "term: Int64 of an integer beyond int64"},
		{BigInt(new(big.Int).Lsh(big.NewInt(-1), 64)), false, 0, "term: Int64 of an integer beyond int64"},
		{Float(1), false, 0, "term: int accessor called on float"},
		{Atom("a"), false, 0, "term: int accessor called on atom"},
		{List(), false, 0, "term: int accessor called on list"},
		{Desc(Int(1)), false, 0, "term: int accessor called on desc"},
	}
	for _, tt := range tests {
		if got := tt.t.IsInt64(); got != tt.small {
			t.Errorf("%v.IsInt64() = %v, want %v", tt.t, got, tt.small)
		}
		if got := tt.t.IsBig(); got != (tt.t.Kind() == KindInt && !tt.small) {
			t.Errorf("%v.IsBig() = %v", tt.t, got)
		}
		got, msg := int64OrPanic(tt.t)
		if msg != tt.panic || got != tt.want {
			t.Errorf("%v.Int64() = %d, panic %q; want %d, panic %q", tt.t, got, msg, tt.want, tt.panic)
		}
	}
}

func int64OrPanic(t Term) (i int64, msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	return t.Int64(), ""
}

// Every kind reads back its kind and value, the values that fill all 64
// bits of Num (whose top byte would otherwise say a kind) included.
func TestKindsReadBack(t *testing.T) {
	for _, i := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, int64(KindTuple) << 56, -1 << 55, 1<<55 - 1} {
		x := Int(i)
		if x.Kind() != KindInt || !x.IsInt64() || x.IsBig() || x.Int64() != i {
			t.Errorf("Int(%d) reads back as %v %s", i, x.Kind(), x)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1.5, -2, math.Inf(1), math.NaN(), math.Float64frombits(uint64(KindMap)<<56 | 1)} {
		x := Float(f)
		if x.Kind() != KindFloat || x.IsInt64() || math.Float64bits(x.Float()) != math.Float64bits(f) {
			t.Errorf("Float(%v) reads back as %v", f, x.Kind())
		}
	}
	long := make([]Term, 3)
	tests := []struct {
		t    Term
		kind Kind
		len  int
	}{
		{Atom(""), KindAtom, 0}, {Atom("abc"), KindAtom, 3},
		{Binary(nil), KindBinary, 0}, {Binary([]byte{1, 2}), KindBinary, 2},
		{Bitstring([]byte{0x80}, 1), KindBinary, 1},
		{Tuple(), KindTuple, 0}, {Tuple(long...), KindTuple, 3},
		{Map(), KindMap, 0}, {List(), KindList, 0}, {List(long...), KindList, 3},
		{ListWithTail(Int(1), Atom("t")), KindList, 1},
		{Desc(Int(1)), KindDesc, 0}, {Pid{ID: 1}.Term(), KindPid, 0},
		{Port{ID: 1}.Term(), KindPort, 0}, {Ref{IDs: []uint32{1}}.Term(), KindRef, 0},
		{Uint(1 << 63), KindInt, 0}, {BigInt(new(big.Int).Lsh(big.NewInt(-3), 200)), KindInt, 0},
	}
	for _, tt := range tests {
		if tt.t.Kind() != tt.kind || tt.t.Len() != tt.len {
			t.Errorf("%s: kind %v, len %d; want %v, %d", tt.t, tt.t.Kind(), tt.t.Len(), tt.kind, tt.len)
		}
	}
	if l := ListWithTail(Int(1), Atom("t")); l.IsProper() || !Equal(l.Tail(), Atom("t")) {
		t.Errorf("[1|t] reads back as %s", l)
	}
}

// A bignum holds its magnitude's words: BigBits shares them, BigInt and
// the constructor copy.
func TestBigBits(t *testing.T) {
	b := new(big.Int).Lsh(big.NewInt(-5), 130)
	x := BigInt(b)
	w, neg := x.BigBits()
	if !neg || new(big.Int).SetBits(w).Cmp(new(big.Int).Neg(b)) != 0 {
		t.Fatalf("BigBits of %s = %v, %v", b, w, neg)
	}
	if &w[0] == &b.Bits()[0] {
		t.Error("BigInt(b) keeps b's words")
	}
	if w2, _ := x.BigBits(); &w2[0] != &w[0] {
		t.Error("BigBits copies the words")
	}
	got := x.BigInt()
	if got.Cmp(b) != 0 {
		t.Fatalf("BigInt() = %s, want %s", got, b)
	}
	got.Add(got, big.NewInt(1))
	if x.BigInt().Cmp(b) != 0 {
		t.Error("changing BigInt()'s result changed the term")
	}
	if w, neg := Int(-7).BigBits(); w != nil || neg {
		t.Errorf("BigBits of -7 = %v, %v; want nil, false", w, neg)
	}
	if w, neg := Uint(math.MaxUint64).BigBits(); neg || new(big.Int).SetBits(w).Uint64() != math.MaxUint64 {
		t.Errorf("BigBits of 2^64-1 = %v, %v", w, neg)
	}
	for _, bad := range []Term{Float(1), Atom("a"), Term{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("BigBits of %s did not panic", bad)
				}
			}()
			bad.BigBits()
		}()
	}
}

// Integers of either size compare as math/big compares them, and against
// floats as big.Float does, in both orders.
func TestPropCompareIntegers(t *testing.T) {
	drawInt := func(t *rapid.T, label string) *big.Int {
		b := new(big.Int).Lsh(big.NewInt(rapid.Int64().Draw(t, label)), uint(rapid.IntRange(0, 140).Draw(t, label+"shift")))
		return b.Add(b, big.NewInt(rapid.Int64Range(-2, 2).Draw(t, label+"d")))
	}
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawInt(t, "a"), drawInt(t, "b")
		if got, want := Compare(BigInt(a), BigInt(b)), a.Cmp(b); got != want {
			t.Fatalf("Compare(%s, %s) = %d, want %d", a, b, got, want)
		}
		if got, want := CompareErlang(BigInt(a), BigInt(b)), a.Cmp(b); got != want {
			t.Fatalf("CompareErlang(%s, %s) = %d, want %d", a, b, got, want)
		}
		var f float64
		if rapid.Bool().Draw(t, "near") {
			f, _ = new(big.Float).SetInt(b).Float64()
			f += float64(rapid.IntRange(-1, 1).Draw(t, "frac")) * 0.5
		} else {
			f = rapid.Float64().Draw(t, "f")
		}
		if math.IsNaN(f) { // big.Float has no NaN: TestCompareIntegerNonFinite
			f = 0
		}
		want := new(big.Float).SetInt(a).Cmp(big.NewFloat(f))
		if got := CompareErlang(BigInt(a), Float(f)); got != want {
			t.Fatalf("CompareErlang(%s, %v) = %d, want %d", a, f, got, want)
		}
		if got := CompareErlang(Float(f), BigInt(a)); got != -want {
			t.Fatalf("CompareErlang(%v, %s) = %d, want %d", f, a, got, -want)
		}
	})
}

// Against a NaN or an infinity, integers of either size compare without a
// panic: below +Inf, above -Inf and NaN.
func TestCompareIntegerNonFinite(t *testing.T) {
	for _, i := range []Term{Int(0), Int(math.MinInt64), Uint(1 << 63), BigInt(new(big.Int).Lsh(big.NewInt(-1), 100))} {
		if CompareErlang(i, Float(math.Inf(1))) != -1 || CompareErlang(i, Float(math.Inf(-1))) != 1 ||
			CompareErlang(i, Float(math.NaN())) != 1 || CompareErlang(Float(math.NaN()), i) != -1 {
			t.Errorf("%s against non-finite floats: wrong order", i)
		}
	}
}
