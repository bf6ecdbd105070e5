package sext

import (
	"bytes"

	"github.com/erlsext/sext/term"
)

// A Matcher is a pattern compiled once to be matched against encoded keys
// without decoding them: the pattern's literal parts are compared as
// bytes, '_' is skipped over, and '$N' is bound to the byte range of what
// it matched, compared as bytes where it repeats. A key is decoded only
// when it matches and the caller wants the bindings or the key.
//
// It answers exactly as Decode followed by Match does. Equal bytes are
// equal terms, but different bytes are different terms only when they
// are the encoder's own: keys written with legacy bignums, unsorted map
// entries and the other alternative forms the decoders accept (written by
// real Erlang systems) are recognised where the match would depend on
// them, and only those keys go through Decode and Match.
//
// Keys that do not decode: a Matcher checks the bytes it reads as Decode
// does, so on such a key it returns Decode's own *DecodeError, unless it
// has found from the bytes it read that the key cannot match, in which
// case it reports no match. It never reports a match for a key that
// Decode refuses. A Matcher is safe for concurrent use.
type Matcher struct {
	pattern term.Term
	opts    Options
	root    mnode
	names   []string // the '$N' names, in the order first met, as Match binds them
	// tailBinds: some '$N' binds a list's tail, which has no encoding of
	// its own; the bindings then come from Decode and Match.
	tailBinds bool
	// confirm: such a '$N' also appears elsewhere, so the byte match
	// cannot compare it, and a key that matches the rest is confirmed
	// with Decode and Match.
	confirm bool
	// last: the encoding of a small integer that ends every key the
	// pattern matches, as 500000 ends {order,'_','_',500000}, or nil. A
	// key that ends otherwise is refuted without a walk, unless it ends
	// as the integer's other forms do (see endsAs).
	last []byte
}

type mop uint8

type mnode struct {
	op     mop
	repeat bool // opBind: not the first occurrence of the slot
	slot   int
	lit    []byte
	nest   int // opLit: the compounds nested in the literal, for the depth limit
	kids   []mnode
	tail   *mnode // opList: nil for a proper list
}

// CompileMatch compiles pattern for matching encoded keys; it is
// Options{}.CompileMatch.
func CompileMatch(pattern term.Term) (*Matcher, error) { return Options{}.CompileMatch(pattern) }

// CompileMatch compiles pattern for keys encoded and read under o
// (UTF8Atoms, MaxDepth). A pattern whose literal parts cannot be encoded
// under o, such as an atom beyond Latin-1, is an *EncodeError: no key
// could match it.
func (o Options) CompileMatch(pattern term.Term) (*Matcher, error) {
	m := &Matcher{pattern: pattern, opts: o}
	// Literal parts are encoded to the deeper of the default limit and
	// o's: a pattern deeper than o allows is no error, it matches nothing
	// that decodes under o.
	lits := Options{UTF8Atoms: o.UTF8Atoms, MaxDepth: max(o.maxDepth(), DefaultMaxDepth)}
	c := compiler{m: m, lits: lits, slots: map[string]int{}, tailSlots: map[string]bool{}}
	root, wild, err := c.compile(pattern, false, 0)
	if err == nil && !wild {
		root.lit, err = lits.Encode(pattern)
	}
	if err != nil {
		return nil, err
	}
	m.root = root
	m.last = lastInt(&m.root)
	return m, nil
}

// lastInt returns the literal that ends every key matching n: the last
// element of a tuple (of the last element of a tuple ...) when it is a
// small integer, whose one encoding the encoder writes is five bytes.
func lastInt(n *mnode) []byte {
	for n.op == opTuple && len(n.kids) > 0 {
		n = &n.kids[len(n.kids)-1]
	}
	if b := n.lit; n.op == opLit && len(b) == 5 {
		if _, ok := smallInt64(b, 0); ok {
			return b
		}
	}
	return nil
}

// endsAs reports whether key may end with an integer whose encoding is
// last: it ends with those bytes, or with 0x00 or 0xFF, the last byte of
// the integer's other forms (bignum forms, whose last byte is the flag,
// and zero's 32-bit negative form).
func endsAs(key, last []byte) bool {
	if len(key) == 0 || bytes.HasSuffix(key, last) {
		return true
	}
	c := key[len(key)-1]
	return c == 0x00 || c == 0xFF
}

type compiler struct {
	m         *Matcher
	lits      Options // for encoding literal parts
	slots     map[string]int
	tailSlots map[string]bool // '$N' names bound at a list tail
}

// compile returns the node for p and whether p holds a wildcard. A part
// without one is a literal, encoded whole by the nearest enclosing part
// that has one, so that compiling costs one encoding of the pattern.
func (c *compiler) compile(p term.Term, isTail bool, depth int) (mnode, bool, error) {
	m := c.m
	if depth > c.lits.MaxDepth {
		return mnode{}, false, errEncodeDepth
	}
	if IsWildcard(p) {
		name := p.Atom()
		if name == "_" {
			return mnode{op: opAny}, true, nil
		}
		slot, seen := c.slots[name]
		if !seen {
			slot = len(m.names)
			c.slots[name] = slot
			m.names = append(m.names, name)
		}
		switch {
		case isTail:
			m.tailBinds = true
			m.confirm = m.confirm || seen
			c.tailSlots[name] = true
			return mnode{op: opAny}, true, nil
		case c.tailSlots[name]:
			m.confirm = true
			return mnode{op: opAny}, true, nil
		}
		return mnode{op: opBind, slot: slot, repeat: seen}, true, nil
	}
	n := mnode{}
	var kids []term.Term
	switch p.Kind() {
	case term.KindTuple:
		n.op, kids = opTuple, p.Elems()
	case term.KindList:
		n.op, kids = opList, p.Elems()
	case term.KindMap:
		n.op = opMap
		for _, e := range p.Entries() {
			kids = append(kids, e.Key, e.Value)
		}
	case term.KindDesc:
		n.op, kids = opDesc, []term.Term{p.Inner()}
	case term.KindBinaryPrefix:
		return mnode{op: opPrefix, lit: p.BinaryPrefix()}, true, nil
	default:
		return mnode{op: opLit}, false, nil
	}
	n.kids = make([]mnode, len(kids))
	wild, nest := false, 0
	for i, k := range kids {
		var w bool
		var err error
		if n.kids[i], w, err = c.compile(k, false, depth+1); err != nil {
			return mnode{}, false, err
		}
		wild, nest = wild || w, max(nest, n.kids[i].nest)
	}
	if n.op == opList && !p.IsProper() {
		tail, w, err := c.compile(p.Tail(), true, depth+1)
		if err != nil {
			return mnode{}, false, err
		}
		n.tail, wild, nest = &tail, wild || w, max(nest, tail.nest)
		if !w && wild {
			if tail.lit, err = c.lits.Encode(p.Tail()); err != nil {
				return mnode{}, false, err
			}
			*n.tail = mnode{op: opLit, lit: tail.lit, nest: tail.nest}
		}
	}
	if !wild {
		return mnode{op: opLit, nest: nest + 1}, false, nil
	}
	for i := range n.kids {
		if n.kids[i].op == opLit && n.kids[i].lit == nil {
			var err error
			if n.kids[i].lit, err = c.lits.Encode(kids[i]); err != nil {
				return mnode{}, false, err
			}
			n.kids[i].kids = nil
		}
	}
	return n, true, nil
}

// Pattern returns the pattern m was compiled from.
func (m *Matcher) Pattern() term.Term { return m.pattern }
