package matchspec_test

import (
	"errors"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// TestCompileDepth: compiling recurses into heads, guards and bodies, so
// a spec built in code that nests past sext's depth limit is refused
// with ErrLimit before compiling, not a stack overflow that ends the
// process (3,000,000 levels did). Text cannot nest that deep: Parse has
// the same limit.
func TestCompileDepth(t *testing.T) {
	deep := func(n int) term.Term {
		x := term.Atom("$1")
		for range n {
			x = term.Tuple(x)
		}
		return x
	}
	spec := func(head term.Term) term.Term {
		return term.List(term.Tuple(head, term.List(), term.List(term.Atom("$_"))))
	}
	for _, n := range []int{3_000_000, sext.DefaultMaxDepth - 1} {
		_, err := matchspec.Compile(spec(deep(n)))
		var se *matchspec.SpecError
		if !errors.Is(err, matchspec.ErrLimit) || !errors.As(err, &se) {
			t.Errorf("a head %d tuples deep: %v, want a *SpecError wrapping ErrLimit", n, err)
		}
	}
	// The spec's list and clause tuple count: a head two levels shallower
	// than the limit compiles, and matches.
	head := deep(sext.DefaultMaxDepth - 2)
	s, err := matchspec.Compile(spec(head))
	if err != nil {
		t.Fatalf("a head within the limit: %v", err)
	}
	obj := deep(sext.DefaultMaxDepth - 2)
	if _, ok := s.Match(obj); !ok {
		t.Error("a deep head does not match its own shape")
	}
}
