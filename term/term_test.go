package term

import (
	"math"
	"math/big"
	"testing"
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
			msg = r.(string)
		}
	}()
	return t.Int64(), ""
}
