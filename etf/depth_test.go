package etf_test

import (
	"errors"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// TestEncodeDepthCeiling: the encoder recurses, so a raised MaxDepth
// stops at term.MaxDepthCeiling with ErrDepth, not with a stack overflow
// that ends the process (5,000,000 levels did, before the ceiling).
func TestEncodeDepthCeiling(t *testing.T) {
	huge := etf.Options{MaxDepth: 100_000_000}
	deep := func(n int) term.Term {
		x := term.Atom("leaf")
		for range n {
			x = term.Tuple(x)
		}
		return x
	}
	if _, err := huge.Encode(deep(5_000_000)); !errors.Is(err, etf.ErrDepth) {
		t.Errorf("Encode of 5,000,000 levels with MaxDepth 1e8: %v, want ErrDepth", err)
	}
	at := deep(term.MaxDepthCeiling)
	b, err := huge.Encode(at)
	if err != nil {
		t.Fatalf("Encode at the ceiling: %v", err)
	}
	if back, err := huge.Decode(b); err != nil || !term.Equal(back, at) {
		t.Errorf("Decode of what Encode wrote at the ceiling: %v", err)
	}
	if _, err := huge.Encode(term.Tuple(at)); !errors.Is(err, etf.ErrDepth) {
		t.Errorf("Encode one past the ceiling: %v, want ErrDepth", err)
	}
}
