package sext

import (
	"math/big"
	"math/bits"
	"unsafe"

	"github.com/erlsext/sext/term"
)

// arena is where a decode takes the memory of the term it builds: slots
// for the children of tuples, lists, maps and descending terms, bignums'
// words, and binary bytes. It hands them out from chunks it
// keeps from one decode to the next (a pool keeps the plain decoders'
// arenas, a Decoder its own), so decoding into it allocates nothing once
// its chunks are large enough.
//
// A plain decode must not give out memory that a later decode reuses, so
// it ends with keep: two allocations of exactly the size used, one for
// the slots, one (which holds no pointers) for the words and bytes, and a
// copy of the term into them. A term's memory is known exactly only once
// it is built, which is why the copy is cheaper than a pre-pass to size
// the arena (measured: docs/PERFORMANCE.md): it moves memory and rewrites
// pointers, where a pre-pass parses every byte a second time.
//
// In direct mode (a root that is a leaf, PartialDecode) every request is
// its own allocation, of exactly its size, and keep has nothing to do.
type arena struct {
	direct bool
	terms  chunks[term.Term]
	words  chunks[big.Word]
	bytes  chunks[byte]
}

// wordBytes is the size of a big.Word.
const wordBytes = bits.UintSize / 8

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
		if c.n > 0 {
			c.old = append(c.old, c.cur[:c.n])
			c.before += c.n
		}
		c.cur, c.n = make([]T, max(2*len(c.cur), n, minChunk)), 0
	}
	s := c.cur[c.n : c.n+n : c.n+n]
	c.n += n
	return s
}

// used returns how many elements were handed out since reset.
func (c *chunks[T]) used() int { return c.before + c.n }

// reset takes back everything handed out, keeping the current chunk,
// the largest, unless it holds more than limit elements. What was handed
// out is not cleared: its pointers lead only into the arena itself, to
// interned names, and to pids, ports and references, which are small.
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

// takeTerms returns n slots for one compound's children.
func (a *arena) takeTerms(n int) []term.Term {
	if a.direct {
		return make([]term.Term, n)
	}
	return a.terms.take(n)
}

// takeBytes returns n bytes for a binary.
func (a *arena) takeBytes(n int) []byte {
	if a.direct {
		return make([]byte, n)
	}
	return a.bytes.take(n)
}

// takeWords returns n words for a bignum's magnitude.
func (a *arena) takeWords(n int) []big.Word {
	if a.direct {
		return make([]big.Word, n)
	}
	return a.words.take(n)
}

// maxKept bounds the chunks an arena keeps between decodes, in elements
// (slots: 1 MB), so that one huge input does not pin its memory.
const maxKept = 1 << 16

// reset takes back everything handed out, for the next decode.
func (a *arena) reset() {
	a.terms.reset(maxKept)
	a.words.reset(maxKept)
	a.bytes.reset(maxKept * 8)
}

// keep copies t, built in the arena, into memory of its own: one slab
// of slots, and one of words then bytes. Only memory the term uses is
// copied; the arena's chunks are then free for the next decode.
func (a *arena) keep(t term.Term) term.Term {
	t = a.copyOut(t)
	a.reset()
	return t
}

// copyOut is keep without the reset: the arena still holds t.
func (a *arena) copyOut(t term.Term) term.Term {
	if a.direct {
		return t
	}
	nt, nw, nby := a.terms.used(), a.words.used(), a.bytes.used()
	var slab []term.Term
	if nt > 0 {
		slab = make([]term.Term, nt)
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

// mover rewrites the pointers of terms copied out of an arena. A
// pointer is placed by its address alone, whatever its term's kind:
// into a current chunk (start x0, x0+xn handed out), it moves to the
// same offset from x, where that chunk's copy starts; into an earlier
// chunk, which an arena has only while its chunks grow, relocOld finds it.
type mover struct {
	a                  *arena
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
func (m *mover) move(x term.Term) term.Term {
	switch p := uintptr(termPtr(x)); {
	case p-m.t0 < m.tn:
		setTermPtr(&x, unsafe.Add(m.t, p-m.t0))
	case p-m.b0 < m.bn:
		setTermPtr(&x, unsafe.Add(m.b, p-m.b0))
	case p-m.w0 < m.wn:
		setTermPtr(&x, unsafe.Add(m.w, p-m.w0))
	case m.old && p != 0:
		m.moveOld(&x)
	}
	return x
}

// moveOld moves *x's pointer if it points into an earlier chunk.
func (m *mover) moveOld(x *term.Term) {
	p := termPtr(*x)
	q, ok := m.a.terms.relocOld(p, m.slab)
	if !ok {
		q, ok = m.a.bytes.relocOld(p, m.bytes)
	}
	if !ok {
		q, ok = m.a.words.relocOld(p, m.words)
	}
	if ok {
		setTermPtr(x, q)
	}
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
	if wordBytes == 8 {
		for i := range w {
			w[i] = big.Word(wordAt(mag, i))
		}
		return
	}
	for i := range w {
		var x big.Word
		lo := len(mag) - i*wordBytes
		for j := max(0, lo-wordBytes); j < lo; j++ {
			x = x<<8 | big.Word(mag[j])
		}
		w[i] = x
	}
}
