package term

import (
	"math/big"
	"unsafe"
)

// An Arena hands out the memory of the terms a decoder builds (slots for
// the children of tuples, lists, maps and descending terms, a bignum's
// words, a binary's bytes) from chunks it keeps from one use to the next,
// so that building terms in it allocates nothing once its chunks are
// large enough. Terms built in an Arena are valid until its Reset; Clone
// copies one out into memory of its own.
//
// The zero Arena is ready to use. An Arena is not safe for concurrent
// use.
type Arena struct {
	terms chunks[Term]
	words chunks[big.Word]
	bytes chunks[byte]
}

// chunks hands out slices of T from a current chunk, opening a bigger
// one when it is full; earlier chunks stay valid until reset.
type chunks[T any] struct {
	cur    []T   // the current chunk, at full length
	n      int   // how much of cur is handed out
	old    [][]T // earlier chunks, each cut to what was handed out
	before int   // the elements of old
}

// minChunk is the smallest chunk opened, in elements.
const minChunk = 64

func (c *chunks[T]) take(n int) []T {
	if c.n+n > len(c.cur) {
		c.more(n)
	}
	s := c.cur[c.n : c.n+n : c.n+n]
	c.n += n
	return s
}

// more opens a chunk with room for n, kept apart so that take, on every
// node of a decode, inlines.
func (c *chunks[T]) more(n int) {
	if c.n > 0 {
		c.old = append(c.old, c.cur[:c.n])
		c.before += c.n
	}
	c.cur, c.n = make([]T, max(2*len(c.cur), n, minChunk)), 0
}

// used returns how many elements were handed out since reset.
func (c *chunks[T]) used() int { return c.before + c.n }

// reset takes back everything handed out, keeping the current chunk,
// the largest, unless it holds more than limit elements. What was handed
// out is not cleared: its pointers lead only into the arena itself, to
// names, and to pids, ports and references, which are small.
func (c *chunks[T]) reset(limit int) {
	clear(c.old)
	c.old, c.n, c.before = c.old[:0], 0, 0
	if len(c.cur) > limit {
		c.cur = nil
	}
}

// relocOld finds where p lands, if it points into one of c's earlier
// chunks, when the chunks are copied one after another to base.
func (c *chunks[T]) relocOld(p, base unsafe.Pointer) (unsafe.Pointer, bool) {
	size := unsafe.Sizeof(*new(T))
	at := uintptr(0) // bytes of the copy before the chunk looked at
	for _, o := range c.old {
		if off := uintptr(p) - uintptr(unsafe.Pointer(unsafe.SliceData(o))); off < uintptr(len(o))*size {
			return unsafe.Add(base, at+off), true
		}
		at += uintptr(len(o)) * size
	}
	return nil, false
}

// copyTo copies everything handed out, chunk after chunk, to dst.
func (c *chunks[T]) copyTo(dst []T) {
	k := 0
	for _, o := range c.old {
		k += copy(dst[k:], o)
	}
	copy(dst[k:], c.cur[:c.n])
}

// Terms returns n zeroed or reused slots for one compound's children:
// their contents are whatever a term built before the last Reset left,
// to be overwritten.
func (a *Arena) Terms(n int) []Term { return a.terms.take(n) }

// Bytes returns n bytes for a binary, with stale contents likewise.
func (a *Arena) Bytes(n int) []byte { return a.bytes.take(n) }

// Words returns n words for a bignum's magnitude, likewise.
func (a *Arena) Words(n int) []big.Word { return a.words.take(n) }

// maxKept bounds the chunks an Arena keeps across Reset, in elements
// (slots: 1 MB), so that one huge term does not pin its memory.
const maxKept = 1 << 16

// Reset takes back everything handed out: the terms built in a are
// invalid from then on.
func (a *Arena) Reset() {
	a.terms.reset(maxKept)
	a.words.reset(maxKept)
	a.bytes.reset(maxKept * 8)
}

// Clone returns a copy of t, built in a, in memory of its own that a
// later Reset does not touch: two allocations, one for every slot handed
// out since the last Reset and one for the words and bytes, with t's
// pointers moved into them. A term not built in a comes back as it is.
func (a *Arena) Clone(t Term) Term {
	nt, nw, nby := a.terms.used(), a.words.used(), a.bytes.used()
	var slab []Term
	if nt > 0 {
		slab = make([]Term, nt)
	}
	var words []big.Word
	var bytes []byte
	if n := nw + (nby+wordBytes-1)/wordBytes; n > 0 {
		mem := make([]big.Word, n)
		words = mem[:nw]
		a.words.copyTo(words)
		bytes = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mem))), n*wordBytes)[nw*wordBytes:]
		a.bytes.copyTo(bytes)
	}
	m := mover{a: a, old: len(a.terms.old)+len(a.words.old)+len(a.bytes.old) > 0,
		slab:  unsafe.Pointer(unsafe.SliceData(slab)),
		words: unsafe.Pointer(unsafe.SliceData(words)), bytes: unsafe.Pointer(unsafe.SliceData(bytes))}
	m.t0, m.tn, m.t = span(&a.terms, m.slab)
	m.w0, m.wn, m.w = span(&a.words, m.words)
	m.b0, m.bn, m.b = span(&a.bytes, m.bytes)
	// Each slot is written once, moved as it is copied.
	if !m.old {
		for i, x := range a.terms.cur[:a.terms.n] {
			slab[i] = m.moveCur(x)
		}
		return m.moveCur(t)
	}
	k := 0
	for _, o := range a.terms.old {
		for _, x := range o {
			slab[k] = m.move(x)
			k++
		}
	}
	for _, x := range a.terms.cur[:a.terms.n] {
		slab[k] = m.move(x)
		k++
	}
	return m.move(t)
}

// wordBytes is the size of a big.Word.
const wordBytes = int(unsafe.Sizeof(big.Word(0)))

// mover rewrites the pointers of terms copied out of an arena. A
// pointer is placed by its address alone, whatever its term's kind:
// into a current chunk (start x0, x0+xn handed out), it moves to the
// same offset from x, where that chunk's copy starts; into an earlier
// chunk, which an arena has only while its chunks grow, relocOld finds it.
// A small integer's or a float's pointer is a kind mark, in no chunk.
type mover struct {
	a                  *Arena
	old                bool // the arena has earlier chunks
	t0, w0, b0         uintptr
	tn, wn, bn         uintptr
	t, w, b            unsafe.Pointer
	slab, words, bytes unsafe.Pointer // where slots, words and bytes are copied to
}

// span returns where c's current chunk starts, how many bytes of it were
// handed out, and where its copy starts when c is copied to base.
func span[T any](c *chunks[T], base unsafe.Pointer) (start, n uintptr, to unsafe.Pointer) {
	size := unsafe.Sizeof(*new(T))
	return uintptr(unsafe.Pointer(unsafe.SliceData(c.cur))), uintptr(c.n) * size, unsafe.Add(base, uintptr(c.before)*size)
}

// move returns x with its pointer moved if it points into the arena.
func (m *mover) move(x Term) Term {
	switch p := uintptr(x.r.Ptr); {
	case p-m.t0 < m.tn:
		x.r.Ptr = unsafe.Add(m.t, p-m.t0)
	case p-m.b0 < m.bn:
		x.r.Ptr = unsafe.Add(m.b, p-m.b0)
	case p-m.w0 < m.wn:
		x.r.Ptr = unsafe.Add(m.w, p-m.w0)
	case m.old && p != 0:
		m.moveOld(&x)
	}
	return x
}

// moveCur is move for an arena without earlier chunks, with no branch:
// the slots of a decoded term point at random into the three chunks or
// at kind marks, which no branch predicts.
func (m *mover) moveCur(x Term) Term {
	p := uintptr(x.r.Ptr)
	i := b2u(p-m.t0 < m.tn) | b2u(p-m.b0 < m.bn)<<1 | b2u(p-m.w0 < m.wn)*3 // the chunks are disjoint
	to := [4]unsafe.Pointer{x.r.Ptr, m.t, m.b, m.w}
	off := [4]uintptr{0, p - m.t0, p - m.b0, p - m.w0}
	x.r.Ptr = unsafe.Add(to[i&3], off[i&3])
	return x
}

// b2u is 1 for true, else 0; the compiler writes it as a SETcc.
func b2u(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}

// moveOld moves x's pointer if it points into an earlier chunk.
func (m *mover) moveOld(x *Term) {
	p := x.r.Ptr
	q, ok := m.a.terms.relocOld(p, m.slab)
	if !ok {
		q, ok = m.a.bytes.relocOld(p, m.bytes)
	}
	if !ok {
		q, ok = m.a.words.relocOld(p, m.words)
	}
	if ok {
		x.r.Ptr = q
	}
}
