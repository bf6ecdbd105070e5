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
func (e *encodeState) appendInt(dst []byte, m magnitude, neg bool) ([]byte, error) {
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
func (e *encodeState) appendIntPart(dst []byte, m magnitude, neg, fraction bool) []byte {
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
func (e *encodeState) appendBigBody(dst []byte, m magnitude, neg bool) []byte {
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
func (e *encodeState) appendFloat(dst []byte, f float64) ([]byte, error) {
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
