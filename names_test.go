package sext

import (
	"fmt"
	"testing"

	"github.com/erlsext/sext/term"
)

// The short-name cache keys on the name's bytes as a word and on its
// length: names that differ only by trailing NULs, or that share a slot,
// must each decode to themselves, first time and from the cache.
func TestShortNameCache(t *testing.T) {
	names := []string{"ab", "ab\x00", "ab\x00\x00", "a", "\x00", "user", "session", "k1"}
	for i := range 100 {
		names = append(names, fmt.Sprintf("n%d", i)) // more than the cache's slots
	}
	dec := NewDecoder(Options{})
	for round := range 3 {
		for _, name := range names {
			b, err := Encode(term.Atom(name))
			if err != nil {
				t.Fatal(err)
			}
			for _, decode := range []func([]byte) (term.Term, error){Decode, dec.Decode} {
				got, err := decode(b)
				if err != nil || got.Kind() != term.KindAtom || got.Atom() != name {
					t.Fatalf("round %d: %q decodes to %v, %v", round, name, got, err)
				}
			}
		}
	}
}
