package matchspec

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/erlsext/sext/term"
)

// A head is an Erlang pattern: '_' matches anything, '$N' anything but the
// same term (exactly: 1 does not match 1.0) wherever it recurs, a map
// pattern matches any map that has its keys (as in ets), a binary prefix
// <<"ali",_/binary>> any binary of whole bytes that starts with its bytes
// (as the same pattern in an Erlang function head), and everything else
// matches itself exactly. A pattern compiles to a tree of pats in which
// every part without variables, maps or binary prefixes is one constant.

type patKind uint8

const (
	pAny    patKind = iota // '_'
	pVar                   // '$N', slot
	pConst                 // a ground part, compared with term.Equal
	pTuple                 // elems
	pList                  // elems, then tail against the rest
	pMap                   // keys (ground) and elems (their value patterns)
	pDesc                  // elems[0] against the inner term
	pPrefix                // val, a term.BinaryPrefix
)

type pat struct {
	kind  patKind
	slot  int
	val   term.Term
	elems []pat
	tail  *pat
	keys  []term.Term
}

// varName reports whether an atom name is a match variable: '$' and
// decimal digits, as ets has them.
func varName(s string) bool {
	if len(s) < 2 || s[0] != '$' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// collectVars lists the variables of a head, each once, in ascending
// '$N' order: the order of '$$'; and counts the head's subterms, the
// planner's cost of a walk over it.
func collectVars(head term.Term, cl int) (_ []string, nodes int, _ error) {
	seen := map[string]bool{}
	var walk func(t term.Term) error
	walk = func(t term.Term) error {
		nodes++
		switch t.Kind() {
		case term.KindAtom:
			name := t.Atom()
			if varName(name) {
				seen[name] = true
			} else if len(name) > 1 && name[0] == '$' && (name[1] == '+' || name[1] == '-') {
				// sext's Prefix takes these for wildcards, ets for atoms:
				// refuse rather than guess.
				return &SpecError{Clause: cl, Where: "head", Err: ErrSpec, Detail: "'" + name + "' is neither a variable nor a plain atom here"}
			}
		case term.KindTuple:
			for _, x := range t.Elems() {
				if err := walk(x); err != nil {
					return err
				}
			}
		case term.KindList:
			for _, x := range t.Elems() {
				if err := walk(x); err != nil {
					return err
				}
			}
			if !t.IsProper() { // a proper list's tail is [] again: stop
				return walk(t.Tail())
			}
		case term.KindMap:
			for _, e := range t.Entries() {
				if !ground(e.Key) {
					return &SpecError{Clause: cl, Where: "head", Err: ErrSpec, Detail: "map key " + brief(e.Key) + " is not a constant"}
				}
				if err := walk(e.Value); err != nil {
					return err
				}
			}
		case term.KindDesc:
			return walk(t.Inner())
		}
		return nil
	}
	if err := walk(head); err != nil {
		return nil, 0, err
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		// By number: without leading zeros, a shorter one is smaller.
		na, nb := strings.TrimLeft(a[1:], "0"), strings.TrimLeft(b[1:], "0")
		if c := cmp.Compare(len(na), len(nb)); c != 0 {
			return c
		}
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return names, nodes, nil
}

// ground reports whether t holds no variable, no '_', no map and no
// binary prefix.
func ground(t term.Term) bool {
	switch t.Kind() {
	case term.KindBinaryPrefix:
		return false
	case term.KindAtom:
		name := t.Atom()
		return name != "_" && !varName(name)
	case term.KindTuple:
		for _, x := range t.Elems() {
			if !ground(x) {
				return false
			}
		}
		return true
	case term.KindList:
		for _, x := range t.Elems() {
			if !ground(x) {
				return false
			}
		}
		return t.IsProper() || ground(t.Tail())
	case term.KindMap:
		return false
	case term.KindDesc:
		return ground(t.Inner())
	}
	return true
}

// compilePat compiles bottom up, so that finding the ground parts costs
// one walk however deep the pattern nests.
func compilePat(t term.Term, slotOf map[string]int) pat {
	allConst := func(ps []pat) bool {
		for i := range ps {
			if ps[i].kind != pConst {
				return false
			}
		}
		return true
	}
	switch t.Kind() {
	case term.KindAtom:
		switch name := t.Atom(); {
		case name == "_":
			return pat{kind: pAny}
		case varName(name):
			return pat{kind: pVar, slot: slotOf[name]}
		}
	case term.KindTuple:
		p := pat{kind: pTuple, elems: make([]pat, t.Len())}
		for i, x := range t.Elems() {
			p.elems[i] = compilePat(x, slotOf)
		}
		if allConst(p.elems) {
			return pat{kind: pConst, val: t}
		}
		return p
	case term.KindList:
		if t.Len() == 0 {
			return pat{kind: pConst, val: t}
		}
		p := pat{kind: pList, elems: make([]pat, t.Len())}
		for i, x := range t.Elems() {
			p.elems[i] = compilePat(x, slotOf)
		}
		tail := pat{kind: pConst, val: term.List()}
		if !t.IsProper() {
			tail = compilePat(t.Tail(), slotOf)
		}
		if allConst(p.elems) && tail.kind == pConst {
			return pat{kind: pConst, val: t}
		}
		p.tail = &tail
		return p
	case term.KindMap:
		es := t.Entries()
		p := pat{kind: pMap, elems: make([]pat, len(es)), keys: make([]term.Term, len(es))}
		for i, e := range es {
			p.keys[i] = e.Key
			p.elems[i] = compilePat(e.Value, slotOf)
		}
		return p
	case term.KindDesc:
		in := compilePat(t.Inner(), slotOf)
		if in.kind == pConst {
			return pat{kind: pConst, val: t}
		}
		return pat{kind: pDesc, elems: []pat{in}}
	case term.KindBinaryPrefix:
		return pat{kind: pPrefix, val: t}
	}
	return pat{kind: pConst, val: t}
}

// match matches t, binding slots; bound says which slots hold a value.
func (p *pat) match(t term.Term, slots []term.Term, bound []bool) bool {
	switch p.kind {
	case pAny:
		return true
	case pVar:
		if bound[p.slot] {
			return term.Equal(slots[p.slot], t)
		}
		slots[p.slot], bound[p.slot] = t, true
		return true
	case pConst:
		if p.val.Kind() == term.KindAtom { // record tags: the common case
			return t.Kind() == term.KindAtom && t.Atom() == p.val.Atom()
		}
		return term.Equal(p.val, t)
	case pTuple:
		if t.Kind() != term.KindTuple || t.Len() != len(p.elems) {
			return false
		}
		for i, x := range t.Elems() {
			if !p.elems[i].match(x, slots, bound) {
				return false
			}
		}
		return true
	case pList:
		if t.Kind() != term.KindList {
			return false
		}
		te := t.Elems()
		if len(te) < len(p.elems) {
			return false
		}
		for i := range p.elems {
			if !p.elems[i].match(te[i], slots, bound) {
				return false
			}
		}
		if len(te) == len(p.elems) {
			return p.tail.match(t.Tail(), slots, bound)
		}
		// The rest is a cons: only a variable or '_' matches it.
		switch p.tail.kind {
		case pAny:
			return true
		case pVar:
			rest := te[len(p.elems):]
			return p.tail.match(term.ImproperList(rest[:len(rest):len(rest)], t.Tail()), slots, bound)
		}
		return false
	case pMap:
		if t.Kind() != term.KindMap {
			return false
		}
		es := t.Entries()
		for i, k := range p.keys {
			j := slices.IndexFunc(es, func(e term.MapEntry) bool { return term.Equal(e.Key, k) })
			if j < 0 || !p.elems[i].match(es[j].Value, slots, bound) {
				return false
			}
		}
		return true
	case pPrefix:
		// As <<P, _/binary>> in Erlang: a bitstring that is no binary
		// does not match, whatever its first bytes.
		return t.Kind() == term.KindBinary && t.BitLen()%8 == 0 && bytes.HasPrefix(t.Bytes(), p.val.BinaryPrefix())
	default: // pDesc
		return t.Kind() == term.KindDesc && p.elems[0].match(t.Inner(), slots, bound)
	}
}

// slotNames maps names to slots.
func slotNames(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

func itoa(i int) string { return strconv.Itoa(i) }
