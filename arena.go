package sext

import (
	"math/big"
	"math/bits"
	"unsafe"

	"github.com/erlsext/sext/term"
)

// arena is where a decode takes the memory of the term it builds: the
// children of every tuple, list, map and descending term from one
// []term.Term, and binary bytes and bignum words from one []big.Word.
// The pre-pass (measure.go) counts both exactly, so a plain decode makes
// two allocations whatever the term's shape, and a Decoder that keeps its
// arena makes none once it is large enough.
//
// An arena that runs out, or was never sized (PartialDecode has no
// pre-pass), allocates each request on its own, exactly: a miscount costs
// allocations, never correctness.
type arena struct {
	terms []term.Term // free slots
	words []big.Word  // free words
	bytes []byte      // free bytes, after the words in the same allocation
}

// wordBytes is the size of a big.Word.
const wordBytes = bits.UintSize / 8

// need is what the pre-pass counts for one term: arena slots, bignum
// words and bytes.
type need struct{ terms, words, bytes int }

// fresh gives the arena new memory of exactly the size n, shared with no
// other term: the plain decoders' arena.
func (a *arena) fresh(n need) {
	a.terms = nil
	if n.terms > 0 {
		a.terms = make([]term.Term, n.terms)
	}
	a.words, a.bytes = carve(n, nil)
}

// reuse points the arena at the memory kept from earlier decodes,
// allocating bigger memory only where n does not fit in it: a Decoder's
// arena. The kept memory is returned grown, for the next call.
func (a *arena) reuse(n need, terms []term.Term, mem []big.Word) ([]term.Term, []big.Word) {
	if n.terms > cap(terms) {
		terms = make([]term.Term, max(n.terms, 2*cap(terms)))
	}
	a.terms = terms[:cap(terms)]
	if w := n.words + (n.bytes+wordBytes-1)/wordBytes; w > cap(mem) {
		mem = make([]big.Word, max(w, 2*cap(mem)))
	}
	mem = mem[:cap(mem)]
	a.words, a.bytes = carve(need{words: n.words, bytes: len(mem)*wordBytes - n.words*wordBytes}, mem)
	return terms, mem
}

// carve splits mem, or a new allocation when mem is nil, into n.words
// words and n.bytes bytes after them.
func carve(n need, mem []big.Word) ([]big.Word, []byte) {
	w := n.words + (n.bytes+wordBytes-1)/wordBytes
	if w == 0 {
		return nil, nil
	}
	if mem == nil {
		mem = make([]big.Word, w)
	}
	all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mem))), len(mem)*wordBytes)
	return mem[:n.words], all[n.words*wordBytes : n.words*wordBytes+n.bytes]
}

// takeTerms returns n slots for one compound's children.
func (a *arena) takeTerms(n int) []term.Term {
	if n > len(a.terms) {
		return make([]term.Term, n)
	}
	s := a.terms[:n:n]
	a.terms = a.terms[n:]
	return s
}

// takeBytes returns n bytes for a binary.
func (a *arena) takeBytes(n int) []byte {
	if n > len(a.bytes) {
		return make([]byte, n)
	}
	s := a.bytes[:n:n]
	a.bytes = a.bytes[n:]
	return s
}

// takeWords returns n words for a bignum's magnitude.
func (a *arena) takeWords(n int) []big.Word {
	if n > len(a.words) {
		return make([]big.Word, n)
	}
	s := a.words[:n:n]
	a.words = a.words[n:]
	return s
}

// newBig returns a zero big.Int for an integer term. With the layout
// check passed it lies in two arena slots (see bigSlots); otherwise it is
// allocated.
func (a *arena) newBig() *big.Int {
	if !layoutOK || len(a.terms) < bigSlots {
		return new(big.Int)
	}
	s := a.terms[:bigSlots:bigSlots]
	a.terms = a.terms[bigSlots:]
	return bigIn(s)
}

// left reports what the arena has not handed out, for the tests that
// check the pre-pass counts exactly.
func (a *arena) left() need {
	return need{terms: len(a.terms), words: len(a.words), bytes: len(a.bytes)}
}

// asEntries views 2n slots as n map entries: a MapEntry is two Terms.
func asEntries(kv []term.Term) []term.MapEntry {
	if len(kv) == 0 {
		return nil
	}
	return unsafe.Slice((*term.MapEntry)(unsafe.Pointer(unsafe.SliceData(kv))), len(kv)/2)
}

// bigWords makes the words of the big-endian magnitude mag (no leading
// zero bytes) in w, which has room for exactly them.
func bigWords(w []big.Word, mag []byte) {
	for i := range w {
		var x big.Word
		lo := len(mag) - i*wordBytes
		for j := max(0, lo-wordBytes); j < lo; j++ {
			x = x<<8 | big.Word(mag[j])
		}
		w[i] = x
	}
}
