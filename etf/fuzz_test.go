package etf_test

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// FuzzDecode: decoding never panics, and what decodes encodes to bytes
// that decode to the same term and encode to the same bytes again.
func FuzzDecode(f *testing.F) {
	for _, v := range otp25Vectors {
		f.Add(v.bytes)
	}
	f.Add([]byte{131, 80, 0, 0, 0, 2, 120, 156, 75, 100, 4, 0, 0, 197, 0, 99})
	f.Add([]byte{131, 108, 0, 0, 0, 2, 104, 1, 116, 0, 0, 0, 1, 97, 1, 97, 2, 77, 0, 0, 0, 1, 3, 32, 97, 9})
	f.Add([]byte{131, 90, 0, 2, 100, 0, 3, 97, 64, 104, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2})
	for _, m := range bigMaps() { // maps of 200 keys, so that the fuzzer mutates hashmaps
		b, _ := etf.Encode(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o := etf.Options{MaxDepth: 200, MaxInflate: 1 << 20}
		x, err := o.Decode(b)
		if err != nil {
			return
		}
		b2, err := o.Encode(x)
		if err != nil {
			t.Fatalf("Encode(Decode(%v)) = %v", b, err)
		}
		y, err := o.Decode(b2)
		if err != nil || !term.Equal(x, y) {
			t.Fatalf("Decode(Encode(%v)) = %v, %v", x, y, err)
		}
		b3, _ := o.Encode(y)
		if !bytes.Equal(b2, b3) {
			t.Fatalf("encoding not stable: %v then %v", b2, b3)
		}
	})
}
