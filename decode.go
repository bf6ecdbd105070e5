package sext

import (
	"encoding/binary"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/erlsext/sext/term"
)

// decodeState holds what both decoders share: the input, the options, the
// arena the term's memory comes from, and scratch space reused across
// decodes. The two decoders differ only in how they walk compound terms
// (valueRecursive, valueCPS); the leaves are read by both alike.
type decodeState struct {
	buf      []byte
	utf8     bool
	maxDepth int
	depth    int // open compounds, for the recursive decoder
	intLimit int // the most bytes a negative bignum's word count may claim

	*scratchSpace // from the pool, or a Decoder's own
}

// scratchSpace is what a decoder reuses from one decode to the next: a
// pool keeps it for the plain decoders, a Decoder keeps its own. None of
// it ever becomes part of a term, except interned names, which are
// allocated on their own and never reused.
type scratchSpace struct {
	a       arena
	stack   []term.Term // list elements being collected
	used    int         // how much of stack was used since finish
	konts   []kont      // the continuation stack of valueCPS
	outers  [][]byte    // inputs that descending terms interrupt, for valueCPS
	scratch []byte      // unframed bytes of atoms, numbers and nodes
	wide    []byte      // a negative bignum's magnitude
	tbuf    []byte      // descending terms' inner bytes (transient)
	enc     []byte      // the encoding a canonical decode compares with
	names   map[string]string
	bigTmp  big.Int // a float's large integer part
}

var scratchPool = sync.Pool{New: func() any { return new(scratchSpace) }}

// maxPooled bounds what goes back into the pool, so that one huge input
// does not pin its buffers.
const maxPooled = 1 << 16

// newDecodeState returns the state of a recursive decode of b under o,
// with pooled scratch space, building in direct mode.
func newDecodeState(b []byte, o Options) decodeState {
	d := o.state(b, scratchPool.Get().(*scratchSpace), recursive)
	d.a.direct = true
	return d
}

// useArena makes a plain decode of a compound term build it in the
// pooled arena, to be copied out by keep; a leaf, or a small key that
// takes at most keep's two allocations when each part has its own, is
// built in direct mode, with no copy.
func (d *decodeState) useArena() {
	d.a.direct = len(d.buf) == 0 ||
		d.buf[0] != tagTuple && d.buf[0] != tagList && d.buf[0] != tagDesc ||
		directFits(d.buf)
}

// keep ends a plain decode: a term built in the arena is copied out of
// it, and the arena is emptied for the next decode.
func (d *decodeState) keep(t term.Term, err error) (term.Term, error) {
	if err != nil {
		d.a.reset()
		return term.Term{}, err
	}
	return d.a.keep(t), nil
}

// release returns the decoder's scratch space to the pool.
func (d *decodeState) release() {
	d.scratchSpace.release()
	d.scratchSpace = nil
}

// release returns s to the pool.
func (s *scratchSpace) release() {
	if s.finish() {
		scratchPool.Put(s)
	}
}

// finish empties the scratch space, so that it holds on to no terms, and
// reports whether it is small enough to keep.
func (s *scratchSpace) finish() bool {
	s.empty()
	return cap(s.stack) <= maxPooled && cap(s.konts) <= maxPooled && cap(s.scratch) <= maxPooled &&
		cap(s.tbuf) <= maxPooled && cap(s.wide) <= maxPooled && cap(s.enc) <= maxPooled
}

// empty is finish for a Decoder, which keeps its scratch space whatever
// its size.
func (s *scratchSpace) empty() {
	clear(s.stack[:max(s.used, len(s.stack))])
	s.used = 0
	clear(s.outers)
	s.stack, s.konts, s.outers, s.scratch = s.stack[:0], s.konts[:0], s.outers[:0], s.scratch[:0]
	s.tbuf = s.tbuf[:0]
}

// minTermLen is the fewest bytes any encoded term takes, which bounds what
// a tuple's or map's count may claim.
const minTermLen = 2

// count reads the 32-bit element count at b[pos+skip:] of a tuple or map
// whose elements each take at least per bytes.
func (d *decodeState) count(pos, skip, per int) (int, int, error) {
	p := pos + skip
	if p+4 > len(d.buf) {
		return 0, 0, errAt(pos, ErrTruncated, "count")
	}
	n := uint64(binary.BigEndian.Uint32(d.buf[p:]))
	if n*uint64(per) > uint64(len(d.buf)-p-4) {
		return 0, 0, errAt(pos, ErrSize, "count larger than the input can hold")
	}
	return int(n), p + 4, nil
}

// header reads the count of a tuple or map at pos and checks the depth
// limit, with open compounds already open, before it is opened.
func (d *decodeState) header(pos, skip, per, open int) (int, int, error) {
	n, p, err := d.count(pos, skip, per)
	if err == nil {
		err = d.enter(pos, open)
	}
	return n, p, err
}

// enter checks the depth limit before a compound term is opened.
func (d *decodeState) enter(pos, open int) error {
	if open >= d.maxDepth {
		return errAt(pos, ErrDepth, "")
	}
	return nil
}

// takeList moves the elements collected since start into the arena.
func (d *decodeState) takeList(start int) []term.Term {
	n := len(d.stack) - start
	if n == 0 {
		return nil
	}
	elems := d.a.takeTerms(n)
	copy(elems, d.stack[start:])
	// The slots left behind are cleared once, when the decode ends.
	d.used = max(d.used, len(d.stack))
	d.stack = d.stack[:start]
	return elems
}

// tailIsList reports whether the tail marked at p, improper or bitstring,
// is a list (not a map, which starts with the same two bytes as a list
// with a tail), as only a lenient encoder writes it: [a|[b]] is [a,b], and
// the canonical encoding writes it so. The decoders join such a tail's
// elements on in place: a tail joined by term.ListWithTail would be a
// copy outside the arena, holding pointers into it that keep never moves.
func tailIsList(b []byte, p int) bool {
	return (b[p] == markImproper || b[p] == markBitTail) && p+1 < len(b) && b[p+1] == tagList &&
		(p+2 >= len(b) || b[p+2] != markMap)
}

// transient returns n bytes that stay valid until the decode ends: a
// descending term's inner bytes, which the decoders read while the input
// they came from waits. A full buffer is replaced, not grown, so that the
// inner bytes handed out before stay where they are.
func (d *decodeState) transient(n int) []byte {
	if len(d.tbuf)+n > cap(d.tbuf) {
		d.tbuf = make([]byte, 0, max(2*cap(d.tbuf), n, 256))
	}
	s := d.tbuf[len(d.tbuf) : len(d.tbuf)+n : len(d.tbuf)+n]
	d.tbuf = d.tbuf[:len(d.tbuf)+n]
	return s
}

// descInner unframes the descending term at pos and returns the inner
// encoding and the offset after it.
func (d *decodeState) descInner(pos int) ([]byte, int, error) {
	f, err := scanFrame(d.buf, pos+1, 0xFF)
	if err != nil {
		return nil, 0, err
	}
	if f.bits&7 != 0 {
		return nil, 0, errAt(pos, ErrInvalid, "descending term is not whole bytes")
	}
	inner := d.transient(f.units)
	if err := unframe(inner, d.buf, pos+1, f, 0xFF); err != nil {
		return nil, 0, err
	}
	return inner[:f.bits/8], f.end, nil
}

const descDetail = "inside descending term"

// inDesc rewrites an error met inside a descending term's inner bytes to
// point at the term's tag in the enclosing input.
func inDesc(err error, pos int) error {
	if de, ok := err.(*DecodeError); ok {
		detail := de.Detail
		if !strings.HasPrefix(detail, descDetail) {
			detail = descDetail + ": at inner byte " + strconv.Itoa(de.Offset)
			if de.Detail != "" {
				detail += ": " + de.Detail
			}
		}
		return &DecodeError{Offset: pos, Err: de.Err, Detail: detail}
	}
	return err
}

// Decode decodes b, which must hold exactly one term. A small flat key
// takes a path of its own with one allocation; anything else goes to
// DecodeCPS, which never grows the goroutine stack. The decoders give the
// same answers and, on most workloads, take the same time.
func Decode(b []byte) (term.Term, error) { return Options{}.Decode(b) }

// DecodeRecursive decodes b with the recursive decoder.
func DecodeRecursive(b []byte) (term.Term, error) { return Options{}.DecodeRecursive(b) }

// DecodeCPS decodes b with the explicit-continuation-stack decoder.
func DecodeCPS(b []byte) (term.Term, error) { return Options{}.DecodeCPS(b) }

// DecodeNext decodes the term at the front of b and returns it with the
// bytes that follow it.
func DecodeNext(b []byte) (term.Term, []byte, error) { return Options{}.DecodeNext(b) }

// Decode decodes b under o. A small flat key, such as {user, 42,
// <<"alice">>}, takes a path of its own with one allocation; anything
// else goes to DecodeCPS.
func (o Options) Decode(b []byte) (term.Term, error) {
	if t, ok := o.decodeFlat(b); ok {
		return t, nil
	}
	return o.DecodeCPS(b)
}

// DecodeRecursive decodes b under o with the recursive decoder.
func (o Options) DecodeRecursive(b []byte) (term.Term, error) {
	return o.decodeWhole(b, recursive)
}

// DecodeCPS decodes b under o with the continuation-stack decoder.
func (o Options) DecodeCPS(b []byte) (term.Term, error) {
	return o.decodeWhole(b, continuation)
}

// DecodeNext decodes the term at the front of b under o and returns it
// with the bytes that follow it.
func (o Options) DecodeNext(b []byte) (term.Term, []byte, error) {
	t, end, err := o.decodePlain(b, continuation, false)
	if err != nil {
		return term.Term{}, b, err
	}
	return t, b[end:], nil
}

func (o Options) decodeWhole(b []byte, w decodeWalk) (term.Term, error) {
	t, _, err := o.decodePlain(b, w, true)
	return t, err
}

// decodeWalk names the decoder that walks compound terms.
type decodeWalk uint8

const (
	recursive    decodeWalk = iota // valueRecursive
	continuation                   // valueCPS
)

// state returns the state of a decode of b under o, with the scratch
// space s, walked by w: every decode, skip and view starts here.
func (o Options) state(b []byte, s *scratchSpace, w decodeWalk) decodeState {
	// Field by field: a composite literal is built aside and copied in
	// 16-byte moves over its 8- and 1-byte stores, a store-forwarding
	// stall on every decode.
	var d decodeState
	d.buf, d.utf8, d.intLimit, d.scratchSpace = b, o.UTF8Atoms, max(minIntLimit, len(b)), s
	if w == continuation {
		d.maxDepth = o.maxDepthCPS()
	} else {
		d.maxDepth = o.maxDepth()
	}
	return d
}

// decodePlain decodes the term at the front of b, walked by w, into
// memory of its own (the pooled arena's copied out, or direct
// allocations), and returns the offset after it; whole asks that nothing
// follow the term.
func (o Options) decodePlain(b []byte, w decodeWalk, whole bool) (term.Term, int, error) {
	s := scratchPool.Get().(*scratchSpace)
	d := o.state(b, s, w)
	d.useArena()
	t, end, err := d.walk(w, whole)
	t, err = d.keep(t, err)
	t, end, err = o.settleDecode(s, b, t, end, err)
	s.release()
	return t, end, err
}

// decodeReused decodes the term at the front of b, walked by w, into s's
// arena, where it stays until the next decode overwrites it: a Decoder's
// decode, and Unmarshal's when the value keeps none of the term.
func (o Options) decodeReused(s *scratchSpace, b []byte, w decodeWalk, whole bool) (term.Term, int, error) {
	d := o.state(b, s, w)
	s.a.reset()
	s.a.direct = false
	t, end, err := d.walk(w, whole)
	return o.settleDecode(s, b, t, end, err)
}

// walk decodes the term at the front of d.buf with w.
func (d *decodeState) walk(w decodeWalk, whole bool) (t term.Term, end int, err error) {
	if w == continuation {
		t, end, err = d.valueCPS(0)
	} else {
		t, end, err = d.valueRecursive(0)
	}
	if err == nil && whole && end != len(d.buf) {
		err = errAt(end, ErrTrailing, "")
	}
	return t, end, err
}

// settleDecode ends every decode: the canonical check when o asks for it,
// and no term with an error.
func (o Options) settleDecode(s *scratchSpace, b []byte, t term.Term, end int, err error) (term.Term, int, error) {
	if err == nil && o.Canonical {
		return o.settleCanonical(s, b, t, end)
	}
	if err != nil {
		return term.Term{}, 0, err
	}
	return t, end, nil
}

// settleCanonical is settleDecode's canonical check, apart so that the
// rest inlines.
func (o Options) settleCanonical(s *scratchSpace, b []byte, t term.Term, end int) (term.Term, int, error) {
	var err error
	if s.enc, err = o.checkCanonical(s.enc[:0], b[:end], t); err != nil {
		return term.Term{}, 0, err
	}
	return t, end, nil
}

// checkCanonical compares b with the encoding of the term it decoded to,
// which it appends to buf and returns for reuse.
func (o Options) checkCanonical(buf, b []byte, t term.Term) ([]byte, error) {
	enc, err := Options{UTF8Atoms: o.UTF8Atoms, MaxDepth: o.MaxDepth}.Append(buf, t)
	if err != nil {
		return buf, errAt(0, ErrCanonical, err.Error())
	}
	for i := range min(len(b), len(enc)) {
		if b[i] != enc[i] {
			return enc, errAt(i, ErrCanonical, "the encoder writes this term differently")
		}
	}
	if len(b) != len(enc) {
		return enc, errAt(min(len(b), len(enc)), ErrCanonical, "the encoder writes this term differently")
	}
	return enc, nil
}
