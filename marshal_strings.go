package sext

import (
	"reflect"
	"unicode/utf8"
)

// The conversions of strings and bytes: binaries by default, atoms and
// charlists by tag.

func appendBinaryString(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	dst = append(dst, tagBinary)
	start := len(dst)
	dst = append(dst, v.String()...)
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}

func appendAtomString(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	out, err := c.e.appendAtom(append(dst, tagAtom), v.String())
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

const errCharlistUTF8 = "string is not valid UTF-8, so has no charlist"

func appendCharlist(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	if err := c.open(); err != nil {
		return dst, err
	}
	s := v.String()
	start := len(dst)
	dst = append(dst, tagList)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return dst[:start], unsupportedValue(ErrUnencodable, errCharlistUTF8)
		}
		dst = c.e.appendInt64(dst, int64(r))
		i += n
	}
	return append(dst, markEnd), nil
}

// appendByteValues appends the bytes of a byte slice or array.
func appendByteValues(dst []byte, v reflect.Value) []byte {
	if v.Kind() == reflect.Slice || v.CanAddr() {
		return append(dst, v.Bytes()...)
	}
	for i := range v.Len() {
		dst = append(dst, byte(v.Index(i).Uint()))
	}
	return dst
}

func appendBytes(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	dst = append(dst, tagBinary)
	start := len(dst)
	dst = appendByteValues(dst, v)
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}
