package sext

import (
	"math/big"
	"unsafe"

	"github.com/erlsext/sext/term"
)

// Two kinds of term have public constructors that allocate: term.Desc
// takes its inner term by value and boxes it, and term.BigInt copies its
// magnitude. The decoder builds them around arena memory instead, through
// termRep, a copy of term.Term's layout: a Desc points at an arena slot,
// a bignum at its words in the arena. Both depend on a layout this
// package does not own, so layoutOK checks it once, at init, by building
// terms through the public constructors and reading them back; if a check
// fails the decoder uses the public constructors and only costs
// allocations.

// termRep has term.Term's fields in term.Term's order: a pointer, then a
// word whose top byte is the kind (of every kind but a small integer and
// a float, which this package never builds this way), bit 55 a flag (a
// bignum's sign, a list's improper tail) and the low bits a count.
type termRep struct {
	ptr unsafe.Pointer
	num uint64
}

const (
	repKindShift = 56
	repFlag      = 1 << 55
)

var layoutOK = checkLayout()

// repTerm returns the term of kind k with pointer ptr and, below the kind,
// flag and count num.
func repTerm(ptr unsafe.Pointer, k term.Kind, num uint64) term.Term {
	var t term.Term
	r := (*termRep)(unsafe.Pointer(&t))
	r.ptr, r.num = ptr, uint64(k)<<repKindShift|num
	return t
}

// descOf returns the descending term whose inner term is *inner, which
// the caller must not change afterwards.
func descOf(inner *term.Term) term.Term {
	if !layoutOK {
		return term.Desc(*inner)
	}
	return repTerm(unsafe.Pointer(inner), term.KindDesc, 0)
}

// bigTerm returns the integer of magnitude w (little-endian words),
// negated if neg, keeping w, which the caller must
// not change afterwards. One that fits in an int64 is held as one, as
// term.BigInt holds it.
func bigTerm(w []big.Word, neg bool) term.Term {
	if !layoutOK { // every machine whose words are not 64 bits too
		z := new(big.Int).SetBits(w)
		if neg {
			z.Neg(z)
		}
		return term.BigInt(z)
	}
	for len(w) > 0 && w[len(w)-1] == 0 { // BigBits promises no zero top word
		w = w[:len(w)-1]
	}
	if len(w) <= 1 {
		var u uint64
		if len(w) == 1 {
			u = uint64(w[0])
		}
		switch {
		case u <= 1<<63-1 && neg:
			return term.Int(-int64(u))
		case u <= 1<<63-1:
			return term.Int(int64(u))
		case u == 1<<63 && neg:
			return term.Int(-1 << 63)
		}
	}
	var flag uint64
	if neg {
		flag = repFlag
	}
	return repTerm(unsafe.Pointer(unsafe.SliceData(w)), term.KindInt, flag|uint64(len(w)))
}

func checkLayout() bool {
	var t term.Term
	if unsafe.Sizeof(t) != unsafe.Sizeof(termRep{}) || unsafe.Sizeof(t) != 16 ||
		unsafe.Sizeof(uintptr(0)) != 8 || wordBytes != 8 {
		return false
	}
	// The public constructors put a pointer in the first word and the
	// kind and a count in the second, as termRep has them.
	name := "xyz"
	a := term.Atom(name)
	r := (*termRep)(unsafe.Pointer(&a))
	if r.ptr != unsafe.Pointer(unsafe.StringData(name)) || r.num != uint64(term.KindAtom)<<repKindShift|3 {
		return false
	}
	elems := []term.Term{term.Int(1), term.Atom("t")}
	l := term.ListWithTail(elems...)
	r = (*termRep)(unsafe.Pointer(&l))
	if r.ptr != unsafe.Pointer(&elems[0]) || r.num != uint64(term.KindList)<<repKindShift|repFlag|2 {
		return false
	}
	d := term.Desc(term.Int(1))
	if r = (*termRep)(unsafe.Pointer(&d)); r.num != uint64(term.KindDesc)<<repKindShift {
		return false
	}
	// A bignum points at its words, with its sign in the flag.
	z := new(big.Int).Lsh(big.NewInt(-3), 100)
	bz := term.BigInt(z)
	r = (*termRep)(unsafe.Pointer(&bz))
	if r.num != uint64(term.KindInt)<<repKindShift|repFlag|2 ||
		*(*big.Word)(r.ptr) != z.Bits()[0] || *(*big.Word)(unsafe.Add(r.ptr, 8)) != z.Bits()[1] {
		return false
	}
	// Terms built here read back through the public accessors, and keep
	// their memory rather than copying it.
	cell := term.Int(1)
	d = repTerm(unsafe.Pointer(&cell), term.KindDesc, 0)
	if d.Kind() != term.KindDesc || !term.Equal(d.Inner(), term.Int(1)) {
		return false
	}
	cell = term.Int(2)
	if !term.Equal(d.Inner(), term.Int(2)) {
		return false
	}
	words := []big.Word{1, 2, 3}
	i := repTerm(unsafe.Pointer(&words[0]), term.KindInt, repFlag|3)
	w, neg := i.BigBits()
	return i.Kind() == term.KindInt && i.IsBig() && neg && len(w) == 3 && &w[0] == &words[0] &&
		i.BigInt().Cmp(new(big.Int).Neg(new(big.Int).SetBits(words))) == 0
}

// termPtr returns t's pointer word.
func termPtr(t term.Term) unsafe.Pointer { return (*termRep)(unsafe.Pointer(&t)).ptr }

// setTermPtr sets t's pointer word.
func setTermPtr(t *term.Term, p unsafe.Pointer) { (*termRep)(unsafe.Pointer(t)).ptr = p }
