package sext

import (
	"testing"

	"github.com/erlsext/sext/term"
)

// flatKey picks direct mode only for keys whose parts take at most two
// allocations of their own; the allocation tests hold the count, this
// the choice.
func TestFlatKey(t *testing.T) {
	long := make([]byte, 60)
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{user, 42, <<"alice">>}`, true},
		{`{order, 7, {2024, 5, 1}, 9}`, true},
		{`{session, <<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16>>, active}`, true},
		{`{a, <<>>, <<>>, -5}`, true},
		{`{}`, true},
		{`{<<"a">>, <<"b">>}`, false},            // three: the tuple and two binaries
		{`{x, {1, 2}, {3, 4}}`, false},           // three tuples
		{`{x, {<<"a">>}}`, false},                // two tuples and a binary
		{`{x, {y, {z}}}`, false},                 // a tuple two deep
		{`{x, [1, 2]}`, false},                   // a list
		{`{x, 123456789012345678901234}`, false}, // a bignum
		{`{x, 1.5}`, false},                      // a float is not a quickLeaf
		{`[a, b]`, false},
		{`user`, false},
	} {
		x, err := term.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		if got := flatKey(b); got != c.want {
			t.Errorf("flatKey(%s) = %v, want %v", c.text, got, c.want)
		}
		if c.want && flatKey(append(b, 0)) {
			t.Errorf("flatKey(%s with a trailing byte) = true", c.text)
		}
	}
	b, _ := Encode(term.Tuple(term.Atom("k"), term.Binary(long)))
	if flatKey(b) {
		t.Errorf("flatKey of %d bytes = true, want false past 64", len(b))
	}
	// A count that claims more than the bytes hold ends at the bytes.
	if flatKey([]byte{tagTuple, 0xFF, 0xFF, 0xFF, 0xFF, tagPos4, 0, 0, 0, 2}) {
		t.Error("flatKey of a truncated tuple = true")
	}
}
