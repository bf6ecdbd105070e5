// Package termrep is the layout of term.Term, in one place for the term
// package and for the decoders (sext's and etf's) that build terms around
// memory of their own: term.Term's only field of non-zero size is a Rep,
// and term asserts at compile time that the two have one size, so a Rep
// is a term.Term in memory. term builds every Term through a Rep; the
// decoders convert with To and Of.
//
// Why the decoders need it: term's public constructors allocate for two
// kinds (Desc boxes its inner term, BigInt copies its big.Int), and a
// decoder that has the memory already wants to hand it over instead.
package termrep

import (
	"math/big"
	"unsafe"
)

// Rep is a term: three machine words. Which fields mean what depends on
// Kind, as term/term.go's constructors set them.
type Rep struct {
	Ptr  unsafe.Pointer // children, bytes, name, *big.Int, *Pid, ... by kind
	Num  uint64         // int64 value, float bits, length or bit length
	Kind uint8          // one of the kinds below, term.Kind's values
	Tail bool           // a list whose last element is an improper tail
}

// The kinds, which term.Kind's constants are (untyped, so that they are
// a Rep's Kind and a term.Kind alike). Their order is no order of the
// encoding's.
const (
	List = iota
	Desc
	Int
	Float
	Atom
	Ref
	Port
	Pid
	Tuple
	Map
	Binary
)

// To returns r as a T, which must be term.Term (term imports this
// package, so it cannot be named here).
func To[T any](r Rep) T { return *(*T)(unsafe.Pointer(&r)) }

// Of returns the Rep that *t is; T must be term.Term.
func Of[T any](t *T) *Rep { return (*Rep)(unsafe.Pointer(t)) }

// BigInt returns the integer z, keeping z, which the caller must not
// change afterwards; an integer that fits in an int64 is held as one, so
// that every value has one representation.
func BigInt(z *big.Int) Rep {
	if z.IsInt64() {
		return Rep{Kind: Int, Num: uint64(z.Int64())}
	}
	return Rep{Kind: Int, Ptr: unsafe.Pointer(z)}
}

// DescOf returns the descending term whose inner term is at inner, a
// *term.Term, kept: the caller must not change it afterwards.
func DescOf(inner unsafe.Pointer) Rep { return Rep{Kind: Desc, Ptr: inner} }
