package sext

import (
	"runtime"
	"testing"

	"github.com/erlsext/sext/term"
)

// DecodeHex and DecodeSB32 of a long binary allocate its bytes (half or
// five eighths of a byte a character), its unframed copy, and no more.
func TestDecodeTextAllocation(t *testing.T) {
	bin := make([]byte, 4<<20)
	for i := range bin {
		bin[i] = byte(i*7 + i>>8)
	}
	x := term.Binary(bin)
	h, _ := EncodeHex(x)
	s, _ := EncodeSB32(x)
	for _, c := range []struct {
		name string
		text string
		dec  func(string) (term.Term, error)
	}{{"hex", h, DecodeHex}, {"sb32", s, DecodeSB32}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := c.dec(c.text)
		runtime.ReadMemStats(&after)
		if err != nil || !term.Equal(got, x) {
			t.Fatalf("%s: %v", c.name, err)
		}
		grew := after.TotalAlloc - before.TotalAlloc
		if per := float64(grew) / float64(len(c.text)); per > 1.25 {
			t.Errorf("%s: %d bytes allocated for %d of text (%.2f a byte), bound 1.25", c.name, grew, len(c.text), per)
		}
	}
}
