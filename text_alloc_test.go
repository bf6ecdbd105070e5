package sext

import (
	"runtime"
	"testing"

	"github.com/erlsext/sext/term"
)

// Decoding the hex or sb32 text of a long binary's encoding to the term
// allocates the encoding (half or five eighths of a byte a character), the
// binary's unframed copy, and no more: DecodeString does not copy its text.
func TestDecodeTextAllocation(t *testing.T) {
	bin := make([]byte, 4<<20)
	for i := range bin {
		bin[i] = byte(i*7 + i>>8)
	}
	x := term.Binary(bin)
	b, err := Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		enc  *Encoding
	}{{"hex", Hex}, {"sb32", SB32}} {
		text := c.enc.EncodeToString(b)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := decodeText(c.enc, text)
		runtime.ReadMemStats(&after)
		if err != nil || !term.Equal(got, x) {
			t.Fatalf("%s: %v", c.name, err)
		}
		grew := after.TotalAlloc - before.TotalAlloc
		per := float64(grew) / float64(len(text))
		t.Logf("%s: %.2f bytes allocated a character", c.name, per)
		if per > 1.25 {
			t.Errorf("%s: %d bytes allocated for %d of text (%.2f a byte), bound 1.25", c.name, grew, len(text), per)
		}
	}
}
