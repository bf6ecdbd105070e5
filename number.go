package sext

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/erlsext/sext/term"
)

// Numbers, encoded and decoded. An integer, or a float's integer part,
// takes one of four forms by sign and size; a float then adds a fraction
// section. See docs/FORMAT.md for the layouts.
const (
	max31 = 1<<31 - 1

	// sizeMark opens the size prefix of a bignum's bytes; the legacy layout
	// has none, and tells itself apart because its first byte is < 0xFF.
	sizeMark = 0xFF
	// magReserve is room left before a magnitude for its size prefix.
	magReserve = 16
)

// magnitude is a non-negative integer: u<<shift, or b when b is not nil.
type magnitude struct {
	u     uint64
	shift int
	b     []big.Word
}

func (m magnitude) small() bool { return m.b == nil && m.shift == 0 && m.u <= max31 }

// appendBytes appends m's big-endian bytes without leading zeros (at least
// one byte) and returns their count.
func (m magnitude) appendBytes(dst []byte) ([]byte, int) {
	start := len(dst)
	switch {
	case m.b != nil:
		for i := len(m.b) - 1; i >= 0; i-- {
			if bits.UintSize == 64 {
				dst = binary.BigEndian.AppendUint64(dst, uint64(m.b[i]))
			} else {
				dst = binary.BigEndian.AppendUint32(dst, uint32(m.b[i]))
			}
		}
	default:
		dst = binary.BigEndian.AppendUint64(dst, m.u<<(m.shift&7))
		for range m.shift >> 3 {
			dst = append(dst, 0)
		}
	}
	lead := 0
	for lead < len(dst)-start-1 && dst[start+lead] == 0 {
		lead++
	}
	if lead > 0 {
		dst = dst[:start+copy(dst[start:], dst[start+lead:])]
	}
	return dst, len(dst) - start
}

func intMagnitude(t term.Term) (m magnitude, neg bool) {
	if t.IsInt64() {
		i := t.Int64()
		if i < 0 {
			return magnitude{u: uint64(-i)}, true // -MinInt64 wraps to 2^63, as wanted
		}
		return magnitude{u: uint64(i)}, false
	}
	w, neg := t.BigBits() // the term's own words: read, never changed
	return magnitude{b: w}, neg
}

// appendInt writes the integer m (negated if neg), or fails for a negative
// bignum the decoders would refuse. Its word count (the 64-bit words of
// the magnitude) sets the size of the number, not of its bytes: near a
// power of 2^64 a number of a million words takes a few bytes, which is
// why the decoders let a word count claim at most max(64 KiB, input
// length) bytes. The encoder keeps to the same rule, counting only the
// number's own bytes, so that every key it writes can be read back.
func (e *encoder) appendInt(dst []byte, m magnitude, neg bool) ([]byte, error) {
	start := len(dst)
	dst = e.appendIntPart(dst, m, neg, false)
	if neg && dst[start] == tagNegBig && int(e.words) > max(minIntLimit, len(dst)-start)/8 {
		return dst[:start], &EncodeError{Err: ErrUnencodable, Detail: "negative bignum of " +
			strconv.Itoa(int(e.words)) + " words in " + strconv.Itoa(len(dst)-start) +
			" bytes: its word count claims more than the decoders allow (max(64 KiB, input length))"}
	}
	return dst, nil
}

// minIntLimit is the least a negative bignum's word count may always
// claim, in bytes, whatever the input's length.
const minIntLimit = 1 << 16 // as newDecoder sets intLimit

// appendIntPart writes the integer form of m (negated if neg). fraction
// tells that a float's fraction section will follow.
func (e *encoder) appendIntPart(dst []byte, m magnitude, neg, fraction bool) []byte {
	if m.small() {
		if !neg {
			w := uint32(m.u) << 1
			if fraction {
				w |= 1
			}
			return binary.BigEndian.AppendUint32(append(dst, tagPos4), w)
		}
		w := uint32(max31-m.u) << 1
		if !fraction {
			w |= 1
		}
		return binary.BigEndian.AppendUint32(append(dst, tagNeg4), w)
	}
	if !neg {
		dst = append(dst, tagPosBig)
		dst = e.appendBigBody(dst, m, false)
		if fraction {
			return append(dst, 1)
		}
		return append(dst, 0)
	}
	dst = append(dst, tagNegBig, 0, 0, 0, 0)
	wordsAt := len(dst) - 4
	dst = e.appendBigBody(dst, m, true)
	binary.BigEndian.PutUint32(dst[wordsAt:], 0xFFFFFFFF-e.words)
	if fraction {
		return append(dst, 0)
	}
	return append(dst, 0xFF)
}

// appendBigBody writes the framed, size-prefixed bytes of m, or, for a
// negative number, of 2^(64W)-1-m where W is the number of 64-bit words m
// needs; it leaves W in e.words.
func (e *encoder) appendBigBody(dst []byte, m magnitude, neg bool) []byte {
	start := len(dst)
	dst = grow(dst, magReserve)
	magAt := len(dst)
	dst, n := m.appendBytes(dst)
	if neg {
		words := (n + 7) / 8
		e.words = uint32(words)
		pad := words*8 - n
		dst = grow(dst, pad)
		copy(dst[magAt+pad:], dst[magAt:magAt+n])
		for i := magAt; i < len(dst); i++ {
			if i < magAt+pad {
				dst[i] = 0xFF
			} else {
				dst[i] = ^dst[i]
			}
		}
		lead := 0
		for lead < len(dst)-magAt-1 && dst[magAt+lead] == 0 {
			lead++
		}
		magAt += lead
	}
	mag := dst[magAt:]
	lead := 0
	if mag[0] == 0xFF { // the top byte is always < 0xFF
		lead = 1
	}
	var pre [magReserve]byte
	p := pre[:0]
	if !e.legacy {
		p = appendSize(append(p, sizeMark), lead+len(mag))
	}
	if lead == 1 {
		p = append(p, 0)
	}
	k := copy(dst[start:], p)
	k += copy(dst[start+k:], mag)
	dst = dst[:start+k]
	return frameTail(dst, start, 8*k, false)
}

// appendSize writes a bignum's byte count so that larger counts sort
// higher. Up to 255 it is the reference's form: one byte below 128, then
// two bytes holding the count's top seven bits (high bit set) and its last
// bit. The reference continues in seven-bit groups, which puts 256 below
// 128; this project writes 0xFF, 0x80+G and G seven-bit groups (high bit
// set on all but the last) instead, which still sorts and which the
// reference's decoder skips just the same (it reads bytes up to the first
// one whose high bit is clear).
func appendSize(dst []byte, n int) []byte {
	switch {
	case n < 128:
		return append(dst, byte(n))
	case n < 256:
		return append(dst, 0x80|byte(n>>1), byte(n&1))
	}
	g := (bits.Len(uint(n)) + 6) / 7
	dst = append(dst, 0xFF, 0x80|byte(g))
	for i := g - 1; i > 0; i-- {
		dst = append(dst, 0x80|byte(n>>(7*i)))
	}
	return append(dst, byte(n&0x7F))
}

// appendFloat writes f as its integer part, in integer form, and the bits
// of its fraction. Fractions are kept as the reference splits them: for
// |f| < 1 a run of zeros (one more than the exponent's distance below 0),
// a 1 and the 52 mantissa bits; for |f| >= 2^52 nothing (positive) or 52
// zero bits (negative); between, the mantissa bits below the point.
func (e *encoder) appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "float is not finite"}
	}
	fb := math.Float64bits(f)
	neg := fb>>63 != 0
	ex := int(fb>>52&0x7FF) - 1023
	mant := 1<<52 | fb&(1<<52-1)

	var ip magnitude
	var rv uint64 // fraction bits, left-aligned in 64 bits after rzeros zero bits
	var rbits, rzeros int
	switch {
	case ex < 0: // the encoder treats 0.0 and subnormals as if normal
		rzeros, rbits = -ex, -ex+53
		rv = mant << 11
	case ex >= 52:
		ip = magnitude{u: mant, shift: ex - 52}
		rbits = 52
	default:
		ip = magnitude{u: mant >> (52 - ex)}
		rbits = 52 - ex
		rv = mant << (12 + ex)
	}
	dst = e.appendIntPart(dst, ip, neg, true)
	if !neg && rzeros == 0 && rv == 0 {
		return append(dst, emptyFrame), nil
	}
	start := len(dst)
	for range rzeros >> 3 {
		dst = append(dst, 0)
	}
	dst = binary.BigEndian.AppendUint64(dst, rv>>(rzeros&7))
	if s := rv << (64 - rzeros&7); rzeros&7 != 0 {
		dst = append(dst, byte(s>>56))
	}
	dst = dst[:start+(rbits+7)/8]
	if !neg && rbits&7 == 0 {
		// The reference frames a fraction of whole bytes as a bitstring
		// with an empty last unit: one more zero byte, end byte 0.
		dst = frameTail(append(dst, 0), start, rbits+8, false)
		dst[len(dst)-1] = 0
		return dst, nil
	}
	return frameTail(dst, start, rbits, neg), nil
}

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
func (d *decoder) small(pos int) (term.Term, int, error) {
	if x, ok := smallInt64(d.buf, pos); ok {
		return term.Int(x), pos + 5, nil
	}
	return d.smallFloat(pos)
}

// smallFloat is small for what smallInt64 refuses: a float whose integer
// part has a 32-bit form, or bytes too short for either. The decoders,
// which try smallInt64 in their own switch, call it directly.
func (d *decoder) smallFloat(pos int) (term.Term, int, error) {
	if pos+5 > len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "number")
	}
	v := uint64(binary.BigEndian.Uint32(d.buf[pos+1:]) >> 1)
	if d.buf[pos] == tagPos4 {
		return d.float(pos, pos+5, false, v, nil)
	}
	return d.float(pos, pos+5, true, max31-v, nil)
}

// bignum decodes the forms with framed bytes: an integer, or a float's
// integer part and its fraction. A frame of up to fifteen bytes is read
// into registers, and an integer there that fits an int64, the commonest
// bignum (32 to 63 bits), is taken from them (wordValue); everything else
// goes the general way, bigRest, from the frame's bytes.
func (d *decoder) bignum(pos int) (term.Term, int, error) {
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
func (d *decoder) bigHead(pos int) (neg bool, p, words int, err error) {
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
func (d *decoder) bigRest(pos int, neg bool, words int, raw []byte, p int) (term.Term, int, error) {
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
func (d *decoder) complement(adj []byte, words int) ([]byte, bool) {
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
func (d *decoder) intTerm(mag []byte) term.Term {
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
func (d *decoder) negIntTerm(adj []byte, words int) term.Term {
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

// float reads the fraction section at p of the float whose integer part
// (u, or b when not nil) started at pos, and rebuilds the float.
func (d *decoder) float(pos, p int, neg bool, u uint64, b *big.Int) (term.Term, int, error) {
	var inv byte
	if neg {
		inv = 0xFF
	}
	r, f, err := d.unframeScratch(p, inv)
	if err != nil {
		return term.Term{}, 0, err
	}
	x, ok := makeFloat(neg, u, b, r, f.bits)
	if !ok {
		return term.Term{}, 0, errAt(pos, ErrInvalid, "float")
	}
	return term.Float(x), f.end, nil
}

// makeFloat inverts appendFloat: see there for how the bits are split.
func makeFloat(neg bool, u uint64, b *big.Int, r []byte, rbits int) (float64, bool) {
	var sign uint64
	if neg {
		sign = 1 << 63
	}
	zero := true
	for _, c := range r {
		if c != 0 {
			zero = false
			break
		}
	}
	switch {
	case b == nil && u == 0: // |f| < 1: zeros, a 1, 52 mantissa bits
		lead := 0
		for lead < len(r) && r[lead] == 0 {
			lead++
		}
		if lead == len(r) {
			return 0, false
		}
		offs := lead*8 + bits.LeadingZeros8(r[lead])
		if offs < 1 || offs > 1023 || rbits != offs+53 {
			return 0, false
		}
		frac := readBits(r, offs+1, 52)
		return math.Float64frombits(sign | uint64(1023-offs)<<52 | frac), true
	case zero: // an integral float
		var x float64
		if b != nil {
			f, ok := exactFloat(b)
			if !ok {
				return 0, false
			}
			x = f
		} else {
			x = float64(u)
			if x >= 1<<64 || uint64(x) != u {
				return 0, false
			}
		}
		if neg {
			x = -x
		}
		return x, true
	case b != nil:
		return 0, false
	}
	ex := bits.Len64(u) - 1
	if ex >= 52 || rbits != 52-ex {
		return 0, false
	}
	frac := (u&(1<<ex-1))<<(52-ex) | readBits(r, 0, rbits)
	return math.Float64frombits(sign | uint64(ex+1023)<<52 | frac), true
}

// readBits returns n <= 64 bits of r from bit offset off on.
func readBits(r []byte, off, n int) uint64 {
	var v uint64
	for i := range n {
		bit := off + i
		v = v<<1 | uint64(r[bit>>3]>>(7-bit&7)&1)
	}
	return v
}

// exactFloat converts the positive integer b to a float64 when it is
// exactly one, without the allocations of a big.Float.
func exactFloat(b *big.Int) (float64, bool) {
	n, tz := b.BitLen(), int(b.TrailingZeroBits())
	if n > 1024 || n-tz > 53 {
		return 0, false
	}
	// The significant bits, b >> tz, fit in one 64-bit value.
	const wbits = wordBytes * 8
	var m uint64
	for i, sh := tz/wbits, -(tz % wbits); i < len(b.Bits()) && sh < 64; i, sh = i+1, sh+wbits {
		if w := uint64(b.Bits()[i]); sh < 0 {
			m |= w >> -sh
		} else {
			m |= w << sh
		}
	}
	return math.Ldexp(float64(m), tz), true
}
