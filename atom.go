package sext

import (
	"errors"
	"sync"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// Decoded atoms and node names are interned: the same few names recur in
// every key, and a map lookup keyed by string(b) does not allocate. The
// table is bounded so that hostile input cannot grow it without limit;
// past the bound, names are allocated as usual.
const (
	internMaxLen     = 255 // Erlang's own limit on atom length
	internMaxEntries = 1 << 13
)

var interned = struct {
	sync.RWMutex
	names map[string]string
}{names: make(map[string]string)}

// intern returns a string equal to b, shared where it can be.
func intern(b []byte) string {
	if len(b) > internMaxLen {
		return string(b)
	}
	interned.RLock()
	s, ok := interned.names[string(b)]
	interned.RUnlock()
	if ok {
		return s
	}
	s = string(b)
	interned.Lock()
	if len(interned.names) < internMaxEntries {
		interned.names[s] = s
	}
	interned.Unlock()
	return s
}

var errAtomUTF8 = errors.New("atom is not valid UTF-8")

// atomFromBytes makes the atom whose encoded name is b: Latin-1 (each
// byte one character) or UTF-8.
func atomFromBytes(b []byte, utf8Atoms bool) (term.Term, error) {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	switch {
	case ascii:
		return term.Atom(intern(b)), nil
	case utf8Atoms:
		if !utf8.Valid(b) {
			return term.Term{}, errAtomUTF8
		}
		return term.Atom(intern(b)), nil
	}
	s := make([]byte, 0, 2*len(b))
	for _, c := range b {
		s = utf8.AppendRune(s, rune(c))
	}
	return term.Atom(string(s)), nil
}

// nodeName makes a node name from its bytes, which Erlang writes as UTF-8.
func nodeName(b []byte) string { return intern(b) }
