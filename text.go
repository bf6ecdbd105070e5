package sext

import (
	"errors"

	"github.com/erlsext/sext/term"
)

// Text forms of encodings, as the reference offers them: upper-case hex
// and sortable base 32 (sb32). Both keep the byte order: comparing the
// texts as strings compares the encodings.

// ErrText: the text is not valid hex or sb32.
var ErrText = errors.New("invalid text encoding")

const hexDigits = "0123456789ABCDEF"

// AppendHex appends the upper-case hex text of b to dst. Upper case only:
// mixing cases would break the order.
func AppendHex(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}

// ToHex returns the upper-case hex text of b.
func ToHex(b []byte) string { return string(AppendHex(make([]byte, 0, 2*len(b)), b)) }

// FromHex returns the bytes of a hex text. It takes either case, as a
// reader should; the reference writes only upper case.
func FromHex(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, errAt(len(s), ErrText, "odd length of hex")
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, ok1 := unhex(s[2*i])
		lo, ok2 := unhex(s[2*i+1])
		if !ok1 || !ok2 {
			off := 2 * i
			if ok1 {
				off++
			}
			return nil, errAt(off, ErrText, "not a hex digit")
		}
		b[i] = hi<<4 | lo
	}
	return b, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// sb32 is base 32 with an alphabet in ASCII order, 0-9 then A-V, and the
// padding '-', which sorts below all of them.
const sb32Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUV"

// sb32Pad is the padding after a last character of 1 to 4 bits; a
// byte string's length leaves one of these.
var sb32Pad = [5]string{1: "----", 2: "-", 3: "------", 4: "---"}

// AppendSB32 appends the sb32 text of b to dst: five bits a character,
// and a last character holding the one to four bits left over followed by
// RFC 4648's padding for that case. The reference writes those bits as a
// number, not shifted up as RFC 4648 does, and so does AppendSB32: see
// Options.OrderedSB32 for why that breaks the order and how to avoid it.
func AppendSB32(dst, b []byte) []byte { return appendSB32(dst, b, false) }

func appendSB32(dst, b []byte, ordered bool) []byte {
	var acc uint64
	n := 0 // bits in acc
	for _, c := range b {
		acc = acc<<8 | uint64(c)
		n += 8
		for n >= 5 {
			n -= 5
			dst = append(dst, sb32Digits[acc>>n&31])
		}
	}
	if n > 0 {
		last := acc & (1<<n - 1)
		if ordered {
			last <<= 5 - n
		}
		dst = append(dst, sb32Digits[last])
		dst = append(dst, sb32Pad[n]...)
	}
	return dst
}

// ToSB32 returns the sb32 text of b.
func ToSB32(b []byte) string { return string(AppendSB32(nil, b)) }

// FromSB32 returns the bytes of an sb32 text as the reference writes it.
func FromSB32(s string) ([]byte, error) { return fromSB32(s, false) }

func fromSB32(s string, ordered bool) ([]byte, error) {
	body, rem := s, 0
	for i, p := range sb32Pad {
		if i > 0 && len(s) > len(p) && s[len(s)-len(p):] == p && s[len(s)-len(p)-1] != '-' {
			body, rem = s[:len(s)-len(p)], i
			break
		}
	}
	bits := 5*len(body) - 5 + rem
	if rem == 0 {
		bits = 5 * len(body)
	}
	if bits%8 != 0 {
		return nil, errAt(len(s), ErrText, "sb32 length is not whole bytes")
	}
	out := make([]byte, 0, bits/8)
	var acc uint64
	n := 0
	for i := range len(body) {
		v, ok := unsb32(body[i])
		if !ok {
			return nil, errAt(i, ErrText, "not an sb32 digit")
		}
		w := 5
		if rem != 0 && i == len(body)-1 {
			w = rem
			if ordered {
				if v&(1<<(5-rem)-1) != 0 {
					return nil, errAt(i, ErrText, "sb32 last digit has bits past the end")
				}
				v >>= 5 - rem
			}
			if v >= 1<<rem {
				return nil, errAt(i, ErrText, "sb32 last digit out of range")
			}
		}
		acc = acc<<w | uint64(v)
		n += w
		if n >= 8 {
			n -= 8
			out = append(out, byte(acc>>n))
		}
	}
	return out, nil
}

func unsb32(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'V':
		return c - 'A' + 10, true
	}
	return 0, false
}

// chopSB32 drops a prefix's padding and the partial character before it:
// that character's bits would differ in a longer string.
func chopSB32(s string) string {
	for i, p := range sb32Pad {
		if i > 0 && len(s) > len(p) && s[len(s)-len(p):] == p && s[len(s)-len(p)-1] != '-' {
			return s[:len(s)-len(p)-1]
		}
	}
	return s
}

// EncodeHex returns the hex text of t's encoding, or "" and an error.
func (o Options) EncodeHex(t term.Term) (string, error) {
	b, err := o.Encode(t)
	return ToHex(b), err
}

// DecodeHex decodes the term whose encoding s holds as hex.
func (o Options) DecodeHex(s string) (term.Term, error) {
	b, err := FromHex(s)
	if err != nil {
		return term.Term{}, err
	}
	return o.Decode(b)
}

// PrefixHex returns the hex text of pattern's prefix.
func (o Options) PrefixHex(pattern term.Term) (string, error) {
	b, err := o.Prefix(pattern)
	return ToHex(b), err
}

// AppendSB32 appends the sb32 text of b under o (see OrderedSB32).
func (o Options) AppendSB32(dst, b []byte) []byte { return appendSB32(dst, b, o.OrderedSB32) }

// ToSB32 returns the sb32 text of b under o (see OrderedSB32).
func (o Options) ToSB32(b []byte) string { return string(appendSB32(nil, b, o.OrderedSB32)) }

// FromSB32 returns the bytes of an sb32 text under o (see OrderedSB32).
func (o Options) FromSB32(s string) ([]byte, error) { return fromSB32(s, o.OrderedSB32) }

// EncodeSB32 returns the sb32 text of t's encoding.
func (o Options) EncodeSB32(t term.Term) (string, error) {
	b, err := o.Encode(t)
	return o.ToSB32(b), err
}

// DecodeSB32 decodes the term whose encoding s holds as sb32.
func (o Options) DecodeSB32(s string) (term.Term, error) {
	b, err := o.FromSB32(s)
	if err != nil {
		return term.Term{}, err
	}
	return o.Decode(b)
}

// PrefixSB32 returns the sb32 text of pattern's prefix, without its last
// partial character and padding, so that it is a prefix of the sb32 text
// of every match.
func (o Options) PrefixSB32(pattern term.Term) (string, error) {
	b, err := o.Prefix(pattern)
	return chopSB32(o.ToSB32(b)), err
}

// EncodeHex returns the hex text of t's encoding.
func EncodeHex(t term.Term) (string, error) { return Options{}.EncodeHex(t) }

// DecodeHex decodes the term whose encoding s holds as hex.
func DecodeHex(s string) (term.Term, error) { return Options{}.DecodeHex(s) }

// PrefixHex returns the hex text of pattern's prefix.
func PrefixHex(pattern term.Term) (string, error) { return Options{}.PrefixHex(pattern) }

// EncodeSB32 returns the sb32 text of t's encoding.
func EncodeSB32(t term.Term) (string, error) { return Options{}.EncodeSB32(t) }

// DecodeSB32 decodes the term whose encoding s holds as sb32.
func DecodeSB32(s string) (term.Term, error) { return Options{}.DecodeSB32(s) }

// PrefixSB32 returns the sb32 text of pattern's prefix.
func PrefixSB32(pattern term.Term) (string, error) { return Options{}.PrefixSB32(pattern) }
