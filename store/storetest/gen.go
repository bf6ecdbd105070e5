package storetest

import (
	"math/rand/v2"

	"github.com/erlsext/sext/sexttest"
	"github.com/erlsext/sext/term"
)

// Gen draws keys and patterns from sexttest's generators, each from a
// seed taken from R, so that a failure can be replayed; R also picks
// among the keys drawn.
type Gen struct {
	R *rand.Rand
}

// NewGen returns a generator seeded with seed.
func NewGen(seed uint64) *Gen { return &Gen{R: rand.New(rand.NewPCG(seed, seed^0x5EC7))} }

// keyOptions draw on a few atoms, so that keys share tags and patterns
// match several keys; a '$N' may repeat, so that some patterns match
// fewer keys than their shape suggests.
var keyOptions = sexttest.Options{
	Depth:      3,
	Atoms:      []string{"a", "b", "c", "order", "user", "zz", "é", "ok"},
	RepeatVars: true,
}

var keys = sexttest.Key(keyOptions)

// Key returns a random key: mostly a tuple led by a tag atom, as real keys
// are, sometimes any term.
func (g *Gen) Key() term.Term { return keys.Example(g.seed()) }

// Pattern makes a pattern that t matches, or nearly: t with random
// subterms and list tails replaced by wildcards, a '$N' sometimes twice.
func (g *Gen) Pattern(t term.Term) term.Term {
	return sexttest.Pattern(t, keyOptions).Example(g.seed())
}

func (g *Gen) seed() int { return int(g.R.Int64()) }
