package matchspec_test

import (
	"bytes"
	"errors"
	"strings"
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

// TestDescDepth: each #Desc inside a #Desc frames the encoding of what it
// holds, an eighth more a level, and compiling encodes the spec: 5,000
// levels of text crashed the encoder. Past MaxDescDepth a spec is refused
// with ErrLimit, from text or from code, before anything encodes it; at
// the limit it compiles, plans and matches.
func TestDescDepth(t *testing.T) {
	text := func(n int) string {
		return "[{{k," + strings.Repeat("#Desc<", n) + "'$1'" + strings.Repeat(">", n) + "},[],['$_']}]"
	}
	for _, n := range []int{matchspec.MaxDescDepth + 1, 5000} {
		_, err := matchspec.Parse(text(n))
		var se *matchspec.SpecError
		if !errors.Is(err, matchspec.ErrLimit) || !errors.As(err, &se) {
			t.Errorf("%d levels of #Desc: %v, want a *SpecError wrapping ErrLimit", n, err)
		}
	}
	deep := term.Atom("$1")
	for range 1_000_000 {
		deep = term.Desc(deep)
	}
	if _, err := matchspec.Compile(term.List(term.Tuple(deep, term.List(), term.List(term.Atom("$_"))))); !errors.Is(err, matchspec.ErrLimit) {
		t.Errorf("a million levels of Desc built in code: %v, want ErrLimit", err)
	}
	s, err := matchspec.Parse(text(matchspec.MaxDescDepth))
	if err != nil {
		t.Fatalf("%d levels: %v", matchspec.MaxDescDepth, err)
	}
	obj := term.Atom("x")
	for range matchspec.MaxDescDepth {
		obj = term.Desc(obj)
	}
	obj = term.Tuple(term.Atom("k"), obj)
	if _, ok := s.Match(obj); !ok {
		t.Error("a key of the spec's shape does not match")
	}
	enc, _ := sext.Encode(obj)
	found := false
	for _, r := range s.Plan() {
		found = found || bytes.Compare(enc, r.Lower) >= 0 && (r.Upper == nil || bytes.Compare(enc, r.Upper) < 0)
	}
	if !found {
		t.Error("the key lies in no range of the plan")
	}
}
