package sext

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// Int64 returns the value of an integer. An integer beyond int64 is an
// error wrapping ErrRange; a float is not an integer (ErrKind).
func (v View) Int64() (int64, error) {
	if n, ok := smallInt64(v.bytes(), v.pos); ok {
		return n, nil
	}
	return v.bigInt64()
}

// bigInt64 is Int64 of what its fast path leaves: the bignum forms, an
// integer inside the wrapping that unwrap reads through, and what is not
// an integer.
func (v View) bigInt64() (int64, error) {
	v, err := v.unwrap()
	if err != nil {
		return 0, err
	}
	b, pos := v.bytes(), v.pos
	if n, ok := smallInt64(b, pos); ok {
		return n, nil
	}
	if pos >= len(b) || b[pos] != tagPosBig && b[pos] != tagNegBig {
		return 0, v.kindErr("an integer")
	}
	s := v.skipper()
	defer s.release()
	n, err := s.bigParts(pos)
	if err != nil {
		return 0, err
	}
	if float, err := n.isFloat(b); err != nil || float {
		if err == nil {
			err = errAt(pos, ErrKind, "float, not an integer")
		}
		return 0, err
	}
	switch {
	case n.fits && !n.neg && n.u <= math.MaxInt64:
		return int64(n.u), nil
	case n.fits && n.neg && n.u <= 1<<63:
		return int64(-n.u), nil
	}
	return 0, errAt(pos, ErrRange, "integer does not fit in an int64")
}

// Float returns the value of a float. An integer is not a float (ErrKind).
func (v View) Float() (float64, error) {
	v, err := v.unwrap()
	if err != nil {
		return 0, err
	}
	b, pos := v.bytes(), v.pos
	if pos >= len(b) {
		return 0, errAt(pos, ErrTruncated, "")
	}
	s := v.skipper()
	s.bufs()
	defer s.release()
	switch b[pos] {
	case tagPos4, tagNeg4:
		t, _, err := s.d.small(pos)
		if err != nil {
			return 0, err
		}
		if t.Kind() != term.KindFloat {
			return 0, errAt(pos, ErrKind, "integer, not a float")
		}
		return t.Float(), nil
	case tagPosBig, tagNegBig:
		n, err := s.bigParts(pos)
		if err != nil {
			return 0, err
		}
		float, err := n.isFloat(b)
		if err != nil {
			return 0, err
		}
		if !float {
			return 0, errAt(pos, ErrKind, "integer, not a float")
		}
		f, _, err := s.bigFloat(pos, n)
		return f, err
	}
	return 0, v.kindErr("a float")
}

// AppendBits appends a binary's or bitstring's bytes to dst and returns
// the extended buffer and the length in bits; a partial last byte holds
// its bits in the high end, as term.Bitstring does.
func (v View) AppendBits(dst []byte) ([]byte, int, error) {
	v, err := v.unwrap()
	if err != nil {
		return dst, 0, err
	}
	b, pos := v.bytes(), v.pos
	if pos >= len(b) || b[pos] != tagBinary {
		return dst, 0, v.kindErr("a binary")
	}
	f, err := scanFrame(b, pos+1, 0)
	if err != nil {
		return dst, 0, err
	}
	start := len(dst)
	dst = grow(dst, f.units)
	if err := unframe(dst[start:], b, pos+1, f, 0); err != nil {
		return dst[:start], 0, err
	}
	return dst, f.bits, nil
}

// AppendBytes appends a binary's bytes to dst and returns the extended
// buffer. A bitstring that is not whole bytes is an error wrapping
// ErrKind; AppendBits reads those.
func (v View) AppendBytes(dst []byte) ([]byte, error) {
	start := len(dst)
	dst, bits, err := v.AppendBits(dst)
	if err == nil && bits&7 != 0 {
		return dst[:start], errAt(v.pos, ErrKind, "bitstring of "+strconv.Itoa(bits)+" bits, not a binary")
	}
	return dst, err
}

// AppendAtom appends an atom's name, as UTF-8 text, to dst and returns
// the extended buffer.
func (v View) AppendAtom(dst []byte) ([]byte, error) {
	v, err := v.unwrap()
	if err != nil {
		return dst, err
	}
	b, pos := v.bytes(), v.pos
	if pos >= len(b) || b[pos] != tagAtom {
		return dst, v.kindErr("an atom")
	}
	f, err := wholeFrame(b, pos+1)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = grow(dst, f.units)
	if err := unframe(dst[start:], b, pos+1, f, 0); err != nil {
		return dst[:start], err
	}
	dst = dst[:start+f.bits/8]
	name := dst[start:]
	high := 0
	for _, c := range name {
		if c >= utf8.RuneSelf {
			high++
		}
	}
	switch {
	case high == 0:
	case v.utf8():
		if !utf8.Valid(name) {
			return dst[:start], errAt(pos, ErrInvalid, errAtomUTF8.Error())
		}
	default:
		// Latin-1: each high byte becomes two bytes of UTF-8, written
		// from the back so that nothing is overwritten before it is read.
		n := len(name)
		dst = grow(dst, high)
		out := dst[start:]
		for i, o := n-1, n+high-1; i >= 0; i-- {
			c := out[i]
			if c < utf8.RuneSelf {
				out[o] = c
				o--
				continue
			}
			out[o], out[o-1] = 0x80|c&0x3F, 0xC0|c>>6
			o -= 2
		}
	}
	return dst, nil
}

// AtomIs reports whether the term is the atom named name. It is false,
// without an error, for a term that is not an atom.
func (v View) AtomIs(name string) (bool, error) {
	v, err := v.unwrap()
	if err != nil {
		return false, err
	}
	b, pos := v.bytes(), v.pos
	if pos >= len(b) || b[pos] != tagAtom {
		if _, err := v.Kind(); err != nil {
			return false, err
		}
		return false, nil
	}
	f, err := wholeFrame(b, pos+1)
	if err != nil {
		return false, err
	}
	n := f.bits / 8
	i := 0 // the unit compared next
	for k := 0; k < len(name); {
		c := name[k]
		k++
		if c >= utf8.RuneSelf && !v.utf8() {
			r, size := utf8.DecodeRuneInString(name[k-1:])
			if r > 0xFF || r == utf8.RuneError && size == 1 {
				return false, nil // no Latin-1 atom has this name
			}
			c, k = byte(r), k-1+size
		}
		if i >= n || unitByte(b, pos+1, i, 0) != c {
			return false, v.checkAtom(f)
		}
		i++
	}
	if i != n {
		return false, v.checkAtom(f)
	}
	return true, v.checkAtom(f)
}

// checkAtom makes the decoder's one remaining check of an atom's name: in
// UTF8Atoms mode, that it is valid UTF-8.
func (v View) checkAtom(f frame) error {
	if !v.utf8() {
		return nil
	}
	var tmp [256]byte
	_, err := v.AppendAtom(tmp[:0])
	return err
}

// AppendInner appends the encoding that a descending term (term.Desc)
// wraps to dst and returns the extended buffer: read it with a View of
// its own.
func (v View) AppendInner(dst []byte) ([]byte, error) {
	v, err := v.unwrap()
	if err != nil {
		return dst, err
	}
	b, pos := v.bytes(), v.pos
	if pos >= len(b) || b[pos] != tagDesc {
		return dst, v.kindErr("a descending term")
	}
	s := v.skipper()
	s.callerInner, s.inner = true, dst
	_, _, err = s.descInner(pos, v.depth())
	out := s.inner
	s.release()
	if err != nil {
		return dst, err
	}
	return out, nil
}
