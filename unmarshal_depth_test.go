package sext

import (
	"errors"
	"testing"

	"github.com/erlsext/sext/term"
)

// UnmarshalTerm takes terms built in code, which no input bounds, and
// decoding into a recursive Go type recurses: past MaxDepthCeiling it
// fails with ErrDepth rather than overflow the stack.
func TestUnmarshalTermDepth(t *testing.T) {
	type node struct {
		Next *node
	}
	chain := func(n int) term.Term {
		x := term.Atom("undefined")
		for range n {
			x = term.Tuple(x)
		}
		return x
	}
	var v node
	if err := UnmarshalTerm(chain(MaxDepthCeiling), &v); err != nil {
		t.Fatalf("at the ceiling: %v", err)
	}
	if err := UnmarshalTerm(chain(2_000_000), &v); !errors.Is(err, ErrDepth) {
		t.Fatalf("2,000,000 deep: %v, want ErrDepth", err)
	}
}
