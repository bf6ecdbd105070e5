package store

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecodeToken: any text is refused with ErrToken or ErrTokenMismatch,
// or decodes to a key that encodes back to the same token.
func FuzzDecodeToken(f *testing.F) {
	const id = "0123456789abcdef"
	f.Add(encodeToken(id, false, []byte{16, 0, 0, 0, 2, 12, 0x88}))
	f.Add(encodeToken(id, true, nil))
	f.Add("s1.")
	f.Add("s1.AQBFywD0Wxe0ABAAAAAEDLfcrJZbkAgKAAAD6AywgAgMsQAIQXfs7Q")
	f.Fuzz(func(t *testing.T, tok string) {
		for _, reverse := range []bool{false, true} {
			key, err := decodeToken(tok, id, reverse)
			if err != nil {
				if !errors.Is(err, ErrToken) && !errors.Is(err, ErrTokenMismatch) {
					t.Fatalf("%q: untyped error %v", tok, err)
				}
				continue
			}
			again := encodeToken(id, reverse, key)
			if k2, err := decodeToken(again, id, reverse); err != nil || !bytes.Equal(k2, key) {
				t.Fatalf("%q: key %x does not round-trip: %v", tok, key, err)
			}
		}
	})
}
