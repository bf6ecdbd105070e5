package sext

import (
	"bytes"
	"encoding/binary"

	"github.com/erlsext/sext/term"
)

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
		// (A bignum is never certified so: the refutation below does it.)
		if pos < len(b) && b[pos] != tagPosBig && b[pos] != tagNegBig {
			if end, info := leafEnd(b, pos, w.s.d.utf8, w.s.d.intLimit); end > 0 && info&canon != 0 {
				return 0, no, nil
			}
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
