package term

import "unsafe"

// BinaryPrefix returns the pattern element <<Prefix, _/binary>>: it
// matches every binary (a whole number of bytes) whose first bytes are
// prefix, as the same binary pattern does in Erlang. BinaryPrefix(nil),
// <<_/binary>>, matches every binary. It keeps prefix without copying.
//
// It is a pattern, not a value: the codecs refuse to encode it as a term,
// and it stands where a pattern's wildcards stand, at any depth of a
// tuple, list, map value or Desc. Parse reads it as <<"ali",_/binary>>
// and the printers write it so.
//
// Among terms it sorts as its prefix followed by bytes above every byte:
// after every binary or bitstring that begins with prefix and before the
// first one after those, so that a sorted run of keys and patterns puts
// each prefix at the upper end of what it matches. Equal holds only
// between prefixes of the same bytes; a prefix never equals a binary.
func BinaryPrefix(prefix []byte) Term {
	return mk(KindBinaryPrefix, unsafe.Pointer(unsafe.SliceData(prefix)), uint64(len(prefix))<<3)
}

// BinaryPrefix returns the bytes a BinaryPrefix pattern element requires
// a binary to begin with. It panics if t is not one. The caller must not
// change the bytes.
func (t Term) BinaryPrefix() []byte {
	t.must(KindBinaryPrefix)
	return t.bytes()
}

// compareBinaryPrefix compares a binary or bitstring with a binary prefix,
// or two binary prefixes: a prefix P sorts as P followed by an infinity
// of bits above every bit, so it comes after everything that begins with
// P. At least one of a and b is a prefix.
func compareBinaryPrefix(a, b Term) int {
	pa, pb := a.Kind() == KindBinaryPrefix, b.Kind() == KindBinaryPrefix
	na, nb := a.n(), b.n()
	if c := compareBits(a.bytes(), min(na, nb), b.bytes(), min(na, nb)); c != 0 {
		return c
	}
	// The first min(na, nb) bits agree: the shorter side's end decides,
	// an infinity above any further bit, a plain end below it.
	switch {
	case na == nb:
		switch {
		case pa == pb:
			return 0
		case pa:
			return 1
		}
		return -1
	case na < nb:
		if pa {
			return 1
		}
		return -1
	}
	if pb {
		return -1
	}
	return 1
}
