// Package sexttest provides rapid (pgregory.net/rapid) generators of
// random terms, and a check that a Go key type keeps the order its author
// declares, for property tests of key layouts, as testing/fstest serves
// file systems. The library's own property tests draw from it.
//
// The generators draw leaves from small sets mixed with boundary values
// (integers at 2³¹, 2⁶³ and 2⁶⁴, floats beside them, bitstrings one bit
// apart), so that random pairs are often close and order boundaries get
// crossed:
//
//	rapid.Check(t, func(t *rapid.T) {
//		p := sexttest.ClosePair(sexttest.Options{Depth: 3}).Draw(t, "pair")
//		a, _ := sext.Encode(p[0])
//		b, _ := sext.Encode(p[1])
//		if bytes.Compare(a, b) != term.Compare(p[0], p[1]) {
//			t.Fatalf("%s and %s: byte order differs", p[0], p[1])
//		}
//	})
//
// CheckKeyOrder does the same for a Go key type, through sext.Marshal.
//
// Only tests should import this package: it imports rapid, which the
// library itself does not.
package sexttest
