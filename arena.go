package sext

import (
	"math/big"
	"math/bits"

	"github.com/erlsext/sext/term"
)

// arena is where a decode takes the memory of the term it builds: a
// term.Arena, kept from one decode to the next (a pool keeps the plain
// decoders', a Decoder its own), so decoding into it allocates nothing
// once its chunks are large enough.
//
// A plain decode must not give out memory that a later decode reuses, so
// it ends with keep: term.Arena.Clone's two allocations of exactly the
// size used and a copy of the term into them. A term's memory is known
// exactly only once it is built, which is why the copy is cheaper than a
// pre-pass to size the memory: it moves memory and rewrites pointers,
// where a pre-pass would parse every byte a second time.
//
// In direct mode (a root that is a leaf, a small key, PartialDecode) every
// request is its own allocation, of exactly its size, and keep has
// nothing to do.
type arena struct {
	direct bool
	mem    term.Arena
}

// wordBytes is the size of a big.Word.
const wordBytes = bits.UintSize / 8

// takeTerms returns n slots for one compound's children.
func (a *arena) takeTerms(n int) []term.Term {
	if a.direct {
		return make([]term.Term, n)
	}
	return a.mem.Terms(n)
}

// takeBytes returns n bytes for a binary.
func (a *arena) takeBytes(n int) []byte {
	if a.direct {
		return make([]byte, n)
	}
	return a.mem.Bytes(n)
}

// takeWords returns n words for a bignum's magnitude.
func (a *arena) takeWords(n int) []big.Word {
	if a.direct {
		return make([]big.Word, n)
	}
	return a.mem.Words(n)
}

// reset takes back everything handed out, for the next decode.
func (a *arena) reset() { a.mem.Reset() }

// keep copies t, built in the arena, into memory of its own, and empties
// the arena for the next decode.
func (a *arena) keep(t term.Term) term.Term {
	t = a.copyOut(t)
	a.reset()
	return t
}

// copyOut is keep without the reset: the arena still holds t.
func (a *arena) copyOut(t term.Term) term.Term {
	if a.direct {
		return t
	}
	return a.mem.Clone(t)
}

// fillWords makes the words of the big-endian magnitude mag (no leading
// zero bytes) in w, which has room for exactly them.
func fillWords(w []big.Word, mag []byte) {
	if wordBytes == 8 {
		for i := range w {
			w[i] = big.Word(wordAt(mag, i))
		}
		return
	}
	for i := range w {
		var x big.Word
		lo := len(mag) - i*wordBytes
		for j := max(0, lo-wordBytes); j < lo; j++ {
			x = x<<8 | big.Word(mag[j])
		}
		w[i] = x
	}
}
