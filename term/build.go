package term

import (
	"encoding/binary"
	"math/big"
	"unsafe"
)

// Constructors for decoders that manage the terms' memory themselves, in
// an Arena or in one allocation of their own. Unlike Desc, BigInt and Map
// they keep the memory they are given rather than copy it: the caller
// must not change it afterwards.

// DescOf returns the descending term whose inner term is *cell, keeping
// the cell.
func DescOf(cell *Term) Term { return mk(KindDesc, unsafe.Pointer(cell), 0) }

// BigWords returns the integer whose magnitude is w (little-endian words,
// as big.Int.Bits), negated if neg, keeping w. An integer that fits in an
// int64 is held as one, as BigInt holds it.
func BigWords(w []big.Word, neg bool) Term {
	for len(w) > 0 && w[len(w)-1] == 0 { // a magnitude has no zero top word
		w = w[:len(w)-1]
	}
	if len(w) <= 64/(8*wordBytes) {
		var u uint64
		shift := uint(8 * wordBytes) // a variable: a constant shift by 64 does not compile
		for i := len(w) - 1; i >= 0; i-- {
			u = u<<shift | uint64(w[i])
		}
		switch {
		case u <= 1<<63-1 && neg:
			return Int(-int64(u))
		case u <= 1<<63-1:
			return Int(int64(u))
		case u == 1<<63 && neg:
			return Int(-1 << 63)
		}
	}
	return bigWords(w, neg)
}

// MapPairs returns the map whose keys and values are kv's terms in turn,
// key first, keeping kv as its entries. It panics if len(kv) is odd.
func MapPairs(kv []Term) Term {
	if len(kv)%2 != 0 {
		panic("term: MapPairs of an odd number of terms")
	}
	if len(kv) == 0 {
		return Map()
	}
	return Map(unsafe.Slice((*MapEntry)(unsafe.Pointer(unsafe.SliceData(kv))), len(kv)/2)...)
}

// EntryTerms returns the keys and values of entries in turn, key first,
// as a view of the same memory: the inverse of MapPairs.
func EntryTerms(entries []MapEntry) []Term {
	if len(entries) == 0 {
		return nil
	}
	return unsafe.Slice(&entries[0].Key, 2*len(entries))
}

// SlotBinary stores n bytes, at most 8, the top bytes of x, in the slot,
// which holds no term from then on, and returns the binary of those
// bytes: a short binary and its bytes in one allocation of slots, where
// each binary takes the room of one term.
func SlotBinary(slot *Term, x uint64, n int) Term {
	if n < 0 || n > 8 {
		panic("term: SlotBinary of more than 8 bytes")
	}
	*slot = Term{}
	data := (*[8]byte)(unsafe.Pointer(&slot.r.Num))
	binary.BigEndian.PutUint64(data[:], x)
	return Binary(data[:n:n])
}
