package term_test

import (
	"github.com/erlsext/sext/term"
	"testing"
)

// TestWideSegments: integers of up to 64 bits in segments wider than 64
// bits are sign-extended, big- and little-endian, as Erlang writes them.
func TestWideSegments(t *testing.T) {
	for _, tc := range []struct {
		text string
		want term.Term
	}{
		{"<<1:72>>", term.Binary([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1})},
		{"<<-2:72/signed-little>>", term.Binary([]byte{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})},
		{"<<-2:72/signed>>", term.Binary([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE})},
		{"<<1:70>>", term.Bitstring(append(make([]byte, 8), 1<<2), 70)},
		{"<<16#0102030405060708:72/little>>", term.Binary([]byte{8, 7, 6, 5, 4, 3, 2, 1, 0})},
	} {
		got, err := term.Parse(tc.text)
		if err != nil || !term.Equal(got, tc.want) {
			t.Errorf("%s = %s, %v; want %s", tc.text, got, err, tc.want)
		}
	}
}
