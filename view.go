package sext

import (
	"encoding/binary"
	"errors"

	"strconv"

	"unsafe"

	"github.com/erlsext/sext/term"
)

// Errors of a View's accessors, besides the decoders' own. Both come
// inside a *DecodeError that gives the offset of the term asked.
var (
	// ErrKind: the term is not of the kind the accessor reads, such as
	// Int64 of an atom, or Elem of a binary.
	ErrKind = errors.New("wrong kind of term")
	// ErrRange: a value that does not fit the accessor's type (Int64 of
	// an integer beyond int64), or an index past the last element.
	ErrRange = errors.New("value out of range")
)

// A View reads the parts of an encoded term in place, without building
// terms: its kind, a tuple's arity, element i, an integer as int64, a
// float, a binary's bytes or an atom's name appended to the caller's
// buffer. It allocates nothing, which makes it the way to pick one field
// out of many keys, as a store's filter does:
//
//	v := sext.NewView(key)            // {user, 42, <<"alice">>}
//	id, err := v.Elem(1)              // a View of 42
//	n, err := id.Int64()              // 42
//
// A View is a position in the caller's bytes, which it keeps without
// copying; the bytes must not change while it is used. Each accessor
// checks the bytes it reads as the decoders do, and reports malformed
// bytes with the decoders' *DecodeError, offset and sentinel: what no
// accessor reads is not checked (End and Next check the whole term). A
// View is a small value; pass it by value.
type View struct {
	// Four words, the most the compiler keeps in registers: the bytes
	// are a pointer and a length (no capacity), and the depth, the limit
	// and the atom mode share one word. A larger View was copied through
	// the stack at every call, which cost more than reading a key.
	p    *byte // the bytes given to NewView: unsafe.Slice(p, n)
	n    int
	pos  int
	meta uint64 // depth | limit<<32 | utf8<<63; see depth, maxDepth, utf8
}

const (
	metaDepth = 1<<32 - 1       // compounds around the term, for the depth limit
	metaLimit = 1<<31 - 1       // the depth limit, shifted by 32; 0 for the default
	metaUTF8  = uint64(1) << 63 // Options.UTF8Atoms
)

// NewView returns a View of the term that starts b, with the zero Options.
func NewView(b []byte) View { return View{p: unsafe.SliceData(b), n: len(b)} }

// View returns a View of the term that starts b, read under o: UTF8Atoms
// for atom names and MaxDepth for skipping nested terms.
func (o Options) View(b []byte) View {
	v := NewView(b)
	v.meta = uint64(min(o.maxDepth(), metaLimit)) << 32
	if o.UTF8Atoms {
		v.meta |= metaUTF8
	}
	return v
}

// bytes returns the bytes given to NewView.
func (v View) bytes() []byte { return unsafe.Slice(v.p, v.n) }

// depth is the number of compounds around the term.
func (v View) depth() int { return int(v.meta & metaDepth) }

// deeper returns v one compound deeper. The depth never passes the
// limit, itself below 2^31, so it cannot carry into the limit's bits.
func (v View) deeper() View { v.meta++; return v }

// utf8 reports whether atoms are read as UTF-8.
func (v View) utf8() bool { return v.meta&metaUTF8 != 0 }

// maxDepth is the depth limit.
func (v View) maxDepth() int {
	if l := int(v.meta >> 32 & metaLimit); l > 0 {
		return l
	}
	return DefaultMaxDepth
}

// Offset returns where the viewed term starts in the bytes given to
// NewView (or, inside a descending term, in the inner bytes).
func (v View) Offset() int { return v.pos }

// options returns the Options v reads under.
func (v View) options() Options { return Options{UTF8Atoms: v.utf8(), MaxDepth: v.maxDepth()} }

func (v View) skipper() skipper { return newSkipper(v.bytes(), v.options()) }

func (v View) at(pos int) View { v.pos = pos; return v }

func (v View) kindErr(want string) error {
	k, err := v.Kind()
	if err != nil {
		return err
	}
	return errAt(v.pos, ErrKind, k.String()+", not "+want)
}

// Kind returns the kind of the term. It reads the tag, and for a number
// the flag that tells an integer from a float.
func (v View) Kind() (term.Kind, error) {
	v, err := v.unwrap()
	if err != nil {
		return 0, err
	}
	b, pos := v.bytes(), v.pos
	if pos >= len(b) {
		return 0, errAt(pos, ErrTruncated, "")
	}
	switch b[pos] {
	case tagPos4, tagNeg4:
		if pos+5 > len(b) {
			return 0, errAt(pos, ErrTruncated, "number")
		}
		if b[pos+4]&1 == 0 == (b[pos] == tagPos4) {
			return term.KindInt, nil
		}
		return term.KindFloat, nil
	case tagPosBig, tagNegBig:
		s := v.skipper()
		defer s.release()
		n, err := s.bigParts(pos)
		if err != nil {
			return 0, err
		}
		float, err := n.isFloat(b)
		if err != nil {
			return 0, err
		}
		if float {
			return term.KindFloat, nil
		}
		return term.KindInt, nil
	case tagAtom:
		return term.KindAtom, nil
	case tagBinary:
		return term.KindBinary, nil
	case tagPid:
		return term.KindPid, nil
	case tagPort:
		return term.KindPort, nil
	case tagRef:
		return term.KindRef, nil
	case tagTuple:
		return term.KindTuple, nil
	case tagList:
		if pos+1 < len(b) && b[pos+1] == markMap {
			return term.KindMap, nil
		}
		return term.KindList, nil
	case tagDesc:
		return term.KindDesc, nil
	}
	return 0, errAt(pos, ErrTag, "")
}

// End returns the offset just past the term, having checked all of it as
// Decode would.
func (v View) End() (int, error) {
	s := v.skipper()
	end, _, err := s.skip(v.pos, v.depth())
	s.release()
	return end, err
}

// Next returns a View of the term that follows this one in the same
// bytes, such as the next element of a tuple.
func (v View) Next() (View, error) {
	end, err := v.End()
	if err != nil {
		return View{}, err
	}
	return v.at(end), nil
}

// Raw returns the term's own encoding: the bytes from its start to its
// end, a subslice of the bytes given to NewView.
func (v View) Raw() ([]byte, error) {
	end, err := v.End()
	if err != nil {
		return nil, err
	}
	return v.bytes()[v.pos:end:end], nil
}

// Len returns the number of elements of a tuple or a list (without an
// improper tail), or of entries of a map. For a list it walks the
// elements.
func (v View) Len() (int, error) {
	v, err := v.unwrap()
	if err != nil {
		return 0, err
	}
	b, pos := v.bytes(), v.pos
	if pos < len(b) && b[pos] == tagTuple || pos+1 < len(b) && b[pos] == tagList && b[pos+1] == markMap {
		n, _, err := v.header()
		return n, err
	}
	if pos < len(b) && b[pos] == tagList {
		n := 0
		for e, err := v.first(); ; e, err = e.nextElem() {
			if err != nil {
				return 0, err
			}
			if e.pos < 0 {
				return n, nil
			}
			n++
		}
	}
	return 0, v.kindErr("a tuple, list or map")
}

// header reads a tuple's arity or a map's size, with the decoders' checks.
func (v View) header() (int, int, error) {
	d := v.options().state(v.bytes(), nil, recursive)
	if v.bytes()[v.pos] == tagTuple {
		return d.header(v.pos, 1, minTermLen, v.depth())
	}
	return d.header(v.pos, 2, 2*minTermLen, v.depth())
}

// Elem returns a View of element i (from 0) of a tuple or a list. It
// skips, and checks, the elements before it.
func (v View) Elem(i int) (View, error) {
	if p := quickElem(v.bytes(), v.pos, v.depth(), v.maxDepth(), v.utf8(), i); p > 0 {
		return v.at(p).deeper(), nil
	}
	return v.elem(i)
}

// elem is Elem for what quickElem leaves.
func (v View) elem(i int) (View, error) {
	v, err := v.unwrap()
	if err != nil {
		return View{}, err
	}
	b, pos := v.bytes(), v.pos
	if pos < len(b) && b[pos] == tagTuple {
		n, p, err := v.header()
		if err != nil {
			return View{}, err
		}
		if i < 0 || i >= n {
			return View{}, errAt(pos, ErrRange, "element "+strconv.Itoa(i)+" of a tuple of "+strconv.Itoa(n))
		}
		e := v.at(p)
		e = e.deeper()
		if i == 0 {
			return e, nil
		}
		s := v.skipper()
		for range i {
			if p, _, err = s.skip(p, e.depth()); err != nil {
				break
			}
		}
		s.release()
		if err != nil {
			return View{}, err
		}
		return e.at(p), nil
	}
	if pos+1 < len(b) && b[pos] == tagList && b[pos+1] != markMap {
		e, err := v.first()
		for k := 0; err == nil && e.pos >= 0; k++ {
			if k == i {
				return e, nil
			}
			e, err = e.nextElem()
		}
		if err != nil {
			return View{}, err
		}
		return View{}, errAt(pos, ErrRange, "element "+strconv.Itoa(i)+" of a shorter list")
	}
	return View{}, v.kindErr("a tuple or list")
}

// quickElem finds element i of a well-formed tuple at pos whose elements
// before it are small integers, atoms or binaries: the commonest keys,
// read without setting up a skipper. Anything else, errors included, is
// left to the general path (0). It takes a View's fields rather than the
// View, which the compiler would copy through the stack.
func quickElem(b []byte, pos, depth, limit int, utf8 bool, i int) int {
	if pos+5 > len(b) || b[pos] != tagTuple || depth >= limit {
		return 0
	}
	n := uint64(binary.BigEndian.Uint32(b[pos+1:]))
	if n*minTermLen > uint64(len(b)-pos-5) || i < 0 || uint64(i) >= n {
		return 0
	}
	p := pos + 5
	for range i {
		if p >= len(b) { // an element before i ran to the end: the count lied
			return 0
		}
		// The commonest leaves inline, then every leaf the reader takes.
		if p+5 <= len(b) && b[p] == tagPos4 && b[p+4]&1 == 0 {
			p += 5
			continue
		}
		if b[p] == tagAtom && !utf8 {
			if end := shortWholeFrame(b, p+1); end > 0 {
				p = end
				continue
			}
		}
		end, _ := leafEnd(b, p, utf8, minIntLimit)
		if end == 0 && b[p] == tagDesc && depth+1 < limit {
			end, _, _ = quickDesc(b, p, utf8)
		}
		if end == 0 {
			return 0
		}
		p = end
	}
	return p
}

// first returns the first element of the list v, or a View at -1 when
// there is none.
func (v View) first() (View, error) {
	d := v.options().state(nil, nil, recursive)
	if err := d.enter(v.pos, v.depth()); err != nil {
		return View{}, err
	}
	e := v.at(v.pos + 1)
	e = e.deeper()
	if e.pos < len(v.bytes()) && (v.bytes()[e.pos] == markEnd || v.bytes()[e.pos] == markBitTail) {
		e.pos = -1
	}
	return e, nil
}

// nextElem returns the list element after e, or a View at -1 after the
// last.
func (e View) nextElem() (View, error) {
	end, err := e.End()
	if err != nil {
		return View{}, err
	}
	if end >= len(e.bytes()) {
		return View{}, errAt(end, ErrTruncated, "list")
	}
	switch e.bytes()[end] {
	case markEnd, markImproper, markBitTail:
		return e.at(-1), nil
	}
	return e.at(end), nil
}

// Tail returns a View of an improper list's tail and true, or false for a
// proper list.
func (v View) Tail() (View, bool, error) {
	v, err := v.unwrap()
	if err != nil {
		return View{}, false, err
	}
	b := v.bytes()
	if v.pos+1 >= len(b) || b[v.pos] != tagList || b[v.pos+1] == markMap {
		return View{}, false, v.kindErr("a list")
	}
	e, err := v.first()
	if err != nil {
		return View{}, false, err
	}
	p := v.pos + 1 // where the marker after the last element is
	for e.pos >= 0 {
		if p, err = e.End(); err != nil {
			return View{}, false, err
		}
		if e, err = e.nextElem(); err != nil {
			return View{}, false, err
		}
	}
	if b[p] == markEnd {
		return View{}, false, nil
	}
	return v.at(p + 1).deeper(), true, nil
}

// Entry returns Views of the key and the value of entry i (from 0) of a
// map, in the order of the bytes (key order, for the encoder's bytes).
func (v View) Entry(i int) (key, value View, err error) {
	v, err = v.unwrap()
	if err != nil {
		return View{}, View{}, err
	}
	b, pos := v.bytes(), v.pos
	if pos+1 >= len(b) || b[pos] != tagList || b[pos+1] != markMap {
		return View{}, View{}, v.kindErr("a map")
	}
	n, p, err := v.header()
	if err != nil {
		return View{}, View{}, err
	}
	if i < 0 || i >= n {
		return View{}, View{}, errAt(pos, ErrRange, "entry "+strconv.Itoa(i)+" of a map of "+strconv.Itoa(n))
	}
	e := v.at(p)
	e = e.deeper()
	for k := 0; ; k++ {
		if key = e; k == i {
			break
		}
		if e, err = e.Next(); err == nil {
			e, err = e.Next()
		}
		if err != nil {
			return View{}, View{}, err
		}
	}
	value, err = key.Next()
	return key, value, err
}

// unwrap returns v moved to where its term really starts: a list of no
// elements and a bitstring tail is its tail, which the encoder never
// writes, the decoders read, and hostile bytes can nest. Every accessor
// reads through it, so that each agrees with Kind.
func (v View) unwrap() (View, error) {
	for v.pos+1 < len(v.bytes()) && v.bytes()[v.pos] == tagList && v.bytes()[v.pos+1] == markBitTail {
		if v.depth() >= v.maxDepth() {
			return View{}, errAt(v.pos, ErrDepth, "")
		}
		v.pos += 2
		v = v.deeper()
	}
	return v, nil
}
