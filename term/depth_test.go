package term

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// The parser recurses: past MaxDepthCeiling it fails with ErrDepth, not a
// stack overflow, whatever MaxDepth asks.
func TestParseDepthCeiling(t *testing.T) {
	o := ParseOptions{MaxDepth: 100_000_000}
	n := 5_000_000
	if _, err := o.Parse(strings.Repeat("[", n) + strings.Repeat("]", n)); !errors.Is(err, ErrDepth) {
		t.Errorf("%d nested lists with MaxDepth 1e8: %v, want ErrDepth", n, err)
	}
	n = MaxDepthCeiling
	if _, err := o.Parse(strings.Repeat("{", n) + strings.Repeat("}", n)); err != nil {
		t.Errorf("%d nested tuples, at the ceiling: %v", n, err)
	}
	n++
	if _, err := o.Parse(strings.Repeat("{", n) + strings.Repeat("}", n)); !errors.Is(err, ErrDepth) {
		t.Errorf("%d nested tuples, one past the ceiling: %v, want ErrDepth", n, err)
	}
}

// compareDeep, the explicit-stack walk compareAt hands deep terms to,
// gives compareAt's answer in every order.
func TestCompareDeepAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20_000 {
		a, b := randomTerm(r, 4), randomTerm(r, 4)
		if r.IntN(2) == 0 { // a shared start, so the walk goes further
			common := randomTerm(r, 2)
			a, b = Tuple(common, a), Tuple(common, b)
		}
		if r.IntN(4) == 0 {
			a, b = Desc(List(a, Int(1))), Desc(List(b, Int(1)))
		}
		for _, x := range [][2]Term{{a, b}, {b, a}, {a, a}} {
			for _, o := range []order{orderBytes, orderKeys, orderSignedKeys} {
				if got, want := compareDeep(x[0], x[1], o), compareAt(x[0], x[1], o, 0); got != want {
					t.Fatalf("order %d: compareDeep(%s, %s) = %d, compareAt %d", o, x[0], x[1], got, want)
				}
			}
		}
	}
}

// compareArithDeep, the explicit-stack walk CompareErlang hands deep terms
// to, gives compareArithAt's answer, map keys (exact) included.
func TestCompareArithDeepAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20_000 {
		a, b := randomTerm(r, 4), randomTerm(r, 4)
		switch r.IntN(4) {
		case 0: // a shared start, so the walk goes further
			common := randomTerm(r, 2)
			a, b = Tuple(common, a), Tuple(common, b)
		case 1: // an integer against its float, which == takes as equal
			i := r.Int64N(5)
			a, b = List(Int(i), a), ImproperList([]Term{Float(float64(i))}, b)
		case 2:
			a, b = Map(MapEntry{Int(1), a}, MapEntry{Float(2), Int(0)}), Map(MapEntry{Int(1), b}, MapEntry{Float(2), Int(0)})
		}
		if r.IntN(4) == 0 {
			a, b = Desc(List(a, Int(1))), Desc(List(b, Int(1)))
		}
		for _, x := range [][2]Term{{a, b}, {b, a}, {a, a}} {
			for _, exact := range []bool{false, true} {
				if got, want := compareArithDeep(x[0], x[1], exact), compareArithAt(x[0], x[1], exact, 0); got != want {
					t.Fatalf("exact %v: compareArithDeep(%s, %s) = %d, compareArithAt %d", exact, x[0], x[1], got, want)
				}
			}
		}
	}
}
