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
	h := Hex.EncodeToString(key)
	s := SB32.EncodeToString(key)
	buf := make([]byte, 0, 256)
	b.Run("hex/AppendEncode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			buf = Hex.AppendEncode(buf[:0], key)
		}
	})
	b.Run("hex/EncodeToString", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = Hex.EncodeToString(key)
		}
	})
	b.Run("hex/DecodeString", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, _ = Hex.DecodeString(h)
		}
	})
	b.Run("sb32/AppendEncode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			buf = SB32.AppendEncode(buf[:0], key)
		}
	})
	b.Run("sb32/EncodeToString", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = SB32.EncodeToString(key)
		}
	})
	b.Run("sb32/DecodeString", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, _ = SB32.DecodeString(s)
		}
	})
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
