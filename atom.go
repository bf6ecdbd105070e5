package sext

import (
	"encoding/binary"
	"errors"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// Decoded atoms and node names are interned per decoder: the same few
// names recur in every key, and a map lookup keyed by string(b) does not
// allocate. Each pooled scratch space and each Decoder has its own table,
// so decoders on different goroutines share no lock, and a table that
// reaches its bound starts afresh rather than stop interning: the names of
// this year's keys are interned even after a million others went by.
// Interned strings are allocated on their own, never in an arena, so a
// term keeps them whatever happens to the decoder.
const (
	internMaxLen     = 255 // Erlang's own limit on atom length
	internMaxEntries = 1 << 12
)

// intern returns a string equal to b, shared where it can be.
func (s *scratchSpace) intern(b []byte) string {
	if len(b) > internMaxLen {
		return string(b)
	}
	if name, ok := s.names[string(b)]; ok {
		return name
	}
	if s.names == nil {
		s.names = make(map[string]string, 64)
	} else if len(s.names) >= internMaxEntries {
		clear(s.names)
	}
	name := string(b)
	s.names[name] = name
	return name
}

// A shortName is a name of up to seven bytes with those bytes, high
// first, as one word: what decoder.atom reads in one load, matched
// without hashing a string.
type shortName struct {
	x    uint64
	name string
}

// shortName returns the interned name of the n bytes at the top of x,
// through a small direct-mapped cache in front of intern.
func (s *scratchSpace) shortName(x uint64, n int) string {
	e := &s.short[x*0x9E3779B97F4A7C15>>59]
	if e.x == x && len(e.name) == n {
		return e.name
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], x)
	e.x, e.name = x, s.intern(b[:n])
	return e.name
}

var errAtomUTF8 = errors.New("atom is not valid UTF-8")

// atomFromBytes makes the atom whose encoded name is b: Latin-1 (each
// byte one character) or UTF-8.
func (s *scratchSpace) atomFromBytes(b []byte, utf8Atoms bool) (term.Term, error) {
	if !utf8Atoms {
		return term.Atom(s.latin1(b)), nil
	}
	if !utf8.Valid(b) {
		return term.Term{}, errAtomUTF8
	}
	return term.Atom(s.intern(b)), nil
}

// latin1 returns the interned UTF-8 text of b read as Latin-1, each byte
// one character: an atom's name in the default encoding, and every node
// name (appendNode says why).
func (s *scratchSpace) latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s.intern(b)
	}
	latin := s.wide[:0]
	for _, c := range b {
		latin = utf8.AppendRune(latin, rune(c))
	}
	s.wide = latin[:0]
	return s.intern(latin)
}
