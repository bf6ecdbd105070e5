package sext

import (
	"bytes"
	"encoding/binary"
	"sync"
	"unicode/utf8"
)

// Skipping: walking over an encoded term without building it. The View
// and the compiled Matcher both stand on it. A skip checks everything the
// decoders check, in the same order, so it fails with the same
// *DecodeError at the same offset where decoding fails; and, when asked
// to certify, it says whether the bytes are certainly the encoder's own
// for the term they hold (canonical), which is what makes comparing two
// encodings as bytes the same as comparing the terms.

// skipInfo describes a skipped term.
type skipInfo uint8

const (
	// canon: the bytes are certainly the canonical encoding of their
	// term. Only set when certifying; without it nothing is claimed.
	canon skipInfo = 1 << iota
	// plainKey: the term holds no float, pid, port or reference, so as a
	// map key its byte order is Erlang's map key order too.
	plainKey

	allInfo = canon | plainKey
)

// skipper walks terms in d.buf. Its decoder is used only for the helpers
// that read leaves; it never builds a term that allocates.
type skipper struct {
	d           decodeState
	certify     bool   // work out canon (it costs a re-encoding for some numbers)
	generalOnly bool   // skip by skipOne alone, for the tests that hold the two to each other
	callerInner bool   // inner is the caller's buffer: never pooled
	inner       []byte // unframed inner bytes of descending terms, used as a stack
	pooled      *skipBufs
}

// skipBufs is the memory a skip needs for unframed bytes: the decoder's
// scratch space (atoms in UTF-8, numbers, references) and descending
// terms' inner bytes. Most keys need none, so it comes from a pool only
// when first needed; until then the skipper's decoder has no scratch
// space, and only bufs gives it one.
type skipBufs struct {
	sp    scratchSpace
	inner []byte
}

var skipPool = sync.Pool{New: func() any { return new(skipBufs) }}

func newSkipper(b []byte, o Options) skipper {
	return skipper{d: o.state(b, nil, recursive)}
}

// bufs makes d's scratch space and inner usable.
func (s *skipper) bufs() {
	if s.pooled == nil {
		s.pooled = skipPool.Get().(*skipBufs)
		s.d.scratchSpace = &s.pooled.sp
		s.d.scratch = s.d.scratch[:0]
		if !s.callerInner {
			s.inner = s.pooled.inner[:0]
		}
	}
}

// release gives the buffers back; nothing read through them may be used
// after it.
func (s *skipper) release() {
	p := s.pooled
	if p == nil {
		return
	}
	s.pooled, s.d.scratchSpace = nil, nil
	if !s.callerInner {
		p.inner = s.inner[:0]
	}
	if cap(p.sp.scratch) <= maxPooled && cap(p.inner) <= maxPooled {
		skipPool.Put(p)
	}
}

// skipOne is skip by the general rules, one form at a time: skip sends it
// every form and every error its own loop leaves.
func (s *skipper) skipOne(pos, open int) (int, skipInfo, error) {
	b := s.d.buf
	if pos >= len(b) {
		return 0, 0, errAt(pos, ErrTruncated, "")
	}
	switch b[pos] {
	case tagPos4:
		if pos+5 <= len(b) && b[pos+4]&1 == 0 { // the commonest leaf
			return pos + 5, allInfo, nil
		}
		return s.number(pos)
	case tagNeg4:
		if pos+5 <= len(b) && b[pos+4]&1 == 1 {
			// -0 is 0 written the long way.
			if binary.BigEndian.Uint32(b[pos+1:])>>1 == max31 {
				return pos + 5, plainKey, nil
			}
			return pos + 5, allInfo, nil
		}
		return s.number(pos)
	case tagPosBig, tagNegBig:
		return s.bignum(pos)
	case tagAtom:
		return s.atom(pos)
	case tagBinary:
		f, err := findFrame(b, pos+1)
		if err == nil {
			err = checkLastUnit(b, pos+1, f, 0)
		}
		if err != nil {
			return 0, 0, err
		}
		return f.end, plainKey | canonFrame(b, f), nil
	case tagPid, tagPort, tagRef:
		return s.opaque(pos)
	case tagTuple:
		n, p, err := s.d.header(pos, 1, minTermLen, open)
		if err != nil {
			return 0, 0, err
		}
		info := allInfo
		for range n {
			var i skipInfo
			if p, i, err = s.skip(p, open+1); err != nil {
				return 0, 0, err
			}
			info &= i
		}
		return p, info, nil
	case tagList:
		if pos+1 < len(b) && b[pos+1] == markMap {
			return s.skipMap(pos, open)
		}
		if err := s.d.enter(pos, open); err != nil {
			return 0, 0, err
		}
		return s.listRest(pos+1, open, 0)
	case tagDesc:
		return s.desc(pos, open)
	}
	return 0, 0, errAt(pos, ErrTag, "")
}

// listRest skips what follows the list element or list tag before p: the
// end, a tail, or more elements. elems counts the elements already passed.
func (s *skipper) listRest(p, open, elems int) (int, skipInfo, error) {
	b := s.d.buf
	info := allInfo
list:
	if p < len(b) && b[p] == markEnd {
		return p + 1, info, nil
	}
	for {
		if p < len(b) && (b[p] == markImproper || b[p] == markBitTail) {
			if tailIsList(b, p) {
				// [a|[b|...]] is [a,b|...]: as the decoders do, the tail's
				// elements are read on in this loop, nested for the depth
				// limit only, so a chain of such tails takes no stack.
				// The encoder joins them: the bytes are not canonical.
				if err := s.d.enter(p+1, open+1); err != nil {
					return 0, 0, err
				}
				p, open = p+2, open+1
				info &^= canon
				goto list
			}
			end, i, err := s.skip(p+1, open+1)
			if err != nil {
				return 0, 0, err
			}
			// The encoder writes no list of zero elements with a tail
			// and marks exactly the bitstring tails (a tail that is a
			// list, which it joins on, was read on above).
			tag := b[p+1]
			if elems == 0 || (b[p] == markBitTail) != (tag == tagBinary) {
				i &^= canon
			}
			return end, info & i, nil
		}
		end, i, err := s.skip(p, open+1)
		if err != nil {
			return 0, 0, err
		}
		info &= i
		elems++
		if p = end; p >= len(b) {
			return 0, 0, errAt(p, ErrTruncated, "list")
		}
		if b[p] == markEnd {
			return p + 1, info, nil
		}
	}
}

// skipMap skips the map at pos. When certifying, a key or value that is
// a map goes to skipMap straight: the reader's loop would hand it to the
// general skip anyway, and nested maps then take one frame a level, not
// three, which keeps deep ones in the caches.
func (s *skipper) skipMap(pos, open int) (int, skipInfo, error) {
	n, p, err := s.d.header(pos, 2, 2*minTermLen, open)
	if err != nil {
		return 0, 0, err
	}
	b := s.d.buf
	info := allInfo
	prev := -1 // where the last key starts
	for range n {
		kpos := p
		var ki, vi skipInfo
		if p, ki, err = s.entryTerm(p, open+1); err != nil {
			return 0, 0, err
		}
		// Canonical maps have strictly ascending keys in map key order,
		// which is byte order for plain keys; others are not certified.
		if ki&plainKey == 0 || prev >= 0 && bytes.Compare(b[prev:kpos], b[kpos:p]) >= 0 {
			info &^= canon
		}
		info &= ki
		prev = kpos
		if p, vi, err = s.entryTerm(p, open+1); err != nil {
			return 0, 0, err
		}
		info &= vi
	}
	return p, info, nil
}

// entryTerm skips a map's key or value at p.
func (s *skipper) entryTerm(p, open int) (int, skipInfo, error) {
	if b := s.d.buf; s.certify && p+1 < len(b) && b[p] == tagList && b[p+1] == markMap {
		return s.skipMap(p, open)
	}
	return s.skip(p, open)
}

// quickDesc skips a descending term around a leaf the reader reads in
// one step (leafEnd), such as
// #Desc<Timestamp>, unframed on the stack; ok is false for anything else.
// The caller checks the depth limit.
func quickDesc(b []byte, pos int, utf8Atoms bool) (end int, info skipInfo, ok bool) {
	f, err := findFrameInv(b, pos+1, 0xFF)
	if err != nil || f.bits&7 != 0 || f.units > 16 {
		return 0, 0, false
	}
	var tmp [16]byte
	inner := tmp[:f.units]
	if p := pos + 1; f.units < 8 && p+8 <= len(b) {
		// Up to seven units lie in one 64-bit load. In descending
		// framing whole bytes leave no unused low bits to check.
		acc := ^binary.BigEndian.Uint64(b[p:])
		for n := range inner {
			inner[n] = byte(acc >> 55)
			acc <<= 9
		}
	} else if unframe(inner, b, p, f, 0xFF) != nil {
		return 0, 0, false
	}
	inner = inner[:f.bits/8]
	if e, i := leafEnd(inner, 0, utf8Atoms, minIntLimit); e > 0 && e == len(inner) {
		if b[f.end-1] != 0xFF {
			i &^= canon
		}
		return f.end, i, true
	}
	return 0, 0, false
}

// desc unframes a descending term's inner bytes onto s.inner and skips
// them. An error inside is reported at the tag, as the decoders do.
func (s *skipper) desc(pos, open int) (int, skipInfo, error) {
	if open < s.d.maxDepth {
		if end, info, ok := quickDesc(s.d.buf, pos, s.d.utf8); ok {
			return end, info, nil
		}
	}
	inner, end, err := s.descInner(pos, open)
	if err != nil {
		return 0, 0, err
	}
	mark := len(s.inner) - len(inner)
	outer := s.d.buf
	s.d.buf = inner
	p, info, err := s.skip(0, open+1)
	s.d.buf = outer
	s.inner = s.inner[:mark]
	if err == nil && p != len(inner) {
		err = errAt(p, ErrTrailing, "")
	}
	if err != nil {
		return 0, 0, inDesc(err, pos)
	}
	if outer[end-1] != 0xFF { // a whole last byte is marked 255, not 247
		info &^= canon
	}
	return end, info, nil
}

// descInner checks the depth and unframes the inner bytes of the
// descending term at pos onto the end of s.inner.
func (s *skipper) descInner(pos, open int) ([]byte, int, error) {
	if err := s.d.enter(pos, open); err != nil {
		return nil, 0, err
	}
	b := s.d.buf
	f, err := scanFrame(b, pos+1, 0xFF)
	if err != nil {
		return nil, 0, err
	}
	if f.bits&7 != 0 {
		return nil, 0, errAt(pos, ErrInvalid, "descending term is not whole bytes")
	}
	s.bufs()
	mark := len(s.inner)
	s.inner = grow(s.inner, f.units)
	inner := s.inner[mark:]
	if err := unframe(inner, b, pos+1, f, 0xFF); err != nil {
		s.inner = s.inner[:mark]
		return nil, 0, err
	}
	s.inner = s.inner[:mark+f.bits/8]
	return s.inner[mark:], f.end, nil
}

func (s *skipper) atom(pos int) (int, skipInfo, error) {
	b := s.d.buf
	if s.d.utf8 {
		s.bufs()
		name, end, err := s.d.bytesFrame(pos + 1)
		if err != nil {
			return 0, 0, err
		}
		if !utf8.Valid(name) {
			return 0, 0, errAt(pos, ErrInvalid, errAtomUTF8.Error())
		}
		f, _ := scanFrame(b, pos+1, 0)
		return end, plainKey | canonFrame(b, f), nil
	}
	f, err := wholeFrame(b, pos+1) // every byte is a Latin-1 character
	if err != nil {
		return 0, 0, err
	}
	return f.end, plainKey | canonFrame(b, f), nil
}

// opaque skips a pid, port or reference. They are never plain map keys,
// since Erlang orders them its own way there.
func (s *skipper) opaque(pos int) (int, skipInfo, error) {
	b := s.d.buf
	node, err := wholeFrame(b, pos+1)
	if err != nil {
		return 0, 0, err
	}
	info, p := canonFrame(b, node), node.end
	var c uint32
	var end int
	switch b[pos] {
	case tagPid:
		if p+8 > len(b) {
			return 0, 0, errAt(pos, ErrTruncated, "pid")
		}
		if c, end, err = s.d.creation(p + 8); err != nil {
			return 0, 0, err
		}
		if c <= 3 && b[p+8] == 0xFF {
			info = 0
		}
		return end, info, nil
	case tagPort:
		if p < len(b) && b[p] == portLong {
			if p+14 > len(b) {
				return 0, 0, errAt(pos, ErrTruncated, "port")
			}
			if b[p+9] != 0xFF {
				return 0, 0, errAt(p+9, ErrInvalid, "port creation")
			}
			if binary.BigEndian.Uint64(b[p+1:]) < 1<<28 {
				info = 0
			}
			return p + 14, info, nil
		}
		if p+4 > len(b) {
			return 0, 0, errAt(pos, ErrTruncated, "port")
		}
		if binary.BigEndian.Uint32(b[p:]) >= 1<<28 {
			info = 0
		}
		if c, end, err = s.d.creation(p + 4); err != nil {
			return 0, 0, err
		}
		if c <= 3 && b[p+4] == 0xFF {
			info = 0
		}
		return end, info, nil
	}
	// A reference: the creation and the ids are framed together.
	s.bufs()
	body, end, err := s.d.bytesFrame(p)
	if err != nil {
		return 0, 0, err
	}
	bf, _ := scanFrame(b, p, 0)
	info &= canonFrame(b, bf)
	switch {
	case len(body) > 0 && body[0] <= 3:
		body = body[1:]
	case len(body) >= 5 && body[0] == 0xFF:
		if binary.BigEndian.Uint32(body[1:]) <= 3 {
			info = 0
		}
		body = body[5:]
	default:
		return 0, 0, errAt(p, ErrInvalid, "reference creation")
	}
	if len(body) == 0 || len(body)%4 != 0 {
		return 0, 0, errAt(p, ErrInvalid, "reference ids")
	}
	return end, info, nil
}
