package sext

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"

	"github.com/erlsext/sext/term"
)

// smallInt64 reads the 32-bit forms of an integer, which most keys hold;
// ok is false for anything else, a float's 32-bit forms included. The
// decoders, the View, Unmarshal and flatKey all read them through it.
func smallInt64(b []byte, pos int) (int64, bool) {
	if pos < 0 || pos+5 > len(b) {
		return 0, false
	}
	w := binary.BigEndian.Uint32(b[pos+1:])
	switch {
	case b[pos] == tagPos4 && w&1 == 0:
		return int64(w >> 1), true
	case b[pos] == tagNeg4 && w&1 == 1:
		return -int64(max31 - w>>1), true
	}
	return 0, false
}

// small decodes the 32-bit forms: an integer, or a float's integer part
// and its fraction.
func (d *decodeState) small(pos int) (term.Term, int, error) {
	if x, ok := smallInt64(d.buf, pos); ok {
		return term.Int(x), pos + 5, nil
	}
	return d.smallFloat(pos)
}

// bignum decodes the forms with framed bytes: an integer, or a float's
// integer part and its fraction. A frame of up to fifteen bytes is read
// into registers, and an integer there that fits an int64, the commonest
// bignum (32 to 63 bits), is taken from them (wordValue); everything else
// goes the general way, bigRest, from the frame's bytes.
func (d *decodeState) bignum(pos int) (term.Term, int, error) {
	neg, p, words, err := d.bigHead(pos)
	if err != nil {
		return term.Term{}, 0, err
	}
	hi, n, end := shortFrame(d.buf, p)
	var lo uint64
	if end == 0 {
		hi, lo, n, end = mediumFrame(d.buf, p)
	}
	if end == 0 {
		raw, end, err := d.longBytesFrame(p)
		if err != nil {
			return term.Term{}, 0, err
		}
		return d.bigRest(pos, neg, words, raw, end)
	}
	if x, ok := wordValue(d.buf, hi, lo, n, end, neg, words); ok {
		return term.Int(x), end + 1, nil
	}
	return d.bigRest(pos, neg, words, d.frameBytes(hi, lo, n), end)
}

// bigHead reads a bignum's tag at pos and, if negative, its word count;
// p is where its frame starts.
func (d *decodeState) bigHead(pos int) (neg bool, p, words int, err error) {
	neg, p = d.buf[pos] == tagNegBig, pos+1
	if neg {
		if p+4 > len(d.buf) {
			return false, 0, 0, errAt(pos, ErrTruncated, "number")
		}
		words = int(0xFFFFFFFF - binary.BigEndian.Uint32(d.buf[p:]))
		if words == 0 || words > d.intLimit/8 {
			return false, 0, 0, errAt(pos, ErrSize, "bignum word count")
		}
		p += 4
	}
	return neg, p, words, nil
}

// wordValue reads an integer that fits an int64 from the n bytes of a
// bignum's frame at the top of hi:lo, the frame ending at end: a size
// mark, one size byte, a magnitude of which no more than eight bytes are
// not leading zeros, and the integer's flag at b[end]. ok is false for
// anything else, which bigRest reads, so that the two agree.
func wordValue(b []byte, hi, lo uint64, n, end int, neg bool, words int) (x int64, ok bool) {
	if n < 3 || end >= len(b) || hi>>56 != sizeMark || hi>>48&0xFF >= 0x80 || neg && words != 1 {
		return 0, false
	}
	// The magnitude's m bytes, at the low end of rhi:rlo.
	m, s := n-2, uint(8*(16-n))
	rlo, rhi := lo>>s|hi<<(64-s), hi>>s
	if s >= 64 {
		rlo, rhi = hi>>(s-64), 0
	}
	switch {
	case m > 8:
		if rhi&(1<<(8*(m-8))-1) != 0 {
			return 0, false
		}
	case m < 8:
		rlo &= 1<<(8*m) - 1
	}
	if !neg {
		return int64(rlo), b[end] == 0 && rlo <= math.MaxInt64
	}
	// One word of complement: the magnitude is its inverse.
	u := ^rlo
	return int64(-u), b[end] == 0xFF && u <= 1<<63
}

// bigRest is bignum from the bytes of its frame, raw, which ends at p.
func (d *decodeState) bigRest(pos int, neg bool, words int, raw []byte, p int) (term.Term, int, error) {
	mag, ok := stripSize(raw)
	if !ok {
		return term.Term{}, 0, errAt(pos, ErrInvalid, "bignum size prefix")
	}
	mag = trimZeros(mag)
	if neg && len(mag) > 8*words {
		return term.Term{}, 0, errAt(pos, ErrInvalid, "bignum value")
	}
	if p >= len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "number")
	}
	switch flag := d.buf[p]; {
	case !neg && flag == 0:
		return d.intTerm(mag), p + 1, nil
	case neg && flag == 0xFF:
		return d.negIntTerm(mag, words), p + 1, nil
	case !neg && flag == 1, neg && flag == 0:
		if neg {
			mag, _ = d.complement(mag, words)
		}
		if len(mag) <= 8 {
			return d.float(pos, p+1, neg, beUint(mag), nil)
		}
		return d.float(pos, p+1, neg, 0, d.bigTmp.SetBytes(mag))
	}
	return term.Term{}, 0, errAt(p, ErrInvalid, "number flag")
}

// stripSize drops a bignum's size prefix: a 255, then bytes up to the
// first one with its high bit clear, as the reference reads it (its own
// sizes from 256 bytes on differ from ours, and both are skipped alike).
// Legacy bignums have no prefix.
func stripSize(raw []byte) ([]byte, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	if raw[0] != sizeMark {
		return raw, true
	}
	for i := 1; i < len(raw); i++ {
		if raw[i] < 0x80 {
			return raw[i+1:], len(raw) > i+1
		}
	}
	return nil, false
}

// trimZeros drops a big-endian magnitude's leading zero bytes, keeping at
// least one byte.
func trimZeros(mag []byte) []byte {
	for len(mag) > 1 && mag[0] == 0 {
		mag = mag[1:]
	}
	return mag
}

// beUint reads a big-endian magnitude of at most eight bytes.
func beUint(mag []byte) uint64 {
	var u uint64
	for _, c := range mag {
		u = u<<8 | uint64(c)
	}
	return u
}

// complement returns the big-endian bytes of 2^(64*words)-1-adj, the
// magnitude of a negative bignum, in d.wide; adj must fit in that many
// words.
func (d *decodeState) complement(adj []byte, words int) ([]byte, bool) {
	if len(adj) > 8*words {
		return nil, false
	}
	if cap(d.wide) < 8*words {
		d.wide = make([]byte, 8*words)
	}
	full := d.wide[:8*words]
	pad := len(full) - len(adj)
	for i := range pad {
		full[i] = 0xFF
	}
	for i, c := range adj {
		full[pad+i] = ^c
	}
	return trimZeros(full), true
}

// intTerm makes the non-negative integer whose magnitude is mag (no
// leading zeros); one beyond int64 takes its words from the arena, filled
// from 64-bit loads, and holds them.
func (d *decodeState) intTerm(mag []byte) term.Term {
	if len(mag) <= 8 {
		if u := beUint(mag); u <= math.MaxInt64 {
			return term.Int(int64(u))
		}
	}
	w := d.a.takeWords((len(mag) + wordBytes - 1) / wordBytes)
	fillWords(w, mag)
	return term.BigWords(w, false)
}

// negIntTerm makes the negative integer whose magnitude is
// 2^(64*words)-1-adj, the complement of adj in words 64-bit words, adj's
// bytes big-endian and no more than 8*words of them. Each word of the
// magnitude is the complement of adj's word, read straight from adj.
func (d *decodeState) negIntTerm(adj []byte, words int) term.Term {
	if wordBytes != 8 {
		mag, _ := d.complement(adj, words)
		if len(mag) <= 8 {
			if u := beUint(mag); u <= 1<<63 {
				return term.Int(int64(-u))
			}
		}
		w := d.a.takeWords((len(mag) + wordBytes - 1) / wordBytes)
		fillWords(w, mag)
		return term.BigWords(w, true)
	}
	top := ^wordAt(adj, words-1)
	n := words
	if top == 0 {
		// Not how the encoder writes it, but a value all the same: the
		// magnitude's top words are zero.
		for n > 0 && ^wordAt(adj, n-1) == 0 {
			n--
		}
		if n == 0 {
			return term.Int(0)
		}
	}
	if n == 1 {
		if u := ^wordAt(adj, 0); u <= 1<<63 {
			return term.Int(int64(-u))
		}
	}
	w := d.a.takeWords(n)
	for i := range w {
		w[i] = big.Word(^wordAt(adj, i))
	}
	return term.BigWords(w, true)
}

// wordAt returns the i'th 64-bit word, counted from the low end, of the
// big-endian magnitude mag; bytes above mag's are zero.
func wordAt(mag []byte, i int) uint64 {
	lo := len(mag) - 8*i
	if lo >= 8 {
		return binary.BigEndian.Uint64(mag[lo-8 : lo])
	}
	var x uint64
	for j := 0; j < lo; j++ {
		x = x<<8 | uint64(mag[j])
	}
	return x
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
	enc, err := (&encodeState{}).appendFloat(tmp[:0], t.Float())
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
		enc := (&encodeState{}).appendIntPart(tmp[:0], magnitude{u: n.u}, n.neg, false)
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
	enc, err := (&encodeState{}).appendFloat(tmp[:0], f)
	return end, s.same(enc, err, pos, end), nil
}

// sizedBig reports whether the frame at b[pos], of units data bytes, holds
// a bignum's size prefix as the encoder writes it for fewer than 128 bytes
// (the mark, one size byte below 0x80) and at least one magnitude byte:
// what stripSize accepts, read from the frame without unframing it.
func sizedBig(b []byte, pos, units int) bool {
	// The first unit is the byte b[pos]<<1|b[pos+1]>>7; the second's top
	// bit is bit 2 of b[pos+1], after its marker.
	return units >= 3 && b[pos] == 0xFF && b[pos+1]&0xA0 == 0x80
}

// smallIntEnd returns the end of the small-form integer at b[pos] (not a
// float, not the -0 the encoder never writes), or 0.
func smallIntEnd(b []byte, pos int) int {
	if pos+5 > len(b) {
		return 0
	}
	w := binary.BigEndian.Uint32(b[pos+1:])
	switch b[pos] {
	case tagPos4:
		if w&1 == 0 {
			return pos + 5
		}
	case tagNeg4:
		if w&1 == 1 && w>>1 != max31 {
			return pos + 5
		}
	}
	return 0
}
