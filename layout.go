package sext

import (
	"math/big"
	"unsafe"

	"github.com/erlsext/sext/term"
)

// Two kinds of term have public constructors that allocate: term.Desc
// takes its inner term by value and boxes it, and term.BigInt copies its
// big.Int. The decoder builds them around arena memory instead, through
// termRep, a copy of term.Term's layout, and places a bignum's big.Int
// inside two arena slots. Both depend on layouts this package does not
// own, so layoutOK checks them once, at init, by building terms and
// reading them back through the public accessors; if a check fails the
// decoder uses the public constructors and only costs allocations.

// termRep has term.Term's fields in term.Term's order.
type termRep struct {
	ptr  unsafe.Pointer
	num  uint64
	kind term.Kind
	tail bool
}

// bigSlots is the number of arena slots that hold one big.Int. A Term is
// a pointer and two scalar words; a big.Int is a bool, then a slice (a
// pointer and two scalars). Placed 16 bytes into the first of two slots,
// its slice pointer falls on the second slot's pointer word, so the
// garbage collector sees every pointer it holds.
const (
	bigSlots  = 2
	bigOffset = 16
)

var layoutOK = checkLayout()

func repTerm(ptr unsafe.Pointer, kind term.Kind) term.Term {
	var t term.Term
	r := (*termRep)(unsafe.Pointer(&t))
	r.ptr, r.kind = ptr, kind
	return t
}

// bigIn returns the big.Int that lives in the two slots s.
func bigIn(s []term.Term) *big.Int {
	return (*big.Int)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), bigOffset))
}

// descOf returns the descending term whose inner term is *inner, which
// the caller must not change afterwards.
func descOf(inner *term.Term) term.Term {
	if !layoutOK {
		return term.Desc(*inner)
	}
	return repTerm(unsafe.Pointer(inner), term.KindDesc)
}

// bigTerm returns the integer z, keeping z, which the caller must not
// change afterwards.
func bigTerm(z *big.Int) term.Term {
	if z.IsInt64() {
		return term.Int(z.Int64())
	}
	if !layoutOK {
		return term.BigInt(z)
	}
	return repTerm(unsafe.Pointer(z), term.KindInt)
}

func checkLayout() bool {
	var t term.Term
	var b big.Int
	if unsafe.Sizeof(t) != unsafe.Sizeof(termRep{}) || unsafe.Sizeof(t) != 24 ||
		unsafe.Sizeof(b) != 32 || unsafe.Sizeof(uintptr(0)) != 8 {
		return false
	}
	// The public constructors put a pointer in the first word, a count in
	// the second and the kind in the third, as termRep has them.
	name := "xyz"
	a := term.Atom(name)
	r := (*termRep)(unsafe.Pointer(&a))
	if r.ptr != unsafe.Pointer(unsafe.StringData(name)) || r.num != 3 || r.kind != term.KindAtom {
		return false
	}
	// Desc: the pointer is where termRep puts it, and is kept, not copied.
	cell := term.Int(1)
	d := repTerm(unsafe.Pointer(&cell), term.KindDesc)
	if d.Kind() != term.KindDesc || !term.Equal(d.Inner(), term.Int(1)) {
		return false
	}
	cell = term.Int(2)
	if !term.Equal(d.Inner(), term.Int(2)) {
		return false
	}
	// A big integer term holds its *big.Int.
	z := new(big.Int).Lsh(big.NewInt(1), 100)
	if i := repTerm(unsafe.Pointer(z), term.KindInt); !i.IsBig() || i.BigInt() != z {
		return false
	}
	// A big.Int is a sign, then its words' slice header.
	words := []big.Word{1, 2, 3}
	z.SetBits(words).Neg(z)
	p := unsafe.Pointer(z)
	return *(*bool)(p) &&
		*(*unsafe.Pointer)(unsafe.Add(p, 8)) == unsafe.Pointer(&words[0]) &&
		*(*int)(unsafe.Add(p, 16)) == 3 && *(*int)(unsafe.Add(p, 24)) == 3
}

// termPtr returns t's pointer word.
func termPtr(t term.Term) unsafe.Pointer { return (*termRep)(unsafe.Pointer(&t)).ptr }

// setTermPtr sets t's pointer word.
func setTermPtr(t *term.Term, p unsafe.Pointer) { (*termRep)(unsafe.Pointer(t)).ptr = p }
