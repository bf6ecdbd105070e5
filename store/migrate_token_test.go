package store

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecodeMigrateToken: any text is refused with ErrToken or
// ErrTokenMismatch, or decodes to a key that encodes back to a token
// that decodes to it again; none panics.
func FuzzDecodeMigrateToken(f *testing.F) {
	const id = "0123456789abcdef"
	f.Add(encodeMigrateToken(id, false, []byte{16, 0, 0, 0, 2, 12, 0x88}))
	f.Add(encodeMigrateToken(id, true, []byte{16}))
	f.Add(encodeToken(id, false, []byte{16}))
	f.Add("m1.")
	f.Add("m1.AQ")
	f.Fuzz(func(t *testing.T, tok string) {
		for _, dry := range []bool{false, true} {
			key, err := decodeMigrateToken(tok, id, dry)
			if err != nil {
				if !errors.Is(err, ErrToken) && !errors.Is(err, ErrTokenMismatch) {
					t.Fatalf("%q: untyped error %v", tok, err)
				}
				continue
			}
			if len(key) == 0 {
				t.Fatalf("%q: a token without a key was taken", tok)
			}
			again := encodeMigrateToken(id, dry, key)
			if k2, err := decodeMigrateToken(again, id, dry); err != nil || !bytes.Equal(k2, key) {
				t.Fatalf("%q: key %x does not round-trip: %v", tok, key, err)
			}
		}
	})
}
