package sext

import (
	"math/big"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/termgen"
	"github.com/erlsext/sext/term"
)

// The property suite draws its terms from internal/termgen, the generators
// behind the public sexttest (which imports sext, so a test of package sext
// cannot import it). These short names keep the suite's call sites.

// genTerm draws terms nested at most depth deep.
func genTerm(depth int) *rapid.Generator[term.Term] {
	return termgen.Term(termgen.Options{Depth: depth})
}

func drawTerm(t *rapid.T, depth int) term.Term { return termgen.Draw(t, termgen.Options{Depth: depth}) }

// mutate returns a term close to x: one leaf somewhere replaced or nudged.
func mutate(t *rapid.T, x term.Term) term.Term { return termgen.Near(t, x, termgen.Options{Depth: 1}) }

// drawPattern turns x into a pattern that x matches; each '$N', numbered
// on from *n, is used once.
func drawPattern(t *rapid.T, x term.Term, n *int) term.Term {
	return termgen.Pattern(t, x, n, termgen.Options{})
}

// drawBig draws an integer of up to maxBytes bytes, either sign.
func drawBig(t *rapid.T, maxBytes int) *big.Int { return termgen.DrawBig(t, maxBytes) }
