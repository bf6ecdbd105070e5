package sext

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/erlsext/sext/term"
)

// decoder holds what both decoders share: the input, the options, the
// arena the term's memory comes from, and scratch space reused across
// decodes. The two decoders differ only in how they walk compound terms
// (decode_recursive.go, decode_cps.go); the leaves are read here.
type decoder struct {
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
	short   [32]shortName // the last names of up to seven bytes, before names
	bigTmp  big.Int       // a float's large integer part
}

var scratchPool = sync.Pool{New: func() any { return new(scratchSpace) }}

// maxPooled bounds what goes back into the pool, so that one huge input
// does not pin its buffers.
const maxPooled = 1 << 16

func newDecoder(b []byte, o Options) decoder {
	d := decoder{buf: b, utf8: o.UTF8Atoms, maxDepth: o.maxDepth(), intLimit: max(1<<16, len(b))}
	d.scratchSpace = scratchPool.Get().(*scratchSpace)
	d.a.direct = true
	return d
}

// useArena makes a plain decode of a compound term build it in the
// pooled arena, to be copied out by keep; a leaf, or a small key that
// takes at most keep's two allocations when each part has its own, is
// built in direct mode, with no copy.
func (d *decoder) useArena() {
	d.a.direct = len(d.buf) == 0 ||
		d.buf[0] != tagTuple && d.buf[0] != tagList && d.buf[0] != tagDesc ||
		flatKey(d.buf)
}

// flatKey reports whether b is a short tuple of leaves and of tuples
// of leaves that takes at most two allocations in direct mode, one for
// each tuple and each non-empty binary, as {user, 42, <<"alice">>} and
// {order, 7, {2024, 5, 1}, 9} do. It reads at most 64 bytes; anything it
// does not recognise goes to the arena.
func flatKey(b []byte) bool {
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
				if p, ok = flatLeaf(b, p, &allocs); !ok {
					return false
				}
			}
		} else if p, ok = flatLeaf(b, p, &allocs); !ok {
			return false
		}
	}
	return allocs <= 2 && p == len(b)
}

// flatLeaf finds the end of a small integer, atom or binary at p for
// flatKey, counting a non-empty binary's allocation. It only finds ends:
// the decode that follows checks the bytes. Each leaf takes two bytes or
// more, so flatKey's loops end within its 64 bytes whatever a count
// claims.
func flatLeaf(b []byte, p int, allocs *int) (int, bool) {
	if p+2 > len(b) {
		return 0, false
	}
	switch b[p] {
	case tagPos4, tagNeg4:
		if _, ok := smallInt64(b, p); ok { // an integer, not a float
			return p + 5, true
		}
	case tagAtom, tagBinary:
		if b[p+1] == emptyFrame {
			return p + 2, true
		}
		if b[p] == tagBinary {
			if *allocs++; *allocs > 2 {
				return 0, false
			}
		}
		if m := ^load64(b, p+1) & unitMarks; m != 0 {
			// Up to seven units: the first missing marker is the
			// stop bit, and the end byte follows its byte.
			return p + 1 + 9*(bits.LeadingZeros64(m)/9)>>3 + 2, true
		}
		f, err := findFrame(b, p+1)
		return f.end, err == nil
	}
	return 0, false
}

// keep ends a plain decode: a term built in the arena is copied out of
// it, and the arena is emptied for the next decode.
func (d *decoder) keep(t term.Term, err error) (term.Term, error) {
	if err != nil {
		d.a.reset()
		return term.Term{}, err
	}
	return d.a.keep(t), nil
}

// release returns the decoder's scratch space to the pool.
func (d *decoder) release() {
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
func (d *decoder) count(pos, skip, per int) (int, int, error) {
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
func (d *decoder) header(pos, skip, per, open int) (int, int, error) {
	n, p, err := d.count(pos, skip, per)
	if err == nil {
		err = d.enter(pos, open)
	}
	return n, p, err
}

// enter checks the depth limit before a compound term is opened.
func (d *decoder) enter(pos, open int) error {
	if open >= d.maxDepth {
		return errAt(pos, ErrDepth, "")
	}
	return nil
}

// takeList moves the elements collected since start into the arena.
func (d *decoder) takeList(start int) []term.Term {
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

// tailIsList reports whether the improper tail marked at p is a list (not
// a map, which starts with the same two bytes as a list with a tail), as
// only a lenient encoder writes it: [a|[b]] is [a,b], and the canonical
// encoding writes it so.
func tailIsList(b []byte, p int) bool {
	return b[p] == markImproper && p+1 < len(b) && b[p+1] == tagList &&
		(p+2 >= len(b) || b[p+2] != markMap)
}

// transient returns n bytes that stay valid until the decode ends: a
// descending term's inner bytes, which the decoders read while the input
// they came from waits. A full buffer is replaced, not grown, so that the
// inner bytes handed out before stay where they are.
func (d *decoder) transient(n int) []byte {
	if len(d.tbuf)+n > cap(d.tbuf) {
		d.tbuf = make([]byte, 0, max(2*cap(d.tbuf), n, 256))
	}
	s := d.tbuf[len(d.tbuf) : len(d.tbuf)+n : len(d.tbuf)+n]
	d.tbuf = d.tbuf[:len(d.tbuf)+n]
	return s
}

// descInner unframes the descending term at pos and returns the inner
// encoding and the offset after it.
func (d *decoder) descInner(pos int) ([]byte, int, error) {
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

// leaf decodes the leaves the decoders' own switch leaves to it: atoms,
// pids, ports and references (and reports an unknown tag).
func (d *decoder) leaf(pos int) (term.Term, int, error) {
	switch d.buf[pos] {
	case tagAtom:
		return d.atom(pos)
	case tagPid:
		return d.pid(pos)
	case tagPort:
		return d.port(pos)
	case tagRef:
		return d.ref(pos)
	}
	return term.Term{}, 0, errAt(pos, ErrTag, "")
}

// unframeScratch reads a frame into d.scratch, which it returns.
func (d *decoder) unframeScratch(pos int, inv byte) ([]byte, frame, error) {
	s, f, err := appendUnframe(d.scratch[:0], d.buf, pos, inv)
	d.scratch = s[:0]
	return s, f, err
}

// bytesFrame reads a frame that must hold whole bytes into d.scratch.
func (d *decoder) bytesFrame(pos int) ([]byte, int, error) {
	hi, n, end := shortFrame(d.buf, pos) // most names: one load
	var lo uint64
	if end == 0 {
		hi, lo, n, end = mediumFrame(d.buf, pos) // bignums of a few words: two
	}
	if end == 0 {
		return d.longBytesFrame(pos)
	}
	return d.frameBytes(hi, lo, n), end, nil
}

// frameBytes writes the n bytes at the top of hi:lo, a frame that
// shortFrame or mediumFrame read, into d.scratch.
func (d *decoder) frameBytes(hi, lo uint64, n int) []byte {
	if cap(d.scratch) < 16 {
		d.scratch = make([]byte, 16, 64)
	}
	s := d.scratch[:16]
	binary.BigEndian.PutUint64(s, hi)
	binary.BigEndian.PutUint64(s[8:], lo)
	return s[:n]
}

// longBytesFrame is bytesFrame for a frame shortFrame has refused.
func (d *decoder) longBytesFrame(pos int) ([]byte, int, error) {
	s, f, err := d.unframeScratch(pos, 0)
	if err != nil {
		return nil, 0, err
	}
	if f.bits&7 != 0 {
		return nil, 0, errAt(pos, ErrInvalid, "bitstring where bytes are expected")
	}
	return s[:f.bits/8], f.end, nil
}

func (d *decoder) binary(pos int) (term.Term, int, error) {
	if pos+1 < len(d.buf) && d.buf[pos+1] == emptyFrame {
		return term.Binary(nil), pos + 2, nil
	}
	if x, n, end := shortFrame(d.buf, pos+1); end > 0 {
		data := d.a.takeBytes(n)
		for i := range data {
			data[i] = byte(x >> 56)
			x <<= 8
		}
		return term.Binary(data), end, nil
	}
	if !d.a.direct {
		// One pass into scratch, then a copy: cheaper than two passes,
		// and the copy is short beside the unframing.
		s, f, err := appendUnframe(d.scratch[:0], d.buf, pos+1, 0)
		d.scratch = s[:0]
		if err != nil {
			return term.Term{}, 0, err
		}
		if f.units == 0 {
			return term.Binary(nil), f.end, nil
		}
		data := d.a.takeBytes(f.units)
		copy(data, s)
		return term.Bitstring(data, f.bits), f.end, nil
	}
	// Direct mode, a binary on its own: unframed straight into its bytes.
	f, err := scanFrame(d.buf, pos+1, 0)
	if err != nil {
		return term.Term{}, 0, err
	}
	if f.units == 0 {
		return term.Binary(nil), f.end, nil
	}
	data := d.a.takeBytes(f.units)
	if err := unframe(data, d.buf, pos+1, f, 0); err != nil {
		return term.Term{}, 0, err
	}
	return term.Bitstring(data, f.bits), f.end, nil
}

func (d *decoder) atom(pos int) (term.Term, int, error) {
	var short [8]byte
	var name []byte
	x, n, end := shortFrame(d.buf, pos+1)
	if end > 0 {
		if x &= ^uint64(0) << (64 - 8*n); x&0x8080808080808080 == 0 {
			return term.Atom(d.shortName(x, n)), end, nil // ASCII: Latin-1 and UTF-8 alike
		}
		binary.BigEndian.PutUint64(short[:], x)
		name = short[:n]
	} else {
		var err error
		if name, end, err = d.longBytesFrame(pos + 1); err != nil {
			return term.Term{}, 0, err
		}
	}
	t, err := d.atomFromBytes(name, d.utf8)
	if err != nil {
		return term.Term{}, 0, errAt(pos, ErrInvalid, err.Error())
	}
	return t, end, nil
}

// node reads a pid's, port's or reference's node name, in Latin-1.
func (d *decoder) node(pos int) (string, int, error) {
	name, end, err := d.bytesFrame(pos)
	if err != nil {
		return "", 0, err
	}
	return d.latin1(name), end, nil
}

// creation reads a creation: one byte up to 3, or 255 and 32 bits.
func (d *decoder) creation(pos int) (uint32, int, error) {
	if pos >= len(d.buf) {
		return 0, 0, errAt(pos, ErrTruncated, "creation")
	}
	switch c := d.buf[pos]; {
	case c <= 3:
		return uint32(c), pos + 1, nil
	case c == 0xFF:
		if pos+5 > len(d.buf) {
			return 0, 0, errAt(pos, ErrTruncated, "creation")
		}
		return binary.BigEndian.Uint32(d.buf[pos+1:]), pos + 5, nil
	}
	return 0, 0, errAt(pos, ErrInvalid, "creation")
}

func (d *decoder) pid(pos int) (term.Term, int, error) {
	node, p, err := d.node(pos + 1)
	if err != nil {
		return term.Term{}, 0, err
	}
	if p+8 > len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "pid")
	}
	id, serial := binary.BigEndian.Uint32(d.buf[p:]), binary.BigEndian.Uint32(d.buf[p+4:])
	c, end, err := d.creation(p + 8)
	if err != nil {
		return term.Term{}, 0, err
	}
	return term.Pid{Node: node, ID: id, Serial: serial, Creation: c}.Term(), end, nil
}

func (d *decoder) port(pos int) (term.Term, int, error) {
	node, p, err := d.node(pos + 1)
	if err != nil {
		return term.Term{}, 0, err
	}
	if p < len(d.buf) && d.buf[p] == portLong {
		if p+14 > len(d.buf) {
			return term.Term{}, 0, errAt(pos, ErrTruncated, "port")
		}
		if d.buf[p+9] != 0xFF {
			return term.Term{}, 0, errAt(p+9, ErrInvalid, "port creation")
		}
		id, c := binary.BigEndian.Uint64(d.buf[p+1:]), binary.BigEndian.Uint32(d.buf[p+10:])
		return term.Port{Node: node, ID: id, Creation: c}.Term(), p + 14, nil
	}
	if p+4 > len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "port")
	}
	id := binary.BigEndian.Uint32(d.buf[p:])
	c, end, err := d.creation(p + 4)
	if err != nil {
		return term.Term{}, 0, err
	}
	return term.Port{Node: node, ID: uint64(id), Creation: c}.Term(), end, nil
}

func (d *decoder) ref(pos int) (term.Term, int, error) {
	node, p, err := d.node(pos + 1)
	if err != nil {
		return term.Term{}, 0, err
	}
	body, end, err := d.bytesFrame(p)
	if err != nil {
		return term.Term{}, 0, err
	}
	var c uint32
	switch {
	case len(body) > 0 && body[0] <= 3:
		c, body = uint32(body[0]), body[1:]
	case len(body) >= 5 && body[0] == 0xFF:
		c, body = binary.BigEndian.Uint32(body[1:]), body[5:]
	default:
		return term.Term{}, 0, errAt(p, ErrInvalid, "reference creation")
	}
	if len(body) == 0 || len(body)%4 != 0 {
		return term.Term{}, 0, errAt(p, ErrInvalid, "reference ids")
	}
	ids := make([]uint32, len(body)/4)
	for i := range ids {
		ids[i] = binary.BigEndian.Uint32(body[4*i:])
	}
	return term.Ref{Node: node, Creation: c, IDs: ids}.Term(), end, nil
}
