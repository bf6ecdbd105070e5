package sexttest_test

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/sexttest"
	"github.com/erlsext/sext/term"
)

// walk calls f on x and every subterm, with its depth (x is at 0).
func walk(x term.Term, depth int, f func(term.Term, int)) {
	f(x, depth)
	switch x.Kind() {
	case term.KindTuple, term.KindList:
		for _, e := range x.Elems() {
			walk(e, depth+1, f)
		}
		if x.Kind() == term.KindList && !x.IsProper() {
			walk(x.Tail(), depth+1, f)
		}
	case term.KindMap:
		for _, e := range x.Entries() {
			walk(e.Key, depth+1, f)
			walk(e.Value, depth+1, f)
		}
	case term.KindDesc:
		walk(x.Inner(), depth+1, f)
	}
}

// isLatin1 reports whether s holds only Latin-1 characters.
func isLatin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}

// TestTermEveryKind draws until every kind, an improper list, a
// bitstring and a bignum have come up, and finds no atom beyond Latin-1.
func TestTermEveryKind(t *testing.T) {
	g := sexttest.Term(sexttest.Options{Depth: 3})
	seen := map[string]bool{}
	for i := range 2000 {
		walk(g.Example(i), 0, func(x term.Term, _ int) {
			seen[x.Kind().String()] = true
			switch {
			case x.Kind() == term.KindList && !x.IsProper():
				seen["improper"] = true
			case x.Kind() == term.KindBinary && x.BitLen()%8 != 0:
				seen["bitstring"] = true
			case x.Kind() == term.KindInt && x.IsBig():
				seen["bignum"] = true
			case x.Kind() == term.KindAtom && !isLatin1(x.Atom()):
				t.Fatalf("atom %s beyond Latin-1 without UTF8Atoms", x)
			}
		})
	}
	for k := term.KindList; k <= term.KindBinary; k++ {
		if !seen[k.String()] {
			t.Errorf("no %s in 2000 terms", k)
		}
	}
	for _, s := range []string{"improper", "bitstring", "bignum"} {
		if !seen[s] {
			t.Errorf("no %s in 2000 terms", s)
		}
	}
}

// TestTermOptions checks that drawn terms keep to Depth, Kinds, Legacy,
// UTF8Atoms and Atoms.
func TestTermOptions(t *testing.T) {
	tests := []struct {
		name string
		o    sexttest.Options
		ok   func(x term.Term, depth int) bool
	}{
		{"depth 0", sexttest.Options{}, func(x term.Term, d int) bool { return d == 0 }},
		{"depth 2", sexttest.Options{Depth: 2}, func(x term.Term, d int) bool { return d <= 2 }},
		{"kinds", sexttest.Options{Depth: 3, Kinds: []term.Kind{term.KindTuple, term.KindInt, term.KindPid}},
			func(x term.Term, _ int) bool {
				return slices.Contains([]term.Kind{term.KindTuple, term.KindInt, term.KindPid}, x.Kind())
			}},
		{"compounds only", sexttest.Options{Depth: 2, Kinds: []term.Kind{term.KindList, term.KindDesc}},
			func(x term.Term, _ int) bool { return x.Kind() == term.KindList || x.Kind() == term.KindDesc }},
		{"legacy", sexttest.Options{Depth: 2, Legacy: true}, func(x term.Term, _ int) bool {
			switch x.Kind() {
			case term.KindInt:
				return !x.IsBig() && x.BigInt().IsInt64() && x.BigInt().Int64() <= 1<<31-1 && x.BigInt().Int64() >= -(1<<31-1)
			case term.KindFloat:
				return x.Float() < 1<<31 && x.Float() > -(1<<31)
			}
			return true
		}},
		{"atoms", sexttest.Options{Depth: 2, Atoms: []string{"a", "b"}}, func(x term.Term, _ int) bool {
			return x.Kind() != term.KindAtom || x.Atom() == "a" || x.Atom() == "b"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, rapid.MakeCheck(func(t *rapid.T) {
			x := sexttest.Term(tc.o).Draw(t, "x")
			walk(x, 0, func(y term.Term, d int) {
				if !tc.ok(y, d) {
					t.Fatalf("%s at depth %d of %s breaks the options %+v", y, d, x, tc.o)
				}
			})
		}))
	}
}

// TestTermUTF8Atoms checks that UTF8Atoms brings atoms beyond Latin-1,
// which only sext.Options{UTF8Atoms: true} encodes.
func TestTermUTF8Atoms(t *testing.T) {
	g := sexttest.Term(sexttest.Options{UTF8Atoms: true, Kinds: []term.Kind{term.KindAtom}})
	for i := range 500 {
		x := g.Example(i)
		if isLatin1(x.Atom()) {
			continue
		}
		if _, err := sext.Encode(x); err == nil {
			t.Fatalf("Encode(%s) without UTF8Atoms succeeded", x)
		}
		if _, err := (sext.Options{UTF8Atoms: true}).Encode(x); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("no atom beyond Latin-1 in 500 draws")
}

func TestOptionsRefused(t *testing.T) {
	for _, o := range []sexttest.Options{
		{Kinds: []term.Kind{term.KindDesc}},
		{Atoms: []string{"λ"}},
		{Depth: -1},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Term(%+v) did not panic", o)
				}
			}()
			sexttest.Term(o)
		}()
	}
}

// TestClosePairOrder is the encoding's order law on close pairs, under
// the default encoding and, with Options.Legacy, the legacy one.
func TestClosePairOrder(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		g := sexttest.ClosePair(sexttest.Options{Depth: 3, Legacy: legacy})
		enc := sext.Options{Legacy: legacy}
		t.Run(map[bool]string{false: "default", true: "legacy"}[legacy], rapid.MakeCheck(func(t *rapid.T) {
			p := g.Draw(t, "pair")
			a, err := enc.Encode(p[0])
			if err != nil {
				t.Fatal(err)
			}
			b, err := enc.Encode(p[1])
			if err != nil {
				t.Fatal(err)
			}
			if got, want := bytes.Compare(a, b), term.Compare(p[0], p[1]); got != want {
				t.Fatalf("%s, %s: bytes %d, terms %d", p[0], p[1], got, want)
			}
		}))
	}
}

// TestClosePairClose checks that close pairs are often adjacent: many
// differ, and many share a prefix of their encodings past the first byte.
func TestClosePairClose(t *testing.T) {
	g := sexttest.ClosePair(sexttest.Options{Depth: 3})
	var differ, shared int
	for i := range 1000 {
		p := g.Example(i)
		a, _ := sext.Encode(p[0])
		b, _ := sext.Encode(p[1])
		if !bytes.Equal(a, b) {
			differ++
			n := 0
			for n < min(len(a), len(b)) && a[n] == b[n] {
				n++
			}
			if n > 1 {
				shared++
			}
		}
	}
	if differ < 500 || shared < 250 {
		t.Fatalf("of 1000 pairs %d differ and %d share more than a byte", differ, shared)
	}
}

// TestPatternMatches checks that a pattern matches its term and that
// its prefix prefixes the term's encoding; with RepeatVars, that some
// patterns repeat a variable.
func TestPatternMatches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := sexttest.Term(sexttest.Options{Depth: 3}).Draw(t, "x")
		p := sexttest.Pattern(x, sexttest.Options{}).Draw(t, "p")
		if _, ok := sext.Match(p, x); !ok {
			t.Fatalf("%s does not match its pattern %s", x, p)
		}
		pre, err := sext.Prefix(p)
		if err != nil {
			t.Fatal(err)
		}
		if enc, _ := sext.Encode(x); !bytes.HasPrefix(enc, pre) {
			t.Fatalf("Prefix(%s) = %x does not prefix %x", p, pre, enc)
		}
	})
	x := term.Tuple(term.Int(1), term.Int(2), term.Int(3), term.Int(4))
	g := sexttest.Pattern(x, sexttest.Options{RepeatVars: true})
	for i := range 1000 {
		vars := map[string]int{}
		walk(g.Example(i), 0, func(y term.Term, _ int) {
			if y.Kind() == term.KindAtom && y.Atom() != "_" {
				vars[y.Atom()]++
			}
		})
		for _, n := range vars {
			if n > 1 {
				return
			}
		}
	}
	t.Fatal("RepeatVars: no variable used twice in 1000 patterns")
}

// TestKeyShape checks that keys are mostly tuples led by a tag from Atoms.
func TestKeyShape(t *testing.T) {
	g := sexttest.Key(sexttest.Options{Depth: 2, Atoms: []string{"user", "order"}})
	tagged := 0
	for i := range 1000 {
		k := g.Example(i)
		if k.Kind() == term.KindTuple && k.Len() > 0 && k.Elems()[0].Kind() == term.KindAtom {
			tagged++
		}
	}
	if tagged < 800 {
		t.Fatalf("%d of 1000 keys are tagged tuples", tagged)
	}
}
