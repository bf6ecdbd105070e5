package sext

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/bits"
	"sync"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
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
	d           decoder
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
	return skipper{d: decoder{buf: b, utf8: o.UTF8Atoms, maxDepth: o.maxDepth(), intLimit: max(1<<16, len(b))}}
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
	if p < len(b) && b[p] == markEnd {
		return p + 1, info, nil
	}
	for {
		if p < len(b) && (b[p] == markImproper || b[p] == markBitTail) {
			end, i, err := s.skip(p+1, open+1)
			if err != nil {
				return 0, 0, err
			}
			// The encoder joins a list tail on, writes no list of zero
			// elements with a tail, and marks exactly the bitstring tails.
			tag := b[p+1]
			if elems == 0 || tag == tagList && b[p+2] != markMap || (b[p] == markBitTail) != (tag == tagBinary) {
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
		if p, ki, err = s.skip(p, open+1); err != nil {
			return 0, 0, err
		}
		// Canonical maps have strictly ascending keys in map key order,
		// which is byte order for plain keys; others are not certified.
		if ki&plainKey == 0 || prev >= 0 && bytes.Compare(b[prev:kpos], b[kpos:p]) >= 0 {
			info &^= canon
		}
		info &= ki
		prev = kpos
		if p, vi, err = s.skip(p, open+1); err != nil {
			return 0, 0, err
		}
		info &= vi
	}
	return p, info, nil
}

// quickLeaf skips a small integer, or an atom (Latin-1) or binary of
// fewer than eight bytes, the leaves keys are mostly made of, when it is
// well formed; ok is false for anything else, errors included.
func quickLeaf(b []byte, p int, utf8Atoms bool) (end int, info skipInfo, ok bool) {
	if p >= len(b) {
		return 0, 0, false
	}
	switch b[p] {
	case tagPos4:
		if p+5 <= len(b) && b[p+4]&1 == 0 {
			return p + 5, allInfo, true
		}
	case tagNeg4:
		if p+5 <= len(b) && b[p+4]&1 == 1 && binary.BigEndian.Uint32(b[p+1:])>>1 != max31 {
			return p + 5, allInfo, true
		}
	case tagAtom, tagBinary:
		if b[p] == tagAtom && utf8Atoms {
			return 0, 0, false
		}
		f, err := findFrame(b, p+1)
		if err != nil || f.bits&7 != 0 && b[p] == tagAtom || checkLastUnit(b, p+1, f, 0) != nil {
			return 0, 0, false
		}
		return f.end, plainKey | canonFrame(b, f), true
	}
	return 0, 0, false
}

// quickDesc skips a descending term around a quickLeaf, such as
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
	if e, i, ok := quickLeaf(inner, 0, utf8Atoms); ok && e == len(inner) {
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

// canonFrame is canon unless the frame ends with the end byte 0 (an
// empty last unit), which readers accept and the encoder writes only for
// float fractions.
func canonFrame(b []byte, f frame) skipInfo {
	if f.units > 0 && b[f.end-1] == 0 {
		return 0
	}
	return canon
}

// unitByte returns data unit i of the frame starting at b[pos].
func unitByte(b []byte, pos, i int, inv byte) byte {
	bit := 9*i + 1
	at := pos + bit>>3
	w := uint16(b[at]^inv) << 8
	if at+1 < len(b) {
		w |= uint16(b[at+1] ^ inv)
	}
	return byte(w >> (8 - bit&7))
}

// checkLastUnit makes unframe's one check without unframing: the unused
// low bits of a partial last byte must be zero.
func checkLastUnit(b []byte, pos int, f frame, inv byte) error {
	if f.units*8 > f.bits && unitByte(b, pos, f.units-1, inv)&(0xFF>>(f.bits-(f.units-1)*8)) != 0 {
		return errAt(f.end-1, ErrFraming, "nonzero bits after a bitstring's end")
	}
	return nil
}

// findFrame is scanFrame for ascending framing, with a fast path for the
// short strings keys are made of (atoms, small binaries): fewer than
// eight units, found with one 64-bit load. Errors come from scanFrame.
func findFrame(b []byte, pos int) (frame, error) { return findFrameInv(b, pos, 0) }

// findFrameInv is findFrame for either direction: inv is 0xFF for
// descending framing, as for scanFrame.
func findFrameInv(b []byte, pos int, inv byte) (frame, error) {
	if pos < len(b) && b[pos]^inv >= 0x80 {
		// load64 reads zeros past the end: a frame that ends the input
		// takes this path too, and one cut short fails the length test.
		h := load64(b, pos) ^ uint64(inv)*0x0101010101010101
		if m := ^h & unitMarks; m != 0 {
			units := bits.LeadingZeros64(m) / 9 // the first marker missing
			bit := 9 * units
			i := pos + bit>>3
			if i+1 < len(b) && (b[i]^inv)<<(bit&7) == 0 {
				switch endb := b[i+1] ^ inv; {
				case endb == 8, endb == 0 && inv != 0:
					return frame{units: units, bits: 8 * units, end: i + 2}, nil
				case endb <= 7:
					return frame{units: units, bits: (units-1)*8 + int(endb), end: i + 2}, nil
				}
			}
		}
	}
	return scanFrame(b, pos, inv)
}

// shortWholeFrame returns the end of the ascending frame at b[pos] if it
// is well formed, holds one to seven whole bytes and ends with the end
// byte 8, or 0: the one case of findFrame small enough to inline, for the
// atoms in keys.
func shortWholeFrame(b []byte, pos int) int {
	if pos+8 > len(b) {
		return 0
	}
	// The first marker missing is the stop bit; with none missing, seven
	// units end at the word's last bit.
	bit := 9 * (bits.LeadingZeros64(^binary.BigEndian.Uint64(b[pos:])&unitMarks) / 9)
	i := pos + bit>>3
	if bit == 0 || i+1 >= len(b) || b[i]<<(bit&7)|(b[i+1]^8) != 0 {
		return 0
	}
	return i + 2
}

// wholeFrame checks a frame that must hold whole bytes, as bytesFrame
// does, without unframing it.
func wholeFrame(b []byte, pos int) (frame, error) {
	f, err := findFrame(b, pos)
	if err == nil {
		err = checkLastUnit(b, pos, f, 0)
	}
	if err == nil && f.bits&7 != 0 {
		err = errAt(pos, ErrInvalid, "bitstring where bytes are expected")
	}
	return f, err
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

// number skips a small-form float, or an integer the fast paths left.
func (s *skipper) number(pos int) (int, skipInfo, error) {
	s.bufs()
	t, end, err := s.d.small(pos)
	if err != nil {
		return 0, 0, err
	}
	if !s.certify || t.Kind() != term.KindFloat {
		return end, 0, nil
	}
	var tmp [192]byte
	enc, err := (&encoder{}).appendFloat(tmp[:0], t.Float())
	return end, s.same(enc, err, pos, end), nil
}

// same says canon if enc, the re-encoding of the term at b[pos:end], is
// those bytes. A number is not plain as a map key when it is a float.
func (s *skipper) same(enc []byte, err error, pos, end int) skipInfo {
	if err != nil || !bytes.Equal(enc, s.d.buf[pos:end]) {
		return 0
	}
	return canon
}

// bigParts reads a bignum-form number at pos as the decoder does, with
// its checks in its order, but builds nothing: the magnitude bytes, and
// the value when it fits in 64 bits. p is the offset of the flag byte.
type bigParts struct {
	neg   bool
	fits  bool   // u holds the magnitude
	u     uint64 // the magnitude when it fits
	mag   []byte // the magnitude, or for a negative number its complement (in s.d.scratch)
	raw   []byte // the framed bytes: size prefix and magnitude
	words int
	p     int
}

func (s *skipper) bigParts(pos int) (bigParts, error) {
	b := s.d.buf
	n := bigParts{neg: b[pos] == tagNegBig}
	p := pos + 1
	s.bufs()
	if n.neg {
		if p+4 > len(b) {
			return n, errAt(pos, ErrTruncated, "number")
		}
		n.words = int(0xFFFFFFFF - binary.BigEndian.Uint32(b[p:]))
		if n.words == 0 || n.words > s.d.intLimit/8 {
			return n, errAt(pos, ErrSize, "bignum word count")
		}
		p += 4
	}
	raw, p, err := s.d.bytesFrame(p)
	if err != nil {
		return n, err
	}
	mag, ok := stripSize(raw)
	if !ok {
		return n, errAt(pos, ErrInvalid, "bignum size prefix")
	}
	for len(mag) > 1 && mag[0] == 0 {
		mag = mag[1:]
	}
	if n.neg && len(mag) > 8*n.words { // what complementWords refuses
		return n, errAt(pos, ErrInvalid, "bignum value")
	}
	if p >= len(b) {
		return n, errAt(pos, ErrTruncated, "number")
	}
	n.mag, n.raw, n.p = mag, raw, p
	if n.fits = len(mag) <= 8 && (!n.neg || n.words == 1); n.fits {
		if n.u = beUint(mag); n.neg {
			n.u = ^n.u
		}
	}
	return n, nil
}

// bigCanon certifies an integer beyond 64 bits without building it: the
// encoder writes the size prefix, then the magnitude (for a negative
// number its complement in the fewest 64-bit words) without leading
// zeros, but with a 0 before a top byte of 255.
func (n bigParts) bigCanon(b []byte, pos int) skipInfo {
	raw := n.raw
	if len(raw) == 0 || raw[0] != sizeMark {
		return 0 // legacy
	}
	i := 1
	for i < len(raw) && raw[i] >= 0x80 {
		i++
	}
	body := raw[i+1:]
	var size [16]byte
	if len(body) == 0 || !bytes.Equal(appendSize(size[:0], len(body)), raw[1:i+1]) {
		return 0
	}
	if body[0] == 0 && (len(body) < 2 || body[1] != 0xFF) || body[0] == 0xFF {
		return 0
	}
	if n.neg {
		// The fewest words: the top word of the complement, in 8W bytes,
		// is not all ones (else the number would fit in W-1 words).
		mag := n.mag
		if len(mag) == 8*n.words {
			top := true
			for _, c := range mag[:8] {
				top = top && c == 0xFF
			}
			if top {
				return 0
			}
		}
	}
	// framing with an empty last unit, which the decoder also reads
	f, err := scanFrame(b, pos+1+4*boolInt(n.neg), 0)
	if err != nil {
		return 0
	}
	return canonFrame(b, f)
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// negBigFraction is the fraction the encoder writes for a negative float
// of 2^52 and more: 52 zero bits in descending framing.
var negBigFraction = frameTail(make([]byte, 7), 0, 52, true)

// isFloat tells the float flag from the integer flag, or fails.
func (n bigParts) isFloat(b []byte) (bool, error) {
	switch flag := b[n.p]; {
	case !n.neg && flag == 0, n.neg && flag == 0xFF:
		return false, nil
	case !n.neg && flag == 1, n.neg && flag == 0:
		return true, nil
	}
	return false, errAt(n.p, ErrInvalid, "number flag")
}

// float reads the fraction that follows a bignum-form integer part; a
// big.Int is built only for a float beyond 64 bits.
func (s *skipper) bigFloat(pos int, n bigParts) (float64, int, error) {
	u, bb := n.u, (*big.Int)(nil)
	if !n.fits {
		mag := n.mag
		if n.neg {
			mag, _ = s.d.complement(mag, n.words)
		}
		if len(mag) <= 8 {
			u = beUint(mag)
		} else {
			bb = new(big.Int).SetBytes(mag)
		}
	}
	t, end, err := s.d.float(pos, n.p+1, n.neg, u, bb)
	if err != nil {
		return 0, 0, err
	}
	return t.Float(), end, nil
}

// bignum skips the forms with framed bytes.
func (s *skipper) bignum(pos int) (int, skipInfo, error) {
	n, err := s.bigParts(pos)
	if err != nil {
		return 0, 0, err
	}
	float, err := n.isFloat(s.d.buf)
	if err != nil {
		return 0, 0, err
	}
	if !float {
		if !s.certify {
			return n.p + 1, plainKey, nil
		}
		if !n.fits {
			return n.p + 1, plainKey | n.bigCanon(s.d.buf, pos), nil
		}
		var tmp [32]byte
		enc := (&encoder{}).appendIntPart(tmp[:0], magnitude{u: n.u}, n.neg, false)
		return n.p + 1, plainKey | s.same(enc, nil, pos, n.p+1), nil
	}
	var intCanon skipInfo
	if s.certify && !n.fits {
		intCanon = n.bigCanon(s.d.buf, pos) // before the fraction reuses n.raw's memory
	}
	f, end, err := s.bigFloat(pos, n)
	if err != nil || !s.certify {
		return end, 0, err
	}
	if !n.fits {
		// A float of 2^64 and more is integral: canonical if its integer
		// part is, and its fraction is the one the encoder writes.
		frac := []byte{emptyFrame}
		if n.neg {
			frac = negBigFraction
		}
		if bytes.Equal(s.d.buf[n.p+1:end], frac) {
			return end, intCanon, nil
		}
		return end, 0, nil
	}
	var tmp [192]byte
	enc, err := (&encoder{}).appendFloat(tmp[:0], f)
	return end, s.same(enc, err, pos, end), nil
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
