package sext

import (
	"slices"

	"github.com/erlsext/sext/term"
)

// IsWildcard reports whether t is a wildcard of a pattern: the atom '_',
// or '$' followed by a decimal number such as '$1' (the reference takes
// whatever Erlang's list_to_integer reads, so a sign is allowed too).
func IsWildcard(t term.Term) bool {
	if t.Kind() != term.KindAtom {
		return false
	}
	return isWildName(t.Atom())
}

func isWildName(s string) bool {
	if s == "_" {
		return true
	}
	if len(s) < 2 || s[0] != '$' {
		return false
	}
	s = s[1:]
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Prefix returns the encoding of pattern up to its first wildcard, met in
// a depth-first walk: a byte prefix of the encoding of every term that
// matches the pattern. Everything after the wildcard is left out, the
// closing bytes of enclosing lists too; a tuple's arity is always written.
// A pattern without wildcards gives its full encoding.
func Prefix(pattern term.Term) ([]byte, error) { return Options{}.AppendPrefix(nil, pattern) }

// AppendPrefix appends the prefix of pattern to dst.
func AppendPrefix(dst []byte, pattern term.Term) ([]byte, error) {
	return Options{}.AppendPrefix(dst, pattern)
}

// Prefix returns the prefix of pattern under o.
func (o Options) Prefix(pattern term.Term) ([]byte, error) { return o.AppendPrefix(nil, pattern) }

// AppendPrefix appends the prefix of pattern under o to dst. On error it
// returns dst unchanged.
func (o Options) AppendPrefix(dst []byte, pattern term.Term) ([]byte, error) {
	return o.appendKey(dst, pattern, true)
}

// PrefixRange returns the half-open range [lower, upper) of byte strings
// that start with the prefix of pattern: exactly the encodings of the
// terms that can match it, ready for an ordered store's iterator bounds.
// upper is nil, meaning no upper bound, when the prefix is empty or all
// 0xFF bytes.
//
// A binary prefix (term.BinaryPrefix, <<"ali", _/binary>>) ends the
// prefix as a wildcard does, but narrows the range to the bits its bytes
// fix: a binary's bytes are framed in 9-bit units, so n bytes fix 9n
// bits, the whole bytes Prefix returns and the first 9n mod 8 bits of
// the next byte, which PrefixRange adds. The range then holds the
// encodings of the binaries that start with those bytes, and of the
// bitstrings that do (which the matchers refuse), and nothing else.
// Inside a descending term only the whole bytes narrow it.
func PrefixRange(pattern term.Term) (lower, upper []byte, err error) {
	return Options{}.PrefixRange(pattern)
}

// PrefixRange returns the range of pattern's prefix under o.
func (o Options) PrefixRange(pattern term.Term) (lower, upper []byte, err error) {
	e := o.encodeState()
	e.prefix = true
	lower, err = e.appendTerm(nil, pattern)
	if err != nil && err != errWildcard {
		return nil, nil, err
	}
	if k := e.partialBits; k > 0 {
		// The next byte starts with k fixed bits: from them followed by
		// zeros, to past them followed by ones.
		upper = PrefixEnd(append(slices.Clip(lower), e.partial|0xFF>>k))
		return append(lower, e.partial), upper, nil
	}
	return lower, PrefixEnd(lower), nil
}

// PrefixEnd returns the least byte string greater than every string that
// starts with prefix, or nil if there is none (prefix empty or all 0xFF).
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := append([]byte(nil), prefix[:i+1]...)
			end[i]++
			return end
		}
	}
	return nil
}
