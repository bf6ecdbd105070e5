package sext

import (
	"testing"

	"github.com/erlsext/sext/term"
)

var benchKey = term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice")))

// BenchmarkText times the text forms of {user,42,<<"alice">>}: the bytes
// to text and back, and a term to text and back through the codec.
func BenchmarkText(b *testing.B) {
	key, _ := Encode(benchKey)
	pat := term.Tuple(term.Atom("user"), term.Atom("_"), term.Atom("_"))
	buf := make([]byte, 0, 256)
	for _, c := range []struct {
		name string
		enc  *Encoding
	}{{"hex", Hex}, {"sb32", SB32}} {
		text := c.enc.EncodeToString(key)
		b.Run(c.name+"/AppendEncode", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				buf = c.enc.AppendEncode(buf[:0], key)
			}
		})
		b.Run(c.name+"/EncodeToString", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_ = c.enc.EncodeToString(key)
			}
		})
		b.Run(c.name+"/DecodeString", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_, _ = c.enc.DecodeString(text)
			}
		})
	}
	s := SB32.EncodeToString(key)
	b.Run("term/EncodeHex", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			k, _ := Encode(benchKey)
			_ = Hex.EncodeToString(k)
		}
	})
	b.Run("term/DecodeSB32", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			k, _ := SB32.DecodeString(s)
			_, _ = Decode(k)
		}
	})
	b.Run("term/PrefixSB32", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			p, _ := Prefix(pat)
			_ = string(SB32.AppendPrefix(nil, p))
		}
	})
}
