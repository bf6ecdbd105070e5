//go:build !race

// Allocation budgets are kept out of race builds: the race detector makes
// sync.Pool drop items at random and instruments allocation, so counts
// there say nothing about the library. CI runs them in the normal pass.

package term

import (
	"math/big"
	"strings"
	"testing"
)

// TestParseAllocs checks that parsing allocates per compound and atom,
// not per element.
func TestParseAllocs(t *testing.T) {
	small := "{ok,[1,2,3],<<1,2>>,#{a => 1.5},'quoted atom'}"
	if n := testing.AllocsPerRun(100, func() { Parse(small) }); n > 16 {
		t.Errorf("Parse(%s) allocated %v times", small, n)
	}
	long := "[" + strings.Repeat("1,", 1000) + "<<" + strings.Repeat("7,", 1000) + "7>>]"
	if n := testing.AllocsPerRun(10, func() { Parse(long) }); n > 30 {
		t.Errorf("Parse of a long list allocated %v times", n)
	}
}

func TestPrintAllocs(t *testing.T) {
	in := Tuple(Atom("ok"), List(Int(1), Int(-2), Float(0.25)), Binary([]byte{1, 2}),
		Map(MapEntry{Atom("k"), Tuple(Atom("it's"))}), Pid{Node: "a@b", ID: 1}.Term())
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { AppendString(buf[:0], in) }); n != 0 {
		t.Errorf("AppendString allocated %v times, want 0", n)
	}
}

// ImproperList copies its elements in one allocation, whatever the tail.
func TestImproperListAllocs(t *testing.T) {
	elems := []Term{Int(1), Int(2), Int(3)}
	for _, tail := range []Term{Atom("t"), List(Int(9), Int(10))} {
		if n := testing.AllocsPerRun(100, func() { ImproperList(elems, tail) }); n != 1 {
			t.Errorf("ImproperList(_, %v) allocated %v times, want 1", tail, n)
		}
	}
}

// Bignums compare through their words: no big.Int is made, against
// integers of either size or against floats, in either order.
func TestCompareBignumsAllocatesNothing(t *testing.T) {
	a := BigInt(new(big.Int).Lsh(big.NewInt(3), 100))
	b := BigInt(new(big.Int).Lsh(big.NewInt(-3), 100))
	others := []Term{a, b, Int(5), Uint(1 << 63), Float(1e40), Float(-1e300), Float(0.5)}
	for _, o := range others {
		n := testing.AllocsPerRun(100, func() {
			Compare(a, o)
			Compare(o, b)
			CompareErlang(a, o)
			CompareErlang(o, b)
			Equal(a, o)
		})
		if n != 0 {
			t.Errorf("comparing bignums with %s allocated %v times, want 0", o, n)
		}
	}
}
