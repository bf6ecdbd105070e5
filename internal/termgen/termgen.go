// Package termgen holds the rapid generators of random terms behind the
// public package sexttest. It imports neither sext nor sexttest, so that
// the root package's own tests (package sext) can draw from it without an
// import cycle; everyone else uses sexttest.
//
// Leaves are drawn from small sets mixed with boundary values so that
// random pairs are often close: equal prefixes, equal values of different
// number types, neighbours at the 2^31, 2^63 and 2^64 boundaries,
// bitstrings one bit apart. rapid favours small draws, so the choices a
// failure shrinks towards come first.
package termgen

import (
	"slices"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// Options say which terms to draw; sexttest.Options documents each field
// and converts to this type, so the two must keep the same fields.
type Options struct {
	Depth      int
	Kinds      []term.Kind
	Legacy     bool
	UTF8Atoms  bool
	Atoms      []string
	RepeatVars bool
}

// Term returns a generator of terms drawn with o.
func Term(o Options) *rapid.Generator[term.Term] {
	o.Validate()
	return rapid.Custom(func(t *rapid.T) term.Term { return Draw(t, o) })
}

// The choices Draw makes. rapid shrinks a draw towards its least value:
// the leaf draw starts at the empty tuple and wraps round.
const (
	cInt = iota
	cInt2
	cFloat
	cAtom
	cBits
	cBits2
	cOpaque
	cEmptyTuple
	cTuple
	cList
	cMap
	cDesc
	nChoices
)

// Draw draws one term with o.
func Draw(t *rapid.T, o Options) term.Term {
	return draw(t, o, o.Depth)
}

func draw(t *rapid.T, o Options, depth int) term.Term {
	var c int
	switch {
	case o.Kinds == nil && depth > 0:
		// Any choice, compounds favoured: the leaf draw can nest too.
		c = (cEmptyTuple + rapid.IntRange(0, nChoices-1).Draw(t, "leaf")) % nChoices
		if rapid.IntRange(0, 1).Draw(t, "nest") == 0 {
			c = rapid.IntRange(cTuple, cDesc).Draw(t, "compound")
		}
	case o.Kinds == nil:
		// Depth spent: leaves only, shrinking to {} as above.
		c = rapid.IntRange(0, cEmptyTuple).Draw(t, "leaf") - 1
		if c < 0 {
			c = cEmptyTuple
		}
	default:
		c = o.choose(t, depth)
	}
	switch c {
	case cInt, cInt2:
		return drawInt(t, o)
	case cFloat:
		return term.Float(drawFloat(t, o))
	case cAtom:
		return term.Atom(drawAtomName(t, o))
	case cBits, cBits2:
		return drawBits(t)
	case cOpaque:
		return drawOpaque(t, o)
	case cEmptyTuple:
		return term.Tuple()
	case cTuple:
		n := rapid.IntRange(0, 4).Draw(t, "arity")
		elems := make([]term.Term, n)
		for i := range elems {
			elems[i] = draw(t, o, depth-1)
		}
		return term.Tuple(elems...)
	case cList:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		elems := make([]term.Term, n)
		for i := range elems {
			elems[i] = draw(t, o, depth-1)
		}
		if n > 0 && rapid.IntRange(0, 3).Draw(t, "improper") == 0 {
			tail := draw(t, o, depth-1)
			if tail.Kind() != term.KindList {
				return term.ImproperList(elems, tail)
			}
		}
		return term.List(elems...)
	case cMap:
		n := rapid.IntRange(0, 3).Draw(t, "size")
		entries := make([]term.MapEntry, n)
		for i := range entries {
			entries[i] = term.MapEntry{Key: draw(t, o, depth-1), Value: draw(t, o, depth-1)}
		}
		return term.Map(entries...)
	case cEmptyList:
		return term.List()
	case cEmptyMap:
		return term.Map()
	default:
		return term.Desc(draw(t, o, depth-1))
	}
}

// Two more choices for Kinds that hold no leaf: empty compounds end
// the nesting instead.
const (
	cEmptyList = nChoices + iota
	cEmptyMap
)

// choose picks a choice among those o.Kinds allows, leaves first, as
// draw does without Kinds.
func (o Options) choose(t *rapid.T, depth int) int {
	leaves, compounds := o.choices()
	if depth > 0 && len(compounds) > 0 && (len(leaves) == 0 || rapid.IntRange(0, 1).Draw(t, "nest") == 0) {
		return rapid.SampledFrom(compounds).Draw(t, "compound")
	}
	return rapid.SampledFrom(leaves).Draw(t, "leaf")
}

func (o Options) choices() (leaves, compounds []int) {
	has := func(k term.Kind) bool { return slices.Contains(o.Kinds, k) }
	for _, c := range []struct {
		choice int
		kind   term.Kind
	}{{cEmptyTuple, term.KindTuple}, {cInt, term.KindInt}, {cFloat, term.KindFloat},
		{cAtom, term.KindAtom}, {cBits, term.KindBinary}, {cOpaque, term.KindPid},
		{cOpaque, term.KindPort}, {cOpaque, term.KindRef}} {
		if has(c.kind) && !slices.Contains(leaves, c.choice) {
			leaves = append(leaves, c.choice)
		}
	}
	for _, c := range []struct {
		choice int
		kind   term.Kind
	}{{cTuple, term.KindTuple}, {cList, term.KindList}, {cMap, term.KindMap}, {cDesc, term.KindDesc}} {
		if has(c.kind) {
			compounds = append(compounds, c.choice)
		}
	}
	if len(leaves) == 0 {
		// Only compounds: end the nesting with empty ones.
		if has(term.KindList) {
			leaves = append(leaves, cEmptyList)
		}
		if has(term.KindMap) {
			leaves = append(leaves, cEmptyMap)
		}
	}
	return leaves, compounds
}

// Validate panics, as rapid does on a bad range, when o can draw nothing.
func (o Options) Validate() {
	if o.Depth < 0 {
		panic("sexttest: negative Depth")
	}
	if o.Kinds != nil {
		if leaves, _ := o.choices(); len(leaves) == 0 {
			panic("sexttest: Kinds holds no kind a term can end in")
		}
	}
	for _, a := range o.Atoms {
		if !o.UTF8Atoms && !latin1(a) {
			panic("sexttest: atom " + a + " is not Latin-1; set UTF8Atoms")
		}
	}
}

func latin1(s string) bool {
	for _, r := range s {
		if r > 0xFF {
			return false
		}
	}
	return true
}
