package sext

import (
	"errors"
	"strings"
)

// ErrText: the text is not valid hex or sb32.
var ErrText = errors.New("invalid text encoding")

// An Encoding is a text form of encodings that, like the bytes, sorts:
// comparing two texts as strings compares the encodings (for SB32, see
// OrderedSB32 for where it does not). It has the shape of
// encoding/base32's Encoding. The three values are Hex, SB32 and
// OrderedSB32; the forms are fixed, since another alphabet or padding
// would break the order.
//
// The text of a term is Encode and then an Encoding:
//
//	b, err := sext.Encode(t)
//	s := sext.Hex.EncodeToString(b)
//
// and of a pattern, Prefix and then AppendPrefix. In the reference's
// words: to_hex and from_hex are Hex.EncodeToString and Hex.DecodeString,
// to_sb32 and from_sb32 those of SB32; encode_hex is Encode then
// Hex.EncodeToString, decode_hex Hex.DecodeString then Decode, prefix_hex
// Prefix then Hex.AppendPrefix, and encode_sb32, decode_sb32 and
// prefix_sb32 the same with SB32 (docs/DESIGN.md, Text forms).
type Encoding struct {
	sb32    bool // base 32 rather than hex
	ordered bool // sb32's last partial character shifted up (RFC 4648)
}

var (
	// Hex is upper-case hex, as the reference's to_hex writes it: upper
	// case only, since mixing cases would break the order. Decoding takes
	// either case, as a reader should.
	Hex = &Encoding{}

	// SB32 is the reference's sortable base 32 (to_sb32, encode_sb32):
	// five bits a character from 0-9A-V, and a last character holding the
	// one to four bits left over, followed by RFC 4648's padding for that
	// case in '-', which sorts below every digit. The reference writes
	// those last bits as a plain number, not shifted up as RFC 4648 does,
	// so where one encoding ends inside a character and another goes on,
	// the texts can sort against the encodings (docs/FORMAT.md). Its texts
	// are the reference's bytes; use OrderedSB32 where order matters more.
	SB32 = &Encoding{sb32: true}

	// OrderedSB32 is SB32 with the bits of the last, partial character
	// shifted up, as RFC 4648 does: its texts always sort as the
	// encodings do, but differ from the reference's in that character.
	OrderedSB32 = &Encoding{sb32: true, ordered: true}
)

const (
	hexDigits  = "0123456789ABCDEF"
	sb32Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUV" // in ASCII order
)

// sb32Pad is the padding after a last character of 1 to 4 bits; a
// byte string's length leaves one of these.
var sb32Pad = [5]string{1: "----", 2: "-", 3: "------", 4: "---"}

// EncodedLen returns the length of the text of n bytes.
func (e *Encoding) EncodedLen(n int) int {
	if e.sb32 {
		return (n + 4) / 5 * 8
	}
	return 2 * n
}

// DecodedLen returns the most bytes that a text of n characters holds.
func (e *Encoding) DecodedLen(n int) int {
	if e.sb32 {
		return n / 8 * 5
	}
	return n / 2
}

// AppendEncode appends the text of src to dst and returns the extended
// buffer. It allocates nothing when dst has room for EncodedLen(len(src))
// more bytes.
func (e *Encoding) AppendEncode(dst, src []byte) []byte {
	if e.sb32 {
		return appendSB32(dst, src, e.ordered)
	}
	return appendHex(dst, src)
}

func appendHex(dst, src []byte) []byte {
	dst = withRoom(dst, 2*len(src))
	for _, c := range src {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}

func appendSB32(dst, src []byte, ordered bool) []byte {
	dst = withRoom(dst, (len(src)+4)/5*8)
	var acc uint64
	n := 0 // bits in acc
	for _, c := range src {
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

// EncodeToString returns the text of src.
func (e *Encoding) EncodeToString(src []byte) string {
	var sb strings.Builder
	sb.Grow(e.EncodedLen(len(src)))
	// Whole chunks of 5 bytes (40 bits) end on a character boundary in
	// both forms, so the text is the chunks' texts one after another; a
	// buffer on the stack saves a second copy of the text.
	var buf [256]byte
	chunk := len(buf) / 2 // bytes whose text fills buf
	if e.sb32 {
		chunk = len(buf) / 8 * 5
	}
	for len(src) > 0 {
		n := min(len(src), chunk)
		sb.Write(e.AppendEncode(buf[:0], src[:n]))
		src = src[n:]
	}
	return sb.String()
}

// AppendPrefix appends the text of prefix, the bytes every encoding in a
// range starts with (as Prefix returns), to dst: the longest text that
// starts the text of every byte string that starts with prefix. For Hex it
// is the text of prefix; SB32 and OrderedSB32 drop the last, partial
// character and its padding, whose bits would differ in a longer string,
// as the reference's prefix_sb32 does.
func (e *Encoding) AppendPrefix(dst, prefix []byte) []byte {
	if !e.sb32 || len(prefix)%5 == 0 {
		return e.AppendEncode(dst, prefix)
	}
	whole := len(prefix) / 5 * 8    // characters of the whole 5-byte groups
	part := len(prefix) % 5 * 8 / 5 // whole characters of the rest
	return e.AppendEncode(dst, prefix)[:len(dst)+whole+part]
}

// AppendDecode appends the bytes whose text src is to dst and returns the
// extended buffer. A malformed text gives a *DecodeError wrapping ErrText,
// with the offset of the bad character in src (or its length when the
// text stops short), and dst unchanged (bytes past its length, within its
// capacity, may have been written). It allocates nothing when dst has room
// for DecodedLen(len(src)) more bytes.
func (e *Encoding) AppendDecode(dst, src []byte) ([]byte, error) {
	return appendDecode(e, dst, src)
}

// DecodeString returns the bytes whose text s is; its errors are
// AppendDecode's.
func (e *Encoding) DecodeString(s string) ([]byte, error) {
	b, err := appendDecode(e, nil, s)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// appendDecode is AppendDecode for a text in a string or in bytes, so that
// DecodeString need not copy its text.
func appendDecode[S ~string | ~[]byte](e *Encoding, dst []byte, src S) ([]byte, error) {
	var out []byte
	var err error
	if e.sb32 {
		out, err = appendDecodeSB32(dst, src, e.ordered)
	} else {
		out, err = appendDecodeHex(dst, src)
	}
	return settle(dst, out, err)
}

func appendDecodeHex[S ~string | ~[]byte](dst []byte, src S) ([]byte, error) {
	if len(src)%2 != 0 {
		return dst, errAt(len(src), ErrText, "odd length of hex")
	}
	dst = withRoom(dst, len(src)/2)
	for i := 0; i < len(src); i += 2 {
		hi, ok1 := unhex(src[i])
		lo, ok2 := unhex(src[i+1])
		if !ok1 || !ok2 {
			off := i
			if ok1 {
				off++
			}
			return dst, errAt(off, ErrText, "not a hex digit")
		}
		dst = append(dst, hi<<4|lo)
	}
	return dst, nil
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

func appendDecodeSB32[S ~string | ~[]byte](dst []byte, src S, ordered bool) ([]byte, error) {
	body, rem := src, 0
	for i, p := range sb32Pad {
		if i > 0 && hasPad(src, p) {
			body, rem = src[:len(src)-len(p)], i
			break
		}
	}
	bits := 5 * len(body)
	if rem != 0 {
		bits += rem - 5
	}
	if bits%8 != 0 {
		return dst, errAt(len(src), ErrText, "sb32 length is not whole bytes")
	}
	dst = withRoom(dst, bits/8)
	var acc uint64
	n := 0
	for i := range len(body) {
		v, ok := unsb32(body[i])
		if !ok {
			return dst, errAt(i, ErrText, "not an sb32 digit")
		}
		w := 5
		if rem != 0 && i == len(body)-1 {
			w = rem
			if ordered {
				if v&(1<<(5-rem)-1) != 0 {
					return dst, errAt(i, ErrText, "sb32 last digit has bits past the end")
				}
				v >>= 5 - rem
			}
			if v >= 1<<rem {
				return dst, errAt(i, ErrText, "sb32 last digit out of range")
			}
		}
		acc = acc<<w | uint64(v)
		n += w
		if n >= 8 {
			n -= 8
			dst = append(dst, byte(acc>>n))
		}
	}
	return dst, nil
}

// hasPad reports whether s ends in the padding p after a digit: only the
// whole padding of one case counts, not the tail of a longer one.
func hasPad[S ~string | ~[]byte](s S, p string) bool {
	k := len(s) - len(p)
	return k > 0 && string(s[k:]) == p && s[k-1] != '-'
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

// withRoom returns dst with room for n more bytes, in one allocation when it
// has to make one. (slices.Grow makes two in race builds, which the
// allocation bounds of the text tests would count.)
func withRoom(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}
