package sext

import "github.com/erlsext/sext/term"

// Binding is the term a '$N' wildcard matched.
type Binding struct {
	Name  string // the wildcard's atom name, such as "$1"
	Value term.Term
}

// Bindings lists the wildcards a match bound, in the order first met.
type Bindings []Binding

// Get returns the term bound to the wildcard name ("$1") and whether it
// was bound.
func (bs Bindings) Get(name string) (term.Term, bool) {
	for _, b := range bs {
		if b.Name == name {
			return b.Value, true
		}
	}
	return term.Term{}, false
}

// Match reports whether t matches pattern, and returns the bindings of
// its '$N' wildcards. '_' matches any term; '$N' matches any term too,
// but every occurrence of the same '$N' must match equal terms. Tuples
// match element by element; a list pattern whose tail is a wildcard
// matches any list that starts with its elements; maps of the same size
// match entry by entry in key order (the order their encodings and
// prefixes use); Desc matches Desc. Everything else must be Equal.
//
// A prefix scan finds every term that matches, and possibly more: Match
// is the exact filter for its results.
func Match(pattern, t term.Term) (Bindings, bool) {
	var bs Bindings
	ok := match(pattern, t, &bs)
	return bs, ok
}

func match(p, t term.Term, bs *Bindings) bool {
	switch p.Kind() {
	case term.KindAtom:
		name := p.Atom()
		if !isWildName(name) {
			break
		}
		if name == "_" {
			return true
		}
		if v, ok := bs.Get(name); ok {
			return term.Equal(v, t)
		}
		*bs = append(*bs, Binding{Name: name, Value: t})
		return true
	case term.KindTuple:
		if t.Kind() != term.KindTuple || t.Len() != p.Len() {
			return false
		}
		return matchAll(p.Elems(), t.Elems(), bs)
	case term.KindList:
		if t.Kind() != term.KindList {
			return false
		}
		pe, te := p.Elems(), t.Elems()
		if len(te) < len(pe) {
			return false
		}
		if !matchAll(pe, te[:len(pe)], bs) {
			return false
		}
		switch tail := p.Tail(); {
		case IsWildcard(tail):
			if tail.Atom() == "_" { // binds nothing: no need to build the rest
				return true
			}
			return match(tail, term.ImproperList(te[len(pe):len(te):len(te)], t.Tail()), bs)
		case len(te) != len(pe):
			return false
		case p.IsProper():
			return t.IsProper()
		default:
			return !t.IsProper() && match(tail, t.Tail(), bs)
		}
	case term.KindMap:
		if t.Kind() != term.KindMap || t.Len() != p.Len() {
			return false
		}
		pe, te := p.Entries(), t.Entries()
		for i := range pe {
			if !match(pe[i].Key, te[i].Key, bs) || !match(pe[i].Value, te[i].Value, bs) {
				return false
			}
		}
		return true
	case term.KindDesc:
		return t.Kind() == term.KindDesc && match(p.Inner(), t.Inner(), bs)
	}
	return term.Equal(p, t)
}

func matchAll(ps, ts []term.Term, bs *Bindings) bool {
	for i := range ps {
		if !match(ps[i], ts[i], bs) {
			return false
		}
	}
	return true
}
