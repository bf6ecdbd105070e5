package sexttest

import (
	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/termgen"
	"github.com/erlsext/sext/term"
)

// Options say which terms the generators draw. The zero value draws
// leaves of every kind: integers (bignums too), floats, Latin-1 atoms,
// binaries and bitstrings, pids, ports and references.
type Options struct {
	// Depth is how deep compound terms (tuples, lists, maps, Desc) may
	// nest; 0 draws leaves only.
	Depth int
	// Kinds, if not empty, are the only kinds drawn, at every depth.
	// It must hold a kind a term can end in: anything but KindDesc.
	Kinds []term.Kind
	// Legacy keeps numbers within ±(2³¹-1) (floats by their integer
	// part), where no bignum is written, so that order properties hold
	// under sext.Options{Legacy: true}, whose bignums do not sort.
	Legacy bool
	// UTF8Atoms lets atom names hold characters beyond Latin-1, which
	// only sext.Options{UTF8Atoms: true} encodes.
	UTF8Atoms bool
	// Atoms, if not empty, is the pool atom names are drawn from, so
	// that keys share tags and patterns match several keys.
	Atoms []string
	// RepeatVars lets Pattern use a '$N' again, which demands equal
	// subterms: such a pattern may no longer match its term.
	RepeatVars bool
}

// Term returns a generator of terms drawn as o says. It panics, as rapid's
// own constructors do, if o can draw nothing.
func Term(o Options) *rapid.Generator[term.Term] { return termgen.Term(termgen.Options(o)) }

// Key returns a generator of terms shaped as most keys are: usually a
// tuple of one to four elements led by an atom tag (from o.Atoms if set),
// the others nested to o.Depth-1; one time in ten any term of o.
func Key(o Options) *rapid.Generator[term.Term] {
	termgen.Options(o).Validate()
	return rapid.Custom(func(t *rapid.T) term.Term { return termgen.Key(t, termgen.Options(o)) })
}

// Near returns a generator of terms close to x: x with one leaf somewhere
// nudged (an integer by one or into the float of its value, a float to
// its neighbour or its integer part, a bitstring by one bit) or replaced
// by a term of o.
func Near(x term.Term, o Options) *rapid.Generator[term.Term] {
	termgen.Options(o).Validate()
	return rapid.Custom(func(t *rapid.T) term.Term { return termgen.Near(t, x, termgen.Options(o)) })
}

// ClosePair returns a generator of two terms of o: half the time the
// second is Near the first, otherwise drawn on its own. Equal, adjacent
// and far-apart pairs all come up, for checking an order.
func ClosePair(o Options) *rapid.Generator[[2]term.Term] {
	g := termgen.Term(termgen.Options(o))
	return rapid.Custom(func(t *rapid.T) [2]term.Term {
		a := g.Draw(t, "a")
		if rapid.Bool().Draw(t, "close") {
			return [2]term.Term{a, termgen.Near(t, a, termgen.Options(o))}
		}
		return [2]term.Term{a, g.Draw(t, "b")}
	})
}

// Pattern returns a generator of match patterns that x matches: x with
// subterms, and list tails, replaced by the wildcards '_' and '$1', '$2',
// ... (each '$N' once, unless o.RepeatVars). Map keys stay as they are.
func Pattern(x term.Term, o Options) *rapid.Generator[term.Term] {
	termgen.Options(o).Validate()
	return rapid.Custom(func(t *rapid.T) term.Term {
		var n int
		return termgen.Pattern(t, x, &n, termgen.Options(o))
	})
}
