package storetest

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/erlsext/sext/term"
)

// Gen makes random terms for keys and patterns from a seeded source, so a
// failure can be replayed. Its terms draw on small sets of atoms, numbers
// and bytes so that keys share prefixes and patterns match several keys.
type Gen struct {
	R *rand.Rand
}

// NewGen returns a generator seeded with seed.
func NewGen(seed uint64) *Gen { return &Gen{R: rand.New(rand.NewPCG(seed, seed^0x5EC7))} }

var atoms = []string{"a", "b", "c", "order", "user", "zz", "é", "ok"}

// Key returns a random key: mostly a tuple led by a tag atom, as real keys
// are, sometimes any term.
func (g *Gen) Key() term.Term {
	if g.R.IntN(10) == 0 {
		return g.Term(3)
	}
	n := 1 + g.R.IntN(4)
	elems := make([]term.Term, n)
	elems[0] = term.Atom(atoms[g.R.IntN(4)])
	for i := 1; i < n; i++ {
		elems[i] = g.Term(2)
	}
	return term.Tuple(elems...)
}

// Term returns a random term nested at most depth deep.
func (g *Gen) Term(depth int) term.Term {
	r := g.R
	k := r.IntN(12)
	if depth <= 0 && k >= 7 {
		k = r.IntN(7)
	}
	switch k {
	case 0, 1:
		return term.Atom(atoms[r.IntN(len(atoms))])
	case 2, 3:
		return g.integer()
	case 4:
		return g.float()
	case 5:
		return g.binary()
	case 6:
		switch r.IntN(3) {
		case 0:
			return term.Pid{Node: "n@h", ID: uint32(r.IntN(3)), Serial: uint32(r.IntN(2))}.Term()
		case 1:
			return term.Ref{Node: "n@h", Creation: 1, IDs: []uint32{uint32(r.IntN(3)), 7}}.Term()
		}
		return term.Port{Node: "n@h", ID: uint64(r.IntN(3))}.Term()
	case 7, 8:
		elems := make([]term.Term, r.IntN(4))
		for i := range elems {
			elems[i] = g.Term(depth - 1)
		}
		return term.Tuple(elems...)
	case 9:
		elems := make([]term.Term, r.IntN(4))
		for i := range elems {
			elems[i] = g.Term(depth - 1)
		}
		if len(elems) > 0 && r.IntN(4) == 0 {
			return term.ImproperList(elems, g.Term(0))
		}
		return term.List(elems...)
	case 10:
		return term.Desc(g.Term(depth - 1))
	}
	entries := make([]term.MapEntry, r.IntN(3))
	for i := range entries {
		entries[i] = term.MapEntry{Key: term.Atom(atoms[r.IntN(len(atoms))]), Value: g.Term(depth - 1)}
	}
	return term.Map(entries...)
}

func (g *Gen) integer() term.Term {
	r := g.R
	switch r.IntN(6) {
	case 0:
		return term.Int(r.Int64() - math.MaxInt64/2)
	case 1:
		b := new(big.Int).Lsh(big.NewInt(int64(1+r.IntN(1000))), uint(64+r.IntN(100)))
		if r.IntN(2) == 0 {
			b.Neg(b)
		}
		return term.BigInt(b)
	}
	return term.Int(int64(r.IntN(11) - 5))
}

func (g *Gen) float() term.Term {
	r := g.R
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, -2.25, 1e300, -1e-300, 3}
	if r.IntN(3) == 0 {
		return term.Float((r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(20)-10)))
	}
	return term.Float(fs[r.IntN(len(fs))])
}

func (g *Gen) binary() term.Term {
	r := g.R
	b := make([]byte, r.IntN(5))
	for i := range b {
		b[i] = "\x00\x01ab\xff"[r.IntN(5)]
	}
	if len(b) > 0 && r.IntN(5) == 0 {
		return term.Bitstring(b, len(b)*8-1-r.IntN(7))
	}
	return term.Binary(b)
}

// Pattern makes a pattern that t matches, or nearly: it replaces random
// subterms of t with '_' or '$1'..'$3' (a '$N' met twice demands equal
// terms, so some patterns match fewer keys than their shape suggests) and
// sometimes cuts a list short with a wildcard tail.
func (g *Gen) Pattern(t term.Term) term.Term {
	return g.wild(t, 0.25)
}

func (g *Gen) wildcard() term.Term {
	if g.R.IntN(2) == 0 {
		return term.Atom("_")
	}
	return term.Atom("$" + strconv.Itoa(1+g.R.IntN(3)))
}

func (g *Gen) wild(t term.Term, p float64) term.Term {
	r := g.R
	if r.Float64() < p {
		return g.wildcard()
	}
	switch t.Kind() {
	case term.KindTuple:
		elems := make([]term.Term, t.Len())
		for i, x := range t.Elems() {
			elems[i] = g.wild(x, p)
		}
		return term.Tuple(elems...)
	case term.KindList:
		in := t.Elems()
		elems := make([]term.Term, len(in))
		for i, x := range in {
			elems[i] = g.wild(x, p)
		}
		if len(elems) > 0 && r.Float64() < p {
			return term.ImproperList(elems[:r.IntN(len(elems)+1)], g.wildcard())
		}
		if t.IsProper() {
			return term.List(elems...)
		}
		return term.ImproperList(elems, g.wild(t.Tail(), p))
	case term.KindDesc:
		return term.Desc(g.wild(t.Inner(), p))
	case term.KindMap:
		// Only values: a wildcard key would sort elsewhere in the map and
		// describe other terms.
		in := t.Entries()
		entries := make([]term.MapEntry, len(in))
		for i, e := range in {
			entries[i] = term.MapEntry{Key: e.Key, Value: g.wild(e.Value, p)}
		}
		return term.Map(entries...)
	}
	return t
}
