package sext

import (
	"bytes"

	"github.com/erlsext/sext/term"
)

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
// prefixes use); Desc matches Desc; a binary prefix (term.BinaryPrefix,
// <<"ali", _/binary>>) matches every binary of whole bytes that starts
// with its bytes. Everything else must be Equal.
//
// A prefix scan finds every term that matches, and possibly more: Match
// is the exact filter for its results.
func Match(pattern, t term.Term) (Bindings, bool) {
	var bs Bindings
	ok := matchRec(pattern, t, &bs, 0)
	return bs, ok
}

// maxMatchRecursion is how deep matchRec recurses before it hands the rest
// to matchDeep: recursion is the fast way for patterns of keys, the
// explicit stack the safe way for terms built in code, which no input
// bounds.
const maxMatchRecursion = 1000

// matchRec matches by direct recursion, depth levels down.
func matchRec(p, t term.Term, bs *Bindings, depth int) bool {
	if depth >= maxMatchRecursion {
		return matchDeep(p, t, bs)
	}
	depth++
	switch p.Kind() {
	case term.KindAtom:
		ok, _ := matchStep(p, t, bs, nil)
		return ok
	case term.KindTuple:
		if t.Kind() != term.KindTuple || t.Len() != p.Len() {
			return false
		}
		return matchAll(p.Elems(), t.Elems(), bs, depth)
	case term.KindList:
		if t.Kind() != term.KindList {
			return false
		}
		pe, te := p.Elems(), t.Elems()
		if len(te) < len(pe) || !matchAll(pe, te[:len(pe)], bs, depth) {
			return false
		}
		switch tail := p.Tail(); {
		case IsWildcard(tail):
			if tail.Atom() == "_" { // binds nothing: no need to build the rest
				return true
			}
			return matchRec(tail, term.ImproperList(te[len(pe):len(te):len(te)], t.Tail()), bs, depth)
		case len(te) != len(pe):
			return false
		case p.IsProper():
			return t.IsProper()
		default:
			return !t.IsProper() && matchRec(tail, t.Tail(), bs, depth)
		}
	case term.KindMap:
		if t.Kind() != term.KindMap || t.Len() != p.Len() {
			return false
		}
		return matchAll(term.EntryTerms(p.Entries()), term.EntryTerms(t.Entries()), bs, depth)
	case term.KindDesc:
		return t.Kind() == term.KindDesc && matchRec(p.Inner(), t.Inner(), bs, depth)
	case term.KindBinaryPrefix:
		return matchesPrefix(p, t)
	}
	return term.Equal(p, t)
}

// matchesPrefix reports whether t is a binary of whole bytes that starts
// with the bytes of the binary prefix pattern p, as <<P, _/binary>> does
// in Erlang.
func matchesPrefix(p, t term.Term) bool {
	return t.Kind() == term.KindBinary && t.BitLen()%8 == 0 && bytes.HasPrefix(t.Bytes(), p.BinaryPrefix())
}

func matchAll(ps, ts []term.Term, bs *Bindings, depth int) bool {
	for i := range ps {
		if !matchRec(ps[i], ts[i], bs, depth) {
			return false
		}
	}
	return true
}

// matchTask is work left for match: one pattern and term, or two runs of
// them to match pairwise.
type matchTask struct {
	p, t   term.Term
	ps, ts []term.Term // when run
	run    bool
}

// matchDeep walks with an explicit stack, not by recursion, so that
// patterns and terms built in code match at any depth. Tasks run depth
// first, left to right, as in matchRec, so wildcards bind in the order
// they are met.
func matchDeep(p, t term.Term, bs *Bindings) bool {
	var buf [8]matchTask
	st := append(buf[:0], matchTask{p: p, t: t})
	for len(st) > 0 {
		top := &st[len(st)-1]
		if top.run {
			p, t = top.ps[0], top.ts[0]
			if len(top.ps) == 1 {
				st = st[:len(st)-1]
			} else {
				top.ps, top.ts = top.ps[1:], top.ts[1:]
			}
		} else {
			p, t = top.p, top.t
			st = st[:len(st)-1]
		}
		var ok bool
		if ok, st = matchStep(p, t, bs, st); !ok {
			return false
		}
	}
	return true
}

// matchStep checks what p and t hold by themselves and pushes their
// children for later.
func matchStep(p, t term.Term, bs *Bindings, st []matchTask) (bool, []matchTask) {
	switch p.Kind() {
	case term.KindAtom:
		name := p.Atom()
		if !isWildName(name) {
			break
		}
		if name == "_" {
			return true, st
		}
		if v, ok := bs.Get(name); ok {
			return term.Equal(v, t), st
		}
		*bs = append(*bs, Binding{Name: name, Value: t})
		return true, st
	case term.KindTuple:
		if t.Kind() != term.KindTuple || t.Len() != p.Len() {
			return false, st
		}
		return true, pushRun(st, p.Elems(), t.Elems())
	case term.KindList:
		if t.Kind() != term.KindList {
			return false, st
		}
		pe, te := p.Elems(), t.Elems()
		if len(te) < len(pe) {
			return false, st
		}
		// The tail is matched after the elements: push it first.
		switch tail := p.Tail(); {
		case IsWildcard(tail):
			if tail.Atom() != "_" { // '_' binds nothing: no need to build the rest
				rest := term.ImproperList(te[len(pe):len(te):len(te)], t.Tail())
				st = append(st, matchTask{p: tail, t: rest})
			}
		case len(te) != len(pe):
			return false, st
		case p.IsProper():
			if !t.IsProper() {
				return false, st
			}
		default:
			if t.IsProper() {
				return false, st
			}
			st = append(st, matchTask{p: tail, t: t.Tail()})
		}
		return true, pushRun(st, pe, te[:len(pe)])
	case term.KindMap:
		if t.Kind() != term.KindMap || t.Len() != p.Len() {
			return false, st
		}
		return true, pushRun(st, term.EntryTerms(p.Entries()), term.EntryTerms(t.Entries()))
	case term.KindDesc:
		if t.Kind() != term.KindDesc {
			return false, st
		}
		return true, append(st, matchTask{p: p.Inner(), t: t.Inner()})
	case term.KindBinaryPrefix:
		return matchesPrefix(p, t), st
	}
	return term.Equal(p, t), st
}

func pushRun(st []matchTask, ps, ts []term.Term) []matchTask {
	if len(ps) == 0 {
		return st
	}
	return append(st, matchTask{ps: ps, ts: ts, run: true})
}
