package termrep

import (
	"math/big"
	"unsafe"
)

// A decoder's arena keeps big.Ints in its slabs of terms, so that copying
// a term out of the arena takes one slab for both. A Rep is a pointer and
// two scalar words; a big.Int is a bool, then a slice (a pointer and two
// scalars). Placed 16 bytes into the first of two slots, its slice pointer
// falls on the second slot's pointer word, so the garbage collector sees
// every pointer it holds. big.Int's layout is math/big's, which this
// module does not own: BigSlotsOK checks it once, at init, and a decoder
// that finds it false keeps its big.Ints elsewhere.

// BigSlots is the number of slots that hold one big.Int.
const BigSlots = 2

const bigOffset = 16

// BigSlotsOK reports whether a big.Int can live in BigSlots slots.
var BigSlotsOK = checkBigSlots()

// BigIn returns the big.Int that lives in the BigSlots slots at slots,
// a *Rep (or *term.Term).
func BigIn(slots unsafe.Pointer) *big.Int { return (*big.Int)(unsafe.Add(slots, bigOffset)) }

func checkBigSlots() bool {
	var b big.Int
	if unsafe.Sizeof(b) != 32 || unsafe.Sizeof(Rep{}) != 24 || unsafe.Sizeof(uintptr(0)) != 8 ||
		unsafe.Offsetof(Rep{}.Ptr) != 0 {
		return false
	}
	// A big.Int is a sign, then its words' slice header.
	words := []big.Word{1, 2, 3}
	b.SetBits(words).Neg(&b)
	p := unsafe.Pointer(&b)
	return *(*bool)(p) &&
		*(*unsafe.Pointer)(unsafe.Add(p, 8)) == unsafe.Pointer(&words[0]) &&
		*(*int)(unsafe.Add(p, 16)) == 3 && *(*int)(unsafe.Add(p, 24)) == 3
}
