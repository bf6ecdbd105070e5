package sexttest_test

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/sexttest"
	"github.com/erlsext/sext/term"
)

// Keys that share tags, so that patterns match several of them. In a
// property, draw with Draw(t, "key"); Example(seed) draws outside one.
func ExampleKey() {
	keys := sexttest.Key(sexttest.Options{Depth: 2, Atoms: []string{"order", "user"}})
	tags := map[string]int{}
	for seed := range 100 {
		if k := keys.Example(seed); k.Kind() == term.KindTuple && k.Len() > 0 && k.Elems()[0].Kind() == term.KindAtom {
			tags[k.Elems()[0].Atom()]++
		}
	}
	fmt.Println(slices.Sorted(maps.Keys(tags)))
	// Output: [order user]
}

// Close pairs cross order boundaries far more often than independent
// terms do; the order law holds on every one.
func ExampleClosePair() {
	pairs := sexttest.ClosePair(sexttest.Options{Depth: 3})
	kept := 0
	for seed := range 200 {
		p := pairs.Example(seed)
		a, _ := sext.Encode(p[0])
		b, _ := sext.Encode(p[1])
		if bytes.Compare(a, b) == term.Compare(p[0], p[1]) {
			kept++
		}
	}
	fmt.Println(kept, "of 200 pairs in order")
	// Output: 200 of 200 pairs in order
}

// A pattern drawn for a term matches it, and its prefix bounds a scan
// that finds it.
func ExamplePattern() {
	x := term.Tuple(term.Atom("order"), term.Int(42), term.Binary([]byte("alice")))
	patterns := sexttest.Pattern(x, sexttest.Options{})
	ok := true
	for seed := range 100 {
		p := patterns.Example(seed)
		_, matched := sext.Match(p, x)
		pre, _ := sext.Prefix(p)
		enc, _ := sext.Encode(x)
		ok = ok && matched && bytes.HasPrefix(enc, pre)
	}
	fmt.Println("every pattern matches:", ok)
	// Output: every pattern matches: true
}
