package matchspec

import (
	"cmp"
	"math"
	"math/big"

	"github.com/erlsext/sext/term"
)

// Guard comparisons follow Erlang's term order, term.CompareErlang:
// numbers by value (1 == 1.0) at any depth, map keys exactly, and pids,
// ports and references in erts's order. The planner bounds a scan only by
// constants whose Erlang order agrees with the encoding's (numbers, atoms,
// binaries, []), so filtering in Erlang's order never loses a key.
func compareErlang(a, b term.Term) int { return term.CompareErlang(a, b) }

func isNumber(k term.Kind) bool { return k == term.KindInt || k == term.KindFloat }

// compareValues compares two numbers by value, exactly: 1 and 1.0 are
// equal, 2^53+1 is greater than 2^53 as a float.
func compareValues(a, b term.Term) int {
	switch {
	case a.Kind() == term.KindInt && b.Kind() == term.KindInt:
		return term.Compare(a, b)
	case a.Kind() == term.KindFloat && b.Kind() == term.KindFloat:
		return cmp.Compare(a.Float(), b.Float()) // -0.0 == 0.0
	case a.Kind() == term.KindInt:
		return compareIntFloat(a, b.Float())
	}
	return -compareIntFloat(b, a.Float())
}

func compareIntFloat(i term.Term, f float64) int {
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		// No integer equals f, so the encoding's order, which is exact,
		// is the value order.
		return term.Compare(i, term.Float(f))
	}
	if i.IsInt64() && f >= -(1<<63) && f < 1<<63 {
		return cmp.Compare(i.Int64(), int64(f))
	}
	w, _ := new(big.Float).SetFloat64(f).Int(nil)
	return i.BigInt().Cmp(w)
}
