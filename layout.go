package sext

import (
	"math/big"
	"unsafe"

	"github.com/erlsext/sext/internal/termrep"
	"github.com/erlsext/sext/term"
)

// Two kinds of term have public constructors that allocate: term.Desc
// takes its inner term by value and boxes it, and term.BigInt copies its
// big.Int. The decoder builds them around arena memory instead, through
// internal/termrep, which is term.Term's layout (term builds every term
// through it), and places a bignum's big.Int inside two arena slots.
// The one layout not this module's is math/big's: layoutOK is termrep's
// check of it, at init; if it fails the decoder keeps its big.Ints apart
// and only costs allocations.

// bigSlots is the number of arena slots that hold one big.Int.
const bigSlots = termrep.BigSlots

var layoutOK = termrep.BigSlotsOK

// repTerm returns the term of the given kind whose pointer word is ptr.
func repTerm(ptr unsafe.Pointer, kind term.Kind) term.Term {
	return termrep.To[term.Term](termrep.Rep{Ptr: ptr, Kind: uint8(kind)})
}

// bigIn returns the big.Int that lives in the two slots s.
func bigIn(s []term.Term) *big.Int { return termrep.BigIn(unsafe.Pointer(unsafe.SliceData(s))) }

// descOf returns the descending term whose inner term is *inner, which
// the caller must not change afterwards.
func descOf(inner *term.Term) term.Term {
	return termrep.To[term.Term](termrep.DescOf(unsafe.Pointer(inner)))
}

// bigTerm returns the integer z, keeping z, which the caller must not
// change afterwards.
func bigTerm(z *big.Int) term.Term { return termrep.To[term.Term](termrep.BigInt(z)) }

// termPtr returns t's pointer word.
func termPtr(t term.Term) unsafe.Pointer { return termrep.Of(&t).Ptr }

// setTermPtr sets t's pointer word.
func setTermPtr(t *term.Term, p unsafe.Pointer) { termrep.Of(t).Ptr = p }
