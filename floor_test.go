package sext

import (
	"encoding/binary"
	"math/bits"

	"github.com/erlsext/sext/term"
)

// floorEnd is ../shared/tools/floor's c-bl1 walk in plain Go (no
// assembly, no unsafe), for BenchmarkArenaShapes to time beside the
// reader (mode=floor, dec=bl1): what Go code reaches with the branch-free
// design, checking as little as the C walker does. One token a step: its
// length and what it opens or closes come from a table indexed by its
// first byte, a frame of up to fifteen units is ended from two 64-bit
// loads, and nesting is a stack of counts of terms still to read, popped
// by arithmetic. Any other form (a float, a map, a negative bignum, a long
// frame) is one step of the reader's general skip.
func floorEnd(b []byte, s *skipper, f *floorState) (int, bool) {
	src, off := b, 0 // src[i-off] is b[i]; the last bytes are read from f.pad
	st := &f.st
	st[0], st[1], st[2] = 0, 0, 0 // below the root: a count that never reaches 0
	p, sp, cnt := 0, 3, uint64(1)
	for sp >= 3 {
		if p-off+floorWindow > len(src) {
			if off != 0 || p >= len(b) {
				return 0, false
			}
			copy(f.pad[:], b[p:]) // within a window of the end: at most floorWindow bytes
			clear(f.pad[len(b)-p:])
			src, off = f.pad[:], p
		}
		q := src[p-off : p-off+floorWindow : p-off+floorWindow]
		e := &floorTab[q[0]]
		c0 := uint32(bits.LeadingZeros64(^binary.BigEndian.Uint64(q[1:9]) & unitMarks))
		g1 := uint32(bits.LeadingZeros64(^binary.BigEndian.Uint64(q[10:18]) & unitMarks))
		stop := c0 ^ (c0^(72+g1))&-(c0>>6) // the stop bit: in the first eight units, or the next
		ln := uint32(e.base) + (2-b2u32(c0 == 0))&e.frame + (stop>>3)&e.frame
		long := (c0 & g1 >> 6) & e.frame
		slow := uint32(e.slow) | long | uint32((q[4]^e.ix)&e.intchk) |
			uint32((q[ln-1]^e.lastx)&e.lastchk) | uint32(e.mapchk)&b2u32(q[1] == markMap) |
			b2u32(sp >= len(st)-1) | b2u32(p+int(ln) > len(b))
		if slow != 0 {
			end := 0
			if q[0] == tagNegBig {
				end = bigEnd(b, p, s.d.intLimit)
			}
			if end == 0 {
				var err error
				if end, _, err = s.skipOne(p, sp-3); err != nil {
					return 0, false
				}
			}
			p = end
			c := cnt - 1
			for c == 0 {
				sp--
				c = st[sp] - 1
			}
			cnt = c
			continue
		}
		x := uint64(binary.BigEndian.Uint32(q[1:5]))&e.tupm | e.add // the terms it opens
		opens := b2u64(x != 0)
		c1 := x | (cnt-1)&-uint64(e.keep)&(opens-1)
		st[sp] = cnt // the free slot: kept only by a push
		z1 := b2u64(c1 == 0)
		c2 := c1 | (st[sp-1]-1)&-z1
		z2 := b2u64(c2 == 0)
		c3 := c2 | (st[sp-2]-1)&-z2
		sp += int(opens&uint64(e.push)) - int(z1) - int(z2)
		for c3 == 0 { // a deeper cascade of closing compounds
			sp--
			c3 = st[sp] - 1
		}
		cnt = c3
		p += int(ln)
	}
	return p, true
}

// floorWindow is the bytes a step reads from its token on.
const floorWindow = 24

// floorState is floorEnd's memory, reused from term to term.
type floorState struct {
	st  [4096]uint64
	pad [2 * floorWindow]byte
}

// floorEnt is what floorEnd knows of a token's first byte.
type floorEnt struct {
	tupm, add uint64 // the terms it opens: (count & tupm) | add
	frame     uint32 // all ones: a frame follows the tag
	base      uint8  // its length besides the frame
	slow      uint8  // a form the step leaves to the general skip
	ix        uint8  // a small integer's flag bit ...
	intchk    uint8  // ... checked against it
	lastchk   uint8  // a mask of the frame's last byte's check ...
	lastx     uint8  // ... against this
	mapchk    uint8  // a list: a map's marker goes to the general skip
	push      uint8  // opens a compound
	keep      uint8  // a term of its compound (not the end marker)
}

var floorTab = func() (t [256]floorEnt) {
	for i := range t {
		t[i] = floorEnt{base: 1, slow: 1, keep: 1}
	}
	t[tagPos4] = floorEnt{base: 5, ix: 0, intchk: 1, keep: 1}
	t[tagNeg4] = floorEnt{base: 5, ix: 1, intchk: 1, keep: 1}
	t[tagAtom] = floorEnt{frame: ^uint32(0), base: 1, keep: 1}
	t[tagBinary] = t[tagAtom]
	t[tagPosBig] = floorEnt{frame: ^uint32(0), base: 2, lastchk: 0xFF, keep: 1}
	t[tagTuple] = floorEnt{tupm: ^uint64(0), base: 5, push: 1, keep: 1}
	t[tagList] = floorEnt{add: 1 << 40, base: 1, mapchk: 1, push: 1, keep: 1}
	t[markEnd] = floorEnt{base: 1}
	t[markImproper] = floorEnt{add: 1, base: 1, keep: 1}
	t[markBitTail] = t[markImproper]
	return t
}()

func b2u32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func b2u64(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// allocFloor is what a plain decode's result alone costs: per term, the
// slots of its compounds and the bytes of its binaries allocated as a
// plain Decode allocates them (one []term.Term, one []byte) and written
// from memory in cache, with no reading of the encoding. BenchmarkArenaShapes
// times it as mode=floor, dec=alloc; its counts are at most the decoded
// term's (no words of bignums, no tails), so it is a floor.
type allocFloor struct {
	sizes [][2]int // slots, bytes
	slots []term.Term
	bytes []byte
}

func newAllocFloor(encs [][]byte) (*allocFloor, error) {
	f := &allocFloor{sizes: make([][2]int, len(encs))}
	slots, bytes := 0, 0 // the most of each a term holds: the sources of the copies
	for i, e := range encs {
		t, err := Decode(e)
		if err != nil {
			return nil, err
		}
		var walk func(t term.Term)
		walk = func(t term.Term) {
			switch t.Kind() {
			case term.KindTuple, term.KindList:
				f.sizes[i][0] += t.Len()
				for _, c := range t.Elems() {
					walk(c)
				}
			case term.KindBinary:
				f.sizes[i][1] += len(t.Bytes())
			}
		}
		walk(t)
		slots, bytes = max(slots, f.sizes[i][0]), max(bytes, f.sizes[i][1])
	}
	f.slots, f.bytes = make([]term.Term, slots), make([]byte, bytes)
	return f, nil
}

var allocSinkSlots []term.Term
var allocSinkBytes []byte

// term allocates and writes term i's memory.
func (f *allocFloor) term(i int) {
	if n := f.sizes[i][0]; n > 0 {
		s := make([]term.Term, n)
		copy(s, f.slots)
		allocSinkSlots = s
	}
	if n := f.sizes[i][1]; n > 0 {
		b := make([]byte, n)
		copy(b, f.bytes)
		allocSinkBytes = b
	}
}
