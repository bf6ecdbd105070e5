package store

import (
	"fmt"

	"github.com/erlsext/sext/term"
)

// A migration's shapes. A clause's body builds the new key; its shape is
// that body read as a pattern: what the body constructs ({{...}} tuples,
// lists, maps with constant keys, #Desc) stays structure, constants stay
// themselves, and every variable, '$_', '$$' and call becomes a
// wildcard. Every key the body can build has the shape (the one place
// where that could fail, the encoder's round trip, is checked on each
// new key before it is written). Migrate leaves every key that has the
// shape of some clause's body, so a key it moved is never moved again:
// not when its new key lands ahead of the scan, not when a step is
// repeated after a crash, not when the migration is run again from the
// start. A shape may be wider than the body's image (a list with a tail,
// a map with computed keys are wildcards past what is known), which can
// only leave more keys alone, never move one twice.

type shapeKind uint8

const (
	shapeAny    shapeKind = iota // any term
	shapeExact                   // val itself
	shapeTuple                   // a tuple of len(elems), element by element
	shapeList                    // a proper list of len(elems), element by element
	shapePrefix                  // a list that starts with len(elems) elements of these shapes
	shapeMap                     // a map with exactly keys, their values of elems' shapes
	shapeDesc                    // #Desc of elems[0]
)

type shape struct {
	kind  shapeKind
	val   term.Term
	keys  []term.Term
	elems []shape
}

// isMatchVar reports whether an atom is one of a specification's
// variables, '$' and decimal digits, as package matchspec reads them.
func isMatchVar(name string) bool {
	if len(name) < 2 || name[0] != '$' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

// bodyShape reads a body expression as package matchspec compiles it
// (see its package documentation) and returns the shape of its values.
// Where the reading is unsure, the answer is a wildcard, which is
// always right.
func bodyShape(e term.Term) shape {
	switch e.Kind() {
	case term.KindAtom:
		if n := e.Atom(); n == "$_" || n == "$$" || n == "_" || isMatchVar(n) {
			return shape{kind: shapeAny}
		}
	case term.KindTuple:
		es := e.Elems()
		switch {
		case len(es) == 1 && es[0].Kind() == term.KindTuple:
			inner := es[0].Elems()
			sh := shape{kind: shapeTuple, elems: make([]shape, len(inner))}
			for i, x := range inner {
				sh.elems[i] = bodyShape(x)
			}
			return sh
		case len(es) == 2 && es[0].Kind() == term.KindAtom && es[0].Atom() == "const":
			return shape{kind: shapeExact, val: es[1]}
		}
		return shape{kind: shapeAny} // a call
	case term.KindList:
		es := e.Elems()
		if len(es) == 0 && e.IsProper() {
			return shape{kind: shapeExact, val: e}
		}
		sh := shape{kind: shapeList, elems: make([]shape, len(es))}
		if !e.IsProper() {
			// [A, B | T]: T's value is joined on when it is a list, so
			// only the first elements are known.
			sh.kind = shapePrefix
		}
		for i, x := range es {
			sh.elems[i] = bodyShape(x)
		}
		return sh
	case term.KindMap:
		es := e.Entries()
		sh := shape{kind: shapeMap}
		for _, en := range es {
			k := bodyShape(en.Key)
			if k.kind != shapeExact {
				return shape{kind: shapeAny}
			}
			sh.keys = append(sh.keys, k.val)
			sh.elems = append(sh.elems, bodyShape(en.Value))
		}
		for i := range sh.keys {
			for j := i + 1; j < len(sh.keys); j++ {
				if term.Equal(sh.keys[i], sh.keys[j]) {
					return shape{kind: shapeAny} // one entry of the two remains
				}
			}
		}
		return sh
	case term.KindDesc:
		return shape{kind: shapeDesc, elems: []shape{bodyShape(e.Inner())}}
	}
	return shape{kind: shapeExact, val: e}
}

// has reports whether t has the shape.
func (sh *shape) has(t term.Term) bool {
	switch sh.kind {
	case shapeAny:
		return true
	case shapeExact:
		return term.Equal(sh.val, t)
	case shapeTuple:
		if t.Kind() != term.KindTuple || t.Len() != len(sh.elems) {
			return false
		}
		return sh.hasElems(t.Elems())
	case shapeList:
		if !t.IsProper() || t.Len() != len(sh.elems) {
			return false
		}
		return sh.hasElems(t.Elems())
	case shapePrefix:
		if t.Kind() != term.KindList || t.Len() < len(sh.elems) {
			return false
		}
		return sh.hasElems(t.Elems()[:len(sh.elems)])
	case shapeMap:
		if t.Kind() != term.KindMap || t.Len() != len(sh.keys) {
			return false
		}
		es := t.Entries()
		for i, k := range sh.keys {
			found := false
			for _, en := range es {
				if term.Equal(k, en.Key) {
					found = sh.elems[i].has(en.Value)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case shapeDesc:
		return t.Kind() == term.KindDesc && sh.elems[0].has(t.Inner())
	}
	return false
}

func (sh *shape) hasElems(ts []term.Term) bool {
	for i := range sh.elems {
		if !sh.elems[i].has(ts[i]) {
			return false
		}
	}
	return true
}

// covers reports whether every term the head pattern matches has the
// shape. It may answer false when the truth is true (it knows nothing of
// guards, and takes a map pattern for a wildcard), never the other way.
func (sh *shape) covers(head term.Term) bool {
	if sh.kind == shapeAny {
		return true
	}
	if isWild(head) {
		return false
	}
	switch sh.kind {
	case shapeExact:
		return groundHead(head) && term.Equal(sh.val, head)
	case shapeTuple:
		return head.Kind() == term.KindTuple && head.Len() == len(sh.elems) && sh.coversElems(head.Elems())
	case shapeList:
		return head.IsProper() && head.Len() == len(sh.elems) && sh.coversElems(head.Elems())
	case shapePrefix:
		return head.Kind() == term.KindList && head.Len() >= len(sh.elems) && sh.coversElems(head.Elems()[:len(sh.elems)])
	case shapeDesc:
		return head.Kind() == term.KindDesc && sh.elems[0].covers(head.Inner())
	}
	return false // a map pattern matches maps with more keys than it names
}

func (sh *shape) coversElems(hs []term.Term) bool {
	for i := range sh.elems {
		if !sh.elems[i].covers(hs[i]) {
			return false
		}
	}
	return true
}

func isWild(t term.Term) bool {
	return t.Kind() == term.KindAtom && (t.Atom() == "_" || isMatchVar(t.Atom()))
}

// groundHead reports whether a head pattern matches exactly one term: itself.
func groundHead(t term.Term) bool {
	switch t.Kind() {
	case term.KindAtom:
		return !isWild(t)
	case term.KindTuple:
		for _, e := range t.Elems() {
			if !groundHead(e) {
				return false
			}
		}
	case term.KindList:
		for _, e := range t.Elems() {
			if !groundHead(e) {
				return false
			}
		}
		return t.IsProper() || groundHead(t.Tail())
	case term.KindMap:
		return false
	case term.KindDesc:
		return groundHead(t.Inner())
	}
	return true
}

// migrationShapes returns the shapes of the bodies of spec's clauses (a
// compiled specification's term: [{Head, Guards, Body}]), refusing with
// ErrMigrateSpec a clause whose head only matches keys that already have
// one of those shapes: it could never move a key.
func migrationShapes(ms term.Term) ([]shape, error) {
	clauses := ms.Elems()
	shapes := make([]shape, len(clauses))
	for i, c := range clauses {
		body := c.Elems()[2].Elems()
		shapes[i] = shape{kind: shapeAny}
		if len(body) > 0 {
			shapes[i] = bodyShape(body[len(body)-1])
		}
	}
	for i, c := range clauses {
		head := c.Elems()[0]
		for j := range shapes {
			if shapes[j].covers(head) {
				return nil, fmt.Errorf("%w: clause %d: every key its head %v matches already has the shape clause %d's body builds, "+
					"so no key could be told from a migrated one; build keys of a new shape (another tag, a #Desc, one more element)",
					ErrMigrateSpec, i+1, head, j+1)
			}
		}
	}
	return shapes, nil
}
