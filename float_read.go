package sext

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"

	"github.com/erlsext/sext/term"
)

// smallFloat is small for what smallInt64 refuses: a float whose integer
// part has a 32-bit form, or bytes too short for either. The decoders,
// which try smallInt64 in their own switch, call it directly.
func (d *decodeState) smallFloat(pos int) (term.Term, int, error) {
	if pos+5 > len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "number")
	}
	v := uint64(binary.BigEndian.Uint32(d.buf[pos+1:]) >> 1)
	if d.buf[pos] == tagPos4 {
		return d.float(pos, pos+5, false, v, nil)
	}
	return d.float(pos, pos+5, true, max31-v, nil)
}

// float reads the fraction section at p of the float whose integer part
// (u, or b when not nil) started at pos, and rebuilds the float.
func (d *decodeState) float(pos, p int, neg bool, u uint64, b *big.Int) (term.Term, int, error) {
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
