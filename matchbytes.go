package sext

import (
	"bytes"
	"encoding/binary"

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

const (
	opLit    mop = iota // bytes equal to lit
	opAny               // '_', or a '$N' the walk does not compare
	opBind              // '$N': slot
	opTuple             // kids, arity len(kids)
	opList              // kids, then tail
	opMap               // kids: key, value, key, value...
	opDesc              // kids[0] inside
	opPrefix            // a binary of whole bytes starting with lit, the prefix's bytes
)

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

// verdict is what the walk over a key found.
type verdict uint8

const (
	yes    verdict = iota
	no             // certainly no match
	unsure         // the answer depends on bytes that are not canonical
)

// walker matches one key.
type walker struct {
	s     skipper
	fixed [8][]byte // the bindings' byte ranges, for most patterns
	more  [][]byte  // or for patterns with more than eight '$N'
}

// bound returns the byte range of binding slot i.
func (w *walker) bound(i int) *[]byte {
	if w.more != nil {
		return &w.more[i]
	}
	return &w.fixed[i]
}

// Matches reports whether key matches the pattern, as Decode and Match
// would; see Matcher for keys that do not decode.
func (m *Matcher) Matches(key []byte) (bool, error) {
	var w walker
	v, err := m.walk(&w, key)
	w.s.release()
	switch {
	case err != nil:
		return false, err
	case v == yes && !m.confirm:
		return true, nil
	case v == no:
		return false, nil
	}
	_, _, ok, err := m.slow(key)
	return ok, err
}

// Match reports whether key matches the pattern and returns the bindings
// of its '$N' wildcards, as Decode and Match would: only what the
// wildcards matched is decoded, and only for a key that matches.
func (m *Matcher) Match(key []byte) (Bindings, bool, error) {
	var w walker
	v, err := m.walk(&w, key)
	defer w.s.release()
	switch {
	case err != nil:
		return nil, false, err
	case v == no:
		return nil, false, nil
	case v == unsure || m.confirm || m.tailBinds:
		_, bs, ok, err := m.slow(key)
		return bs, ok, err
	}
	var bs Bindings
	if len(m.names) > 0 {
		bs = make(Bindings, len(m.names))
		for i, name := range m.names {
			t, err := m.opts.Decode(*w.bound(i))
			if err != nil {
				return nil, false, err // cannot happen: the walk checked the bytes
			}
			bs[i] = Binding{Name: name, Value: t}
		}
	}
	return bs, true, nil
}

// MatchKey is Match that also returns the decoded key, for a caller that
// keeps it, such as a store's scan: a key that does not match is not
// decoded.
func (m *Matcher) MatchKey(key []byte) (term.Term, Bindings, bool, error) {
	ok, err := m.Matches(key)
	if err != nil || !ok {
		return term.Term{}, nil, false, err
	}
	t, err := m.opts.Decode(key)
	if err != nil {
		return term.Term{}, nil, false, err
	}
	bs, ok := Match(m.pattern, t)
	return t, bs, ok, nil
}

// slow is the fallback: Decode and Match.
func (m *Matcher) slow(key []byte) (term.Term, Bindings, bool, error) {
	t, err := m.opts.Decode(key)
	if err != nil {
		return term.Term{}, nil, false, err
	}
	bs, ok := Match(m.pattern, t)
	return t, bs, ok, nil
}

func (m *Matcher) walk(w *walker, key []byte) (verdict, error) {
	if m.last != nil && !endsAs(key, m.last) {
		return no, nil
	}
	w.s = newSkipper(key, m.opts)
	if len(m.names) > len(w.fixed) {
		w.more = make([][]byte, len(m.names))
	}
	end, v, err := w.node(&m.root, 0, 0)
	if err != nil || v != yes {
		return v, err
	}
	if end != len(key) {
		return no, errAt(end, ErrTrailing, "")
	}
	return yes, nil
}

// class is what the tag at b[pos] says of the kind of term there, which
// no alternative form changes: 0 for the one tag that can hide any kind
// (a list of no elements with a tail, which is its tail), else the tag,
// with maps apart from lists and the four number tags as one.
func class(b []byte, pos int) int {
	if pos >= len(b) {
		return 0
	}
	switch c := b[pos]; c {
	case tagNegBig, tagNeg4, tagPos4, tagPosBig:
		return tagPos4
	case tagList:
		if pos+1 >= len(b) || b[pos+1] == markBitTail {
			return 0
		}
		if b[pos+1] == markMap {
			return 1
		}
		return tagList
	default:
		return int(c)
	}
}

// differ reports whether the key term at pos certainly differs from a
// term of class cls, and, for tuples, arity n (-1 for any), whatever
// forms the key's bytes take.
func differ(b []byte, pos, cls, n int) bool {
	kc := class(b, pos)
	if kc == 0 || cls == 0 {
		return false
	}
	if kc != cls {
		return true
	}
	return cls == tagTuple && n >= 0 && pos+5 <= len(b) && int(binary.BigEndian.Uint32(b[pos+1:])) != n
}

// refute is the verdict for a key term at pos that the pattern does not
// match as bytes: no if the term's bytes are canonical, else unsure. It
// skips the term to find out, so it reports the term's decoding error.
func (w *walker) refute(pos, open int) (int, verdict, error) {
	w.s.certify = true
	end, info, err := w.s.skip(pos, open)
	w.s.certify = false
	if err != nil {
		return 0, no, err
	}
	if info&canon == 0 {
		return 0, unsure, nil
	}
	return end, no, nil
}

// node matches n against the term at pos, inside open compounds, and
// returns the offset after it (for yes).
func (w *walker) node(n *mnode, pos, open int) (int, verdict, error) {
	b := w.s.d.buf
	switch n.op {
	case opLit:
		if len(b)-pos >= len(n.lit) && bytes.Equal(b[pos:pos+len(n.lit)], n.lit) && open+n.nest <= w.s.d.maxDepth {
			return pos + len(n.lit), yes, nil
		}
		// A well-formed leaf in its one form (a small integer, an atom, a
		// binary, as keys mostly hold) is a different term from the
		// literal, which is in its one form too: no skip to certify it.
		if end, info := leafEnd(b, pos, w.s.d.utf8, w.s.d.intLimit); end > 0 && info&canon != 0 {
			return 0, no, nil
		}
		arity := -1
		if n.lit[0] == tagTuple {
			arity = int(binary.BigEndian.Uint32(n.lit[1:]))
		}
		if differ(b, pos, class(n.lit, 0), arity) {
			return 0, no, nil
		}
		return w.refute(pos, open)
	case opAny:
		end, _, err := w.s.skip(pos, open)
		return end, yes, err
	case opBind:
		end, _, err := w.s.skip(pos, open)
		if err != nil {
			return 0, no, err
		}
		if !n.repeat {
			*w.bound(n.slot) = b[pos:end:end]
			return end, yes, nil
		}
		prev := *w.bound(n.slot)
		if bytes.Equal(prev, b[pos:end]) {
			return end, yes, nil
		}
		// Both must be canonical for different bytes to be different
		// terms. prev may lie in another buffer (a descending term's).
		if _, v, err := w.refute(pos, open); err != nil || v != no {
			return 0, v, err
		}
		check := newSkipper(prev, m0(w.s))
		check.certify = true
		_, info, err := check.skip(0, open)
		check.release()
		if err != nil || info&canon == 0 {
			return 0, unsure, nil
		}
		return 0, no, nil
	case opTuple:
		if pos+5 > len(b) || b[pos] != tagTuple || int(binary.BigEndian.Uint32(b[pos+1:])) != len(n.kids) {
			if differ(b, pos, tagTuple, len(n.kids)) {
				return 0, no, nil
			}
			return w.refute(pos, open)
		}
		_, p, err := w.s.d.header(pos, 1, minTermLen, open)
		if err != nil {
			return 0, no, err
		}
		for i := range n.kids {
			var v verdict
			if p, v, err = w.node(&n.kids[i], p, open+1); err != nil || v != yes {
				return 0, v, err
			}
		}
		return p, yes, nil
	case opList:
		return w.list(n, pos, open)
	case opPrefix:
		return w.prefix(n, pos, open)
	case opMap:
		if pos+6 > len(b) || b[pos] != tagList || b[pos+1] != markMap || int(binary.BigEndian.Uint32(b[pos+2:])) != len(n.kids)/2 {
			if differ(b, pos, 1, -1) {
				return 0, no, nil
			}
			return w.refute(pos, open)
		}
		// Entries pair up by position only if the key's map is
		// canonical: sorted, without repeats.
		w.s.certify = true
		_, info, err := w.s.skip(pos, open)
		w.s.certify = false
		if err != nil {
			return 0, no, err
		}
		if info&canon == 0 {
			return 0, unsure, nil
		}
		p := pos + 6
		for i := range n.kids {
			var v verdict
			if p, v, err = w.node(&n.kids[i], p, open+1); err != nil || v != yes {
				return 0, v, err
			}
		}
		return p, yes, nil
	}
	return w.desc(n, pos, open)
}

// m0 gives the options a skipper was made with, for a second skipper.
func m0(s skipper) Options {
	return Options{UTF8Atoms: s.d.utf8, MaxDepth: s.d.maxDepth}
}

func (w *walker) list(n *mnode, pos, open int) (int, verdict, error) {
	b := w.s.d.buf
	if pos+1 >= len(b) || b[pos] != tagList || b[pos+1] == markMap {
		if differ(b, pos, tagList, -1) {
			return 0, no, nil
		}
		return w.refute(pos, open)
	}
	if err := w.s.d.enter(pos, open); err != nil {
		return 0, no, err
	}
	p := pos + 1
	for i := range n.kids {
		if p >= len(b) || b[p] == markEnd || b[p] == markImproper || b[p] == markBitTail {
			return w.refute(pos, open) // fewer elements, or not canonical
		}
		var v verdict
		var err error
		if p, v, err = w.node(&n.kids[i], p, open+1); err != nil || v != yes {
			return 0, v, err
		}
		if p >= len(b) {
			return 0, no, errAt(p, ErrTruncated, "list")
		}
	}
	switch {
	case n.tail == nil:
		if b[p] == markEnd {
			return p + 1, yes, nil
		}
	case n.tail.op == opAny:
		// The rest of the list, whatever it is.
		end, _, err := w.s.listRest(p, open, len(n.kids))
		return end, yes, err
	case b[p] == markImproper || b[p] == markBitTail:
		return w.node(n.tail, p+1, open+1)
	}
	return w.refute(pos, open)
}

// desc matches a descending pattern with wildcards inside: the key's inner
// bytes are unframed and matched in turn.
func (w *walker) desc(n *mnode, pos, open int) (int, verdict, error) {
	b := w.s.d.buf
	if pos >= len(b) || b[pos] != tagDesc {
		if differ(b, pos, tagDesc, -1) {
			return 0, no, nil
		}
		return w.refute(pos, open)
	}
	inner, end, err := w.s.descInner(pos, open)
	if err != nil {
		return 0, no, err
	}
	// inner stays on s.inner until the match is over: bindings point
	// into it.
	w.s.d.buf = inner
	p, v, err := w.node(&n.kids[0], 0, open+1)
	w.s.d.buf = b
	if err == nil && v == yes && p != len(inner) {
		err = errAt(p, ErrTrailing, "")
	}
	if err != nil {
		return 0, no, inDesc(err, pos)
	}
	return end, v, nil
}

// prefix matches a binary prefix against the term at pos: a binary whose
// frame holds whole bytes and starts with n.lit, read from the frame's
// units in place. A term of another class cannot match; a list with a
// bitstring tail may hide a binary, so it is left to Decode and Match.
func (w *walker) prefix(n *mnode, pos, open int) (int, verdict, error) {
	b := w.s.d.buf
	if pos >= len(b) || b[pos] != tagBinary {
		if differ(b, pos, tagBinary, -1) {
			return 0, no, nil
		}
		if _, _, err := w.s.skip(pos, open); err != nil {
			return 0, no, err
		}
		return 0, unsure, nil
	}
	end, _, err := w.s.skip(pos, open) // every check the decoders make
	if err != nil {
		return 0, no, err
	}
	f, _ := findFrame(b, pos+1)
	if f.bits != 8*f.units || f.units < len(n.lit) {
		return 0, no, nil
	}
	for i, c := range n.lit {
		if unitByte(b, pos+1, i, 0) != c {
			return 0, no, nil
		}
	}
	return end, yes, nil
}
