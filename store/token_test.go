package store

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecodeToken: any text is refused, by both kinds of token, with
// ErrToken or ErrTokenMismatch, or decodes to a key that encodes back to
// the same token.
func FuzzDecodeToken(f *testing.F) {
	const spec = "0123456789abcdef"
	const scan = 0x0123456789abcdef
	f.Add(encodeToken(spec, false, []byte{16, 0, 0, 0, 2, 12, 0x88}))
	f.Add(encodeToken(spec, true, nil))
	f.Add(encodeIndexToken(scan, false, []byte{0, 16, 0, 0, 0, 4}))
	f.Add("s1.")
	f.Add("i1.AQ")
	f.Add("s1.AQBFywD0Wxe0ABAAAAAEDLfcrJZbkAgKAAAD6AywgAgMsQAIQXfs7Q")
	kinds := []struct {
		decode func(tok string, reverse bool) ([]byte, error)
		encode func(reverse bool, key []byte) string
	}{
		{func(tok string, rev bool) ([]byte, error) { return decodeToken(tok, spec, rev) },
			func(rev bool, key []byte) string { return encodeToken(spec, rev, key) }},
		{func(tok string, rev bool) ([]byte, error) { return decodeIndexToken(tok, scan, rev) },
			func(rev bool, key []byte) string { return encodeIndexToken(scan, rev, key) }},
	}
	f.Fuzz(func(t *testing.T, tok string) {
		for _, k := range kinds {
			for _, reverse := range []bool{false, true} {
				key, err := k.decode(tok, reverse)
				if err != nil {
					if !errors.Is(err, ErrToken) && !errors.Is(err, ErrTokenMismatch) {
						t.Fatalf("%q: untyped error %v", tok, err)
					}
					continue
				}
				again := k.encode(reverse, key)
				if k2, err := k.decode(again, reverse); err != nil || !bytes.Equal(k2, key) {
					t.Fatalf("%q: key %x does not round-trip: %v", tok, key, err)
				}
			}
		}
	})
}

// TestTokenKinds: one kind's token given to the other kind's read is a
// mismatch, not a malformed token; text without a token's prefix is
// malformed.
func TestTokenKinds(t *testing.T) {
	const spec = "0123456789abcdef"
	sel := encodeToken(spec, false, []byte{16, 0, 0, 0, 1})
	ix := encodeIndexToken(7, false, []byte{0, 16})
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"a select's token to an index scan", second(decodeIndexToken(sel, 7, false)), ErrTokenMismatch},
		{"an index scan's token to a select", second(decodeToken(ix, spec, false)), ErrTokenMismatch},
		{"another spec", second(decodeToken(sel, "fedcba9876543210", false)), ErrTokenMismatch},
		{"the other direction", second(decodeIndexToken(ix, 7, true)), ErrTokenMismatch},
		{"no prefix", second(decodeToken("hello", spec, false)), ErrToken},
		{"a dot too late", second(decodeToken("s1234567890123.AQ", spec, false)), ErrToken},
		{"cut short", second(decodeToken(sel[:len(sel)-2], spec, false)), ErrToken},
		{"itself", second(decodeToken(sel, spec, false)), nil},
	} {
		if !errors.Is(c.err, c.want) || (c.want == nil) != (c.err == nil) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
