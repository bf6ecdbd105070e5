package sext

import (
	"encoding/binary"

	"github.com/erlsext/sext/term"
	"slices"
	"unicode/utf8"
)

// appendKey writes t as appendTerm would, taking a short way for a
// tuple, the shape of most keys: appendTupleHead writes its header and
// leading leaves, and only what is left takes the general path.
func (o *Options) appendKey(dst []byte, t term.Term, prefix bool) ([]byte, error) {
	out, rest, ok := appendTupleHead(dst, t, prefix)
	if ok && len(rest) == 0 {
		return out, nil
	}
	e := o.encodeState()
	e.prefix = prefix
	var err error
	if ok {
		e.depth++ // the tuple appendTupleHead opened
		for _, x := range rest {
			if out, err = e.appendTerm(out, x); err != nil {
				break
			}
		}
	} else {
		out, err = e.appendTerm(dst, t)
	}
	if prefix && err == errWildcard {
		err = nil
	}
	return settle(dst, out, err)
}

// appendTupleHead writes the header of t, a tuple of at most maxTupleHead
// elements, and its leading elements that are small non-negative
// integers, short ASCII atoms and short binaries, as appendTerm would,
// and returns the elements left. It writes them with one growth check
// and no call. In a prefix walk it stops at a wildcard, leaving nothing:
// what it wrote is the prefix. ok is false, and nothing is written, for
// any other t.
func appendTupleHead(dst []byte, t term.Term, prefix bool) (_ []byte, rest []term.Term, ok bool) {
	if t.Kind() != term.KindTuple {
		return dst, nil, false
	}
	elems := t.Elems()
	if len(elems) > maxTupleHead {
		return dst, nil, false
	}
	dst = slices.Grow(dst, 5+headLeafRoom*len(elems))
	n := len(dst)
	b := dst[:cap(dst)]
	b[n] = tagTuple
	binary.BigEndian.PutUint32(b[n+1:], uint32(len(elems)))
	n += 5
	for i, x := range elems {
		if x.IsInt64() {
			v := x.Int64()
			if v < 0 || v > max31 {
				return b[:n], elems[i:], true
			}
			b[n] = tagPos4
			binary.BigEndian.PutUint32(b[n+1:], uint32(v)<<1)
			n += 5
			continue
		}
		var units uint64
		var l int
		switch x.Kind() {
		case term.KindAtom:
			s := x.Atom()
			if prefix && isWildName(s) {
				return b[:n], nil, true
			}
			if len(s) >= 8 {
				return b[:n], elems[i:], true
			}
			var or byte
			if units, or = shortUnits(s); or >= utf8.RuneSelf {
				return b[:n], elems[i:], true
			}
			b[n], l = tagAtom, len(s)
		case term.KindBinary:
			if !shortWhole(x) {
				return b[:n], elems[i:], true
			}
			units, _ = shortUnits(x.Bytes())
			b[n], l = tagBinary, x.BitLen()>>3
		default:
			return b[:n], elems[i:], true
		}
		if l == 0 {
			b[n+1] = emptyFrame
			n += 2
			continue
		}
		binary.BigEndian.PutUint64(b[n+1:], units<<(64-9*l))
		b[n+l+2] = 8
		n += l + 3
	}
	return b[:n], nil, true
}

// headLeafRoom is what appendTupleHead may write for one element: a tag, a
// word of units and padding, and the end byte. maxTupleHead bounds the room
// it asks for in advance.
const (
	headLeafRoom = 10
	maxTupleHead = 16
)
