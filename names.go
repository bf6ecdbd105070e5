package sext

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/erlsext/sext/term"
)

// Names: one cache of decoded atom and node names in two layers. Names of
// up to seven ASCII bytes, read in one 64-bit load, are looked up by that
// word in shortNames, shared by every decoder; the rest are interned per
// decoder: the same few
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

// shortNames caches the atoms of up to seven ASCII bytes that any decoder
// has read, for every goroutine at once. It is 64 sets of four ways, a new name
// entering a set's first way and pushing the others down, so that up to
// four hot names that share a set stay cached (a direct-mapped table
// let two colliding names evict each other at every decode, and ten
// record names collide there about half the time). An entry is
// replaced, never filled for good, so this year's names are cached even
// after a million others; a lookup is atomic loads and no lock.
const shortWays = 4

var shortNames [64 * shortWays]atomic.Pointer[shortNameEntry]

// shortNameEntry is a cached name; name points into b, so one allocation
// holds both.
type shortNameEntry struct {
	x    uint64
	b    [8]byte
	name string
}

// shortSet returns the first way of the set of the name x.
func shortSet(x uint64) int { return int(x*0x9E3779B97F4A7C15>>58) * shortWays }

// flatName returns the name of the n bytes at the top of x.
func shortName(x uint64, n int) string {
	set := shortNames[shortSet(x):][:shortWays]
	for i := range set {
		if e := set[i].Load(); e != nil && e.x == x && len(e.name) == n {
			return e.name
		}
	}
	e := &shortNameEntry{x: x}
	binary.BigEndian.PutUint64(e.b[:], x)
	e.name = unsafe.String(&e.b[0], n)
	// Racing goroutines may lose or repeat an entry: each store is whole.
	for i := len(set) - 1; i > 0; i-- {
		set[i].Store(set[i-1].Load())
	}
	set[0].Store(e)
	return e.name
}
