package sext

import (
	"encoding/binary"

	"github.com/erlsext/sext/term"
)

// The flat path: Decode reads a small key of small integers, short ASCII
// atoms, short binaries and tuples of those, such as {user, 42,
// <<"alice">>}, in two passes over at most 64 bytes, with no scratch
// space from the pool and one allocation. The first pass checks every
// byte and builds the parts in a local array; the second copies them
// into one allocation of slots, where each binary of up to 8 bytes sits
// in the scalar word of a slot of its own (a slot is a pointer word and
// 8 bytes the collector never reads as pointers). Longer binaries, of up
// to 16 bytes, share a second allocation. Anything it does not take
// goes to DecodeCPS, which reads it the general way and reports any
// error; flatFix and TestFlatDecode hold the two to the same terms.
const (
	flatMaxLen   = 64
	flatMaxSlots = 16 // more parts than this go the general way
	flatSlotData = 8  // the bytes a slot holds after its pointer word
	flatMaxBin   = 16 // longer binaries go the general way
)

// Fixes the second pass makes, by what the first left.
const (
	fixTuple = iota // a tuple's elements, slots [at, at+n)
	fixShort        // a binary's n bytes, in slot at's scalar word
	fixLong         // a binary's n bytes, at long[at:]
)

// flatState is the first pass's work: the parts, in the order of the
// final slots, what the second pass must point into those slots, and
// the bytes of binaries too long for a slot.
type flatState struct {
	loc   [flatMaxSlots]term.Term
	fix   [flatMaxSlots]flatFix
	nfix  int
	used  int
	long  [flatMaxLen]byte
	nlong int
}

// flatFix is a fix the second pass makes: slot becomes a tuple of the n
// slots from at, or a binary of n bytes, the top of x (in slot at) or
// from long[at:].
type flatFix struct {
	x                 uint64
	slot, at, n, kind uint8
}

// take reserves n slots and returns the first.
func (st *flatState) take(n int) (int, bool) {
	at := st.used
	st.used += n
	return at, st.used <= flatMaxSlots
}

// note records a fix for the second pass.
func (st *flatState) note(slot, at, n, kind int, x uint64) {
	st.fix[st.nfix] = flatFix{x: x, slot: uint8(slot), at: uint8(at), n: uint8(n), kind: uint8(kind)}
	st.nfix++
}

// decodeFlat decodes b if it is a flat key the fast path takes; ok is
// false otherwise, and for any input the general decoders would refuse.
func (o Options) decodeFlat(b []byte) (t term.Term, ok bool) {
	if o.Canonical || len(b) > flatMaxLen || len(b) < 5 || b[0] != tagTuple {
		return term.Term{}, false
	}
	var st flatState
	depth := o.maxDepthCPS() // Decode's decoder, and its limit
	top := int(binary.BigEndian.Uint32(b[1:]))
	if top == 0 {
		return term.Tuple(), len(b) == 5 && depth >= 1
	}
	at, ok := st.take(top)
	if !ok || depth < 1 {
		return term.Term{}, false
	}
	p := 5
	for i := range top {
		if p+5 > len(b) || b[p] != tagTuple {
			if p, ok = st.part(b, p, at+i); !ok {
				return term.Term{}, false
			}
			continue
		}
		n := int(binary.BigEndian.Uint32(b[p+1:]))
		p += 5
		if depth < 2 {
			return term.Term{}, false
		}
		if n == 0 {
			st.loc[at+i] = term.Tuple()
			continue
		}
		inner, ok := st.take(n)
		if !ok {
			return term.Term{}, false
		}
		for j := range n {
			if p, ok = st.part(b, p, inner+j); !ok {
				return term.Term{}, false
			}
		}
		st.note(at+i, inner, n, fixTuple, 0)
	}
	if p != len(b) {
		return term.Term{}, false
	}
	s := make([]term.Term, st.used)
	copy(s, st.loc[:st.used])
	var long []byte // every longer binary's bytes, in one allocation: two in all
	if st.nlong > 0 {
		long = append([]byte(nil), st.long[:st.nlong]...)
	}
	for _, f := range st.fix[:st.nfix] {
		switch f.kind {
		case fixTuple:
			s[f.slot] = term.Tuple(s[f.at : f.at+f.n]...)
		case fixShort:
			s[f.slot] = term.SlotBinary(&s[f.at], f.x, int(f.n))
		default:
			s[f.slot] = term.Binary(long[f.at : f.at+f.n : f.at+f.n])
		}
	}
	return term.Tuple(s[:top]...), true
}

// part reads the small integer, atom or binary at p into slot, taking a
// slot of its own for a non-empty binary's bytes, and returns the offset
// after it.
func (st *flatState) part(b []byte, p, slot int) (int, bool) {
	if p+2 > len(b) {
		return 0, false
	}
	switch b[p] {
	case tagPos4, tagNeg4:
		x, ok := smallInt64(b, p)
		st.loc[slot] = term.Int(x)
		return p + 5, ok // not ok: a float
	case tagAtom:
		if b[p+1] == emptyFrame {
			st.loc[slot] = term.Atom("")
			return p + 2, true
		}
		x, n, end := shortFrame(b, p+1)
		if x &= ^uint64(0) << (64 - 8*n); end == 0 || x&0x8080808080808080 != 0 {
			return 0, false // long or not ASCII: the general way
		}
		st.loc[slot] = term.Atom(shortName(x, n))
		return end, true
	case tagBinary:
		if b[p+1] == emptyFrame {
			st.loc[slot] = term.Binary(nil)
			return p + 2, true
		}
		if st.nfix == flatMaxSlots {
			return 0, false
		}
		if x, n, end := shortFrame(b, p+1); end > 0 {
			at, ok := st.take(1)
			if !ok {
				return 0, false
			}
			st.note(slot, at, n, fixShort, x)
			return end, true
		}
		f, err := scanFrame(b, p+1, 0)
		if err != nil || f.bits&7 != 0 || f.units > flatMaxBin || st.nlong+f.units > len(st.long) {
			return 0, false
		}
		n, at := f.bits>>3, st.nlong
		if f.units <= flatSlotData { // 8 bytes, or fewer framed the long way
			var data [flatSlotData]byte
			at, ok := st.take(1)
			if !ok || unframe(data[:f.units], b, p+1, f, 0) != nil {
				return 0, false
			}
			st.note(slot, at, n, fixShort, binary.BigEndian.Uint64(data[:]))
			return f.end, true
		}
		if unframe(st.long[at:at+f.units], b, p+1, f, 0) != nil {
			return 0, false
		}
		st.nlong += f.units
		st.note(slot, at, n, fixLong, 0)
		return f.end, true
	}
	return 0, false
}

// directFits reports whether b is a short tuple of leaves and of tuples
// of leaves that takes at most two allocations in direct mode, one for
// each tuple and each non-empty binary, as {user, 42, <<"alice">>} and
// {order, 7, {2024, 5, 1}, 9} do. It reads at most 64 bytes; anything it
// does not recognise goes to the arena.
func directFits(b []byte) bool {
	if len(b) > 64 || len(b) < 5 || b[0] != tagTuple {
		return false
	}
	allocs, p, ok := 1, 5, true
	for range binary.BigEndian.Uint32(b[1:]) {
		if p+5 <= len(b) && b[p] == tagTuple {
			allocs++
			n := binary.BigEndian.Uint32(b[p+1:])
			p += 5
			for range n {
				if p, ok = directLeaf(b, p, &allocs); !ok {
					return false
				}
			}
		} else if p, ok = directLeaf(b, p, &allocs); !ok {
			return false
		}
	}
	return allocs <= 2 && p == len(b)
}

// directLeaf finds the end of a small integer, atom or binary at p for
// directFits, counting a non-empty binary's allocation. It only finds ends:
// the decode that follows checks the bytes. Each leaf takes two bytes or
// more, so directFits's loops end within its 64 bytes whatever a count
// claims.
func directLeaf(b []byte, p int, allocs *int) (int, bool) {
	if p+2 > len(b) || b[p] == tagPosBig || b[p] == tagNegBig {
		return 0, false
	}
	if b[p] == tagBinary && b[p+1] != emptyFrame {
		if *allocs++; *allocs > 2 {
			return 0, false
		}
	}
	if end, _ := leafEnd(b, p, false, minIntLimit); end > 0 {
		return end, true
	}
	if b[p] == tagAtom || b[p] == tagBinary { // a bitstring, and the frames leafEnd leaves
		f, err := findFrame(b, p+1)
		return f.end, err == nil
	}
	return 0, false
}
