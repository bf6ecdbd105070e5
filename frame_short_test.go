package sext

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// The short-frame fast path writes exactly what the general framing does.
func TestPropShortFrameIsFrame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.SliceOfN(rapid.Byte(), 0, 7).Draw(t, "s")
		prefix := rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "prefix")
		want := appendFrame(bytes.Clone(prefix), s, 8*len(s), false)
		if got := appendShortFrame(bytes.Clone(prefix), s); !bytes.Equal(got, want) {
			t.Fatalf("appendShortFrame(%x) = %x, want %x", s, got, want)
		}
		if got := appendShortFrame(bytes.Clone(prefix), string(s)); !bytes.Equal(got, want) {
			t.Fatalf("appendShortFrame(%q) = %x, want %x", s, got, want)
		}
	})
}
