package sext

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// The recursive paths have a ceiling that no MaxDepth lifts: past it they
// fail with ErrDepth instead of overflowing the goroutine stack, which no
// recover can catch.

// deepTuples returns {{...{leaf}...}}, n tuples deep.
func deepTuples(n int) term.Term {
	x := term.Atom("leaf")
	for range n {
		x = term.Tuple(x)
	}
	return x
}

func TestDepthCeilingOnRecursivePaths(t *testing.T) {
	huge := Options{MaxDepth: 100_000_000}
	over := deepTuples(2_000_000)
	for name, f := range map[string]func() error{
		"Encode":  func() error { _, err := huge.Encode(over); return err },
		"Prefix":  func() error { _, err := huge.Prefix(over); return err },
		"Marshal": func() error { _, err := huge.Marshal(over); return err },
		"DecodeRecursive": func() error {
			_, err := huge.DecodeRecursive(repeat([]byte{tagList}, 4_000_000))
			return err
		},
		"PartialDecode": func() error {
			_, _, _, err := huge.PartialDecode(repeat([]byte{tagTuple, 0, 0, 0, 1}, 1_000_000))
			return err
		},
		"Unmarshal": func() error {
			var v any
			return huge.Unmarshal(repeat([]byte{tagList}, 1_000_000), &v)
		},
	} {
		if err := f(); !errors.Is(err, ErrDepth) {
			t.Errorf("%s with MaxDepth 1e8 past the ceiling: %v, want ErrDepth", name, err)
		}
	}
}

func TestDepthCeilingIsExact(t *testing.T) {
	huge := Options{MaxDepth: 100_000_000}
	at := deepTuples(MaxDepthCeiling)
	b, err := huge.Encode(at)
	if err != nil {
		t.Fatalf("Encode at the ceiling: %v", err)
	}
	for _, d := range []struct {
		name string
		dec  func([]byte) (term.Term, error)
	}{{"recursive", huge.DecodeRecursive}, {"cps", huge.DecodeCPS}} {
		back, err := d.dec(b)
		if err != nil || !term.Equal(back, at) {
			t.Errorf("%s decoder at the ceiling: %v", d.name, err)
		}
	}
	// Every recursive path survives the ceiling, under -race too.
	if p, err := huge.Prefix(at); err != nil || len(p) != len(b) {
		t.Errorf("Prefix at the ceiling: %v", err)
	}
	if m, err := huge.Marshal(at); err != nil || len(m) != len(b) {
		t.Errorf("Marshal at the ceiling: %v", err)
	}
	if back, full, _, err := huge.PartialDecode(b); err != nil || !full || !term.Equal(back, at) {
		t.Errorf("PartialDecode at the ceiling: %v", err)
	}
	var v any
	if err := huge.Unmarshal(b, &v); err != nil {
		t.Errorf("Unmarshal at the ceiling: %v", err)
	}
	if _, err := huge.Encode(term.Tuple(at)); !errors.Is(err, ErrDepth) {
		t.Errorf("Encode one past the ceiling: %v, want ErrDepth", err)
	}
	deeper := append([]byte{tagTuple, 0, 0, 0, 1}, b...)
	if _, err := huge.DecodeRecursive(deeper); !errors.Is(err, ErrDepth) {
		t.Errorf("DecodeRecursive one past the ceiling: %v, want ErrDepth", err)
	}
	// The continuation decoder needs no ceiling: MaxDepth is its limit.
	if _, err := huge.DecodeCPS(deeper); err != nil {
		t.Errorf("DecodeCPS one past the ceiling, under MaxDepth: %v", err)
	}
}

// Compare, Equal and Match take terms built in code, which no input
// bounds: they must work at any depth.
func TestCompareMatchAnyDepth(t *testing.T) {
	const n = 2_000_000
	x, y := deepTuples(n), deepTuples(n)
	if c := term.Compare(x, y); c != 0 {
		t.Errorf("Compare of equal %d-deep terms: %d", n, c)
	}
	if !term.Equal(x, y) {
		t.Errorf("Equal of equal %d-deep terms: false", n)
	}
	if c := term.CompareErlang(x, y); c != 0 || !term.ArithEqual(x, y) {
		t.Errorf("CompareErlang of equal %d-deep terms: %d", n, c)
	}
	if _, ok := Match(x, y); !ok {
		t.Errorf("Match of equal %d-deep terms: false", n)
	}
	// The difference at the bottom decides, flipped by each Desc on the way.
	z := term.Atom("leag")
	for range n {
		z = term.Tuple(z)
	}
	if c := term.Compare(x, z); c != -1 {
		t.Errorf("Compare({..leaf..}, {..leag..}) = %d, want -1", c)
	}
	if c := term.Compare(term.Desc(x), term.Desc(z)); c != 1 {
		t.Errorf("Compare(Desc, Desc) = %d, want 1", c)
	}
	if c := term.CompareErlang(x, z); c != -1 {
		t.Errorf("CompareErlang({..leaf..}, {..leag..}) = %d, want -1", c)
	}
	if _, ok := Match(x, z); ok {
		t.Error("Match of different deep terms: true")
	}
	var p term.Term = term.Atom("$1")
	for range n {
		p = term.Tuple(p)
	}
	bs, ok := Match(p, x)
	if v, _ := bs.Get("$1"); !ok || !term.Equal(v, term.Atom("leaf")) {
		t.Errorf("Match of a deep pattern: %v, %v", ok, bs)
	}
}

// TestPropMatchDeepAgrees: matchDeep, the explicit-stack walk matchRec
// hands deep terms to, gives matchRec's answer and bindings.
func TestPropMatchDeepAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(3).Draw(t, "x")
		var n int
		p := drawPattern(t, x, &n)
		if rapid.Bool().Draw(t, "repeat") && n > 0 { // '$1' twice: bound values must agree
			p = term.Tuple(p, term.Atom("$1"))
			x = term.Tuple(x, genTerm(1).Draw(t, "second"))
		}
		y := x
		if rapid.Bool().Draw(t, "mutate") {
			y = mutate(t, x)
		}
		var rec, deep Bindings
		okRec, okDeep := matchRec(p, y, &rec, 0), matchDeep(p, y, &deep)
		if okRec != okDeep {
			t.Fatalf("Match(%s, %s): recursive %v, explicit stack %v", p, y, okRec, okDeep)
		}
		if okRec && !slices.EqualFunc(rec, deep, func(a, b Binding) bool { return a.Name == b.Name && term.Equal(a.Value, b.Value) }) {
			t.Fatalf("Match(%s, %s): bindings %v and %v", p, y, rec, deep)
		}
	})
}

// ErrDepth is the term model's one sentinel: errors.Is matches sext's
// errors with term's name and Parse's errors with sext's, and the limits
// are the same numbers.
func TestErrDepthIsTermErrDepth(t *testing.T) {
	b, err := Encode(deepTuples(10))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"Decode":  func() error { _, err := Options{MaxDepth: 5}.Decode(b); return err },
		"Encode":  func() error { _, err := Options{MaxDepth: 5}.Encode(deepTuples(10)); return err },
		"Marshal": func() error { _, err := Options{MaxDepth: 5}.Marshal(deepTuples(10)); return err },
	} {
		if err := f(); !errors.Is(err, term.ErrDepth) || !errors.Is(err, ErrDepth) {
			t.Errorf("%s: %v, want an error matching term.ErrDepth", name, err)
		}
	}
	if _, err := (term.ParseOptions{MaxDepth: 5}).Parse("[[[[[[[]]]]]]]"); !errors.Is(err, ErrDepth) {
		t.Errorf("term.Parse: %v, want an error matching sext.ErrDepth", err)
	}
	if DefaultMaxDepth != term.DefaultMaxDepth || MaxDepthCeiling != term.MaxDepthCeiling {
		t.Errorf("limits %d, %d differ from term's %d, %d", DefaultMaxDepth, MaxDepthCeiling, term.DefaultMaxDepth, term.MaxDepthCeiling)
	}
}
