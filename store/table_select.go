package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// Select over a table's objects. A specification's heads are patterns of
// whole objects, {person, '$1', '_', Email} say, as ets:select takes
// them; the planner reads only the keys that the heads' key slots allow:
// each clause gives the key spec {KeySlot, Guards, ['$_']}, its guards
// being those of the clause that use nothing but the key slot's
// variables (dropping a guard of a conjunction only widens it), and that
// spec's plan (matchspec.Spec.Plan), in the bytes of the keys, put after
// the table's prefix, is what the select reads. Each object read is then
// matched whole against the clauses of its range, guards and bodies
// included. With one clause whose head, or a guard =:= on its variable,
// fixes an indexed field, the select may read that index's entries of
// the value instead (see TablePlan).

// TableRow is one result of SelectTable.
type TableRow struct {
	Key term.Term
	// Object is the whole object; the zero Term with KeysOnly.
	Object term.Term
	// Result is what the first matching clause's body made of the
	// object: Result.Whole is set for a body of just '$_'.
	Result matchspec.Result

	raw []byte // the key's bytes, to resume after
	id  [8]byte
	rev bool
}

// Continuation returns a token that resumes the select right after r:
// text, safe in a URL, that any process can pass back as
// SelectOptions.After to SelectTable with the same table, specification
// and direction.
func (r TableRow) Continuation() string {
	if r.raw == nil {
		return ""
	}
	return tableTokens.encode(r.id, r.rev, r.raw)
}

// tableTokens are SelectTable's, "t1.", made by a table and a
// specification.
var tableTokens = &tokenFormat{
	prefix: "t1.", made: "the select of another table or specification,",
	direction: func(rev bool) string {
		if rev {
			return "it resumes a reverse select"
		}
		return "it resumes a forward select"
	},
}

// tableSelectID is the identity of a select of spec over the table name.
func tableSelectID(name string, spec *matchspec.Spec) (id [8]byte) {
	h := sha256.Sum256([]byte(name + "\x00" + spec.ID()))
	copy(id[:], h[:])
	return id
}

// TablePlan is what a SelectTable reads: ranges of the table's objects,
// or the entries of one index value.
type TablePlan struct {
	Table string
	// Index is the attribute whose index the select reads, or "" when it
	// reads the table's objects.
	Index  string
	Unique bool      // the index is unique: one entry, read with Get
	Value  term.Term // the index value looked up
	// Ranges are the byte ranges of the store's keys that the select
	// reads (in its reserved range), ascending, each with the clauses
	// that run on the objects in it; for an index, the one range of its
	// entries of Value.
	Ranges []matchspec.Range
	// Why says why the planner chose this, for people.
	Why string
}

// tablePlan is a TablePlan ready to run.
type tablePlan struct {
	d      *tableDef
	ranges []matchspec.Range
	// keys answers, on the key alone, the clauses that keyOnly marks:
	// those whose heads leave every other field '_' and whose guards
	// and body use nothing but the key's variables. A select with
	// KeysOnly whose range has only such clauses decodes no object.
	keys    *matchspec.Spec
	keyOnly []bool
	ix      *tableIndex
	v       term.Term
	vb      []byte // v's encoding
	why     string
}

// ExplainTable returns what SelectTable reads for spec over table: its
// byte ranges or the index it reads instead, and why; the same decision
// SelectTable makes. A specification with a head that can never match
// the table's objects is an error wrapping ErrTableSpec.
func (s *Store) ExplainTable(ctx context.Context, table string, spec *matchspec.Spec) (TablePlan, error) {
	c, err := s.currentTables(ctx)
	if err != nil {
		return TablePlan{}, err
	}
	d, err := c.live(table)
	if err != nil {
		return TablePlan{}, err
	}
	p, err := s.planTable(d, spec)
	if err != nil {
		return TablePlan{}, err
	}
	out := TablePlan{Table: table, Ranges: p.ranges, Why: p.why}
	if p.ix != nil {
		out.Index, out.Unique, out.Value = p.ix.Attr, p.ix.Unique, p.v
	}
	return out, nil
}

// keySlot returns the pattern a head puts on the key, or an error if the
// head cannot match an object of d.
func (d *tableDef) keySlot(head term.Term, clause int) (term.Term, error) {
	bad := func(why string) (term.Term, error) {
		return term.Term{}, fmt.Errorf("%w: table %q, clause %d: the head %v %s", ErrTableSpec, d.Name, clause+1, head, why)
	}
	switch {
	case head.Kind() == term.KindAtom && sext.IsWildcard(head):
		return wildcard, nil
	case head.Kind() != term.KindTuple:
		return bad("is not a tuple, and the table holds tuples")
	}
	n := d.arity()
	switch {
	case n > 0 && head.Len() != n && d.Record != "":
		return bad(fmt.Sprintf("has %d elements; a %s record has %d", head.Len(), d.Record, n))
	case n > 0 && head.Len() != n:
		return bad(fmt.Sprintf("has %d elements; the table's objects have %d", head.Len(), n))
	case head.Len() < d.KeyPos:
		return bad(fmt.Sprintf("has no element at the key position %d", d.KeyPos))
	}
	if d.Record != "" {
		e := head.Elems()[0]
		if !(e.Kind() == term.KindAtom && sext.IsWildcard(e)) && !term.Equal(e, term.Atom(d.Record)) {
			return bad("is not a " + d.Record + " record")
		}
	}
	return head.Elems()[d.KeyPos-1], nil
}

// keyDecides reports whether a head matches every object of d that its
// key slot matches: a record head of the record's arity whose other
// elements are '_' and whose first is the record's name or '_'.
func (d *tableDef) keyDecides(head term.Term) bool {
	if head.Kind() != term.KindTuple || d.arity() == 0 || head.Len() != d.arity() {
		return false
	}
	for i, e := range head.Elems() {
		switch {
		case i == d.KeyPos-1:
		case i == 0 && d.Record != "" && term.Equal(e, term.Atom(d.Record)):
		case !term.Equal(e, wildcard):
			return false
		}
	}
	return true
}

// planTable plans a select of spec over d's objects.
func (s *Store) planTable(d *tableDef, spec *matchspec.Spec) (*tablePlan, error) {
	cls := spec.Term().Elems()
	keyCls := make([]term.Term, len(cls))
	heads := make([]term.Term, len(cls))
	exact := make([]term.Term, len(cls))
	keyOnly := make([]bool, len(cls))
	for i, cl := range cls {
		heads[i] = cl.Elems()[0]
		kp, err := d.keySlot(heads[i], i)
		if err != nil {
			return nil, err
		}
		vars := map[string]bool{}
		patternVarSet(kp, vars)
		var kept []term.Term
		for _, g := range cl.Elems()[1].Elems() {
			if onlyVars(g, vars) {
				kept = append(kept, g)
			}
		}
		keyCls[i] = term.Tuple(kp, term.List(kept...), term.List(term.Atom("$_")))
		if d.keyDecides(heads[i]) && len(kept) == cl.Elems()[1].Len() && onlyVars(cl.Elems()[2], vars) {
			keyOnly[i] = true
			exact[i] = term.Tuple(kp, cl.Elems()[1], cl.Elems()[2])
		} else {
			exact[i] = keyCls[i]
		}
	}
	p := &tablePlan{d: d, keyOnly: keyOnly}
	if slices.Contains(keyOnly, true) {
		if ks, err := matchspec.Compile(term.List(exact...)); err == nil {
			p.keys = ks
		}
	}
	all := make([]int, len(cls))
	for i := range all {
		all[i] = i
	}
	whole := []matchspec.Range{{Lower: d.rows, Upper: d.rowsEnd, Clauses: all}}
	if ks, err := matchspec.Compile(term.List(keyCls...)); err != nil {
		p.ranges = whole // cannot happen for a spec that compiled; read it all
	} else {
		for _, r := range ks.Plan() {
			lo, hi := slices.Concat(d.rows, r.Lower), d.rowsEnd
			if r.Upper != nil {
				hi = slices.Concat(d.rows, r.Upper)
			}
			p.ranges = append(p.ranges, matchspec.Range{Lower: lo, Upper: hi, Clauses: r.Clauses})
		}
	}
	narrowed := !(len(p.ranges) == 1 && bytes.Equal(p.ranges[0].Lower, d.rows) && bytes.Equal(p.ranges[0].Upper, d.rowsEnd))
	switch {
	case len(p.ranges) == 0:
		p.why = "no key can match"
	case narrowed:
		p.why = fmt.Sprintf("the key slots narrow the read to %d range(s) of the table's objects", len(p.ranges))
	default:
		p.why = "nothing narrows the key: every object is read"
	}
	if len(cls) != 1 || len(p.ranges) == 0 {
		return p, nil
	}
	// An index, for one clause: a unique one whenever the clause fixes
	// its field, another when the key does not narrow the read.
	var best *tableIndex
	var bestV term.Term
	for _, ix := range d.indexes {
		if ix.State != IndexReady || heads[0].Kind() != term.KindTuple || ix.Pos > heads[0].Len() {
			continue
		}
		v, ok := fixedValue(heads[0].Elems()[ix.Pos-1], cls[0].Elems()[1].Elems())
		if !ok || (!ix.Unique && narrowed) || best != nil && (best.Unique || !ix.Unique) {
			continue
		}
		best, bestV = ix, v
	}
	if best == nil {
		return p, nil
	}
	vb, err := s.codec.Encode(bestV)
	if err != nil {
		return p, nil
	}
	p.ix, p.v, p.vb = best, bestV, vb
	lo := slices.Concat(best.head, vb)
	p.ranges = []matchspec.Range{{Lower: lo, Upper: prefixEnd(lo), Clauses: []int{0}}}
	if best.Unique {
		p.ranges[0].Upper = append(bytes.Clone(lo), 0) // the one key
		p.why = fmt.Sprintf("the unique index on %s: the clause fixes %s to %v", best.Attr, best.Attr, bestV)
	} else {
		p.why = fmt.Sprintf("the index on %s: the clause fixes %s to %v and the key does not narrow the read", best.Attr, best.Attr, bestV)
	}
	return p, nil
}

// fixedValue returns the value a head's element fixes: the element
// itself when it holds no wildcard, or for a '$N' the constant of a
// guard '$N' =:= C (or == C, C holding no number).
func fixedValue(el term.Term, guards []term.Term) (term.Term, bool) {
	if groundTerm(el) {
		return el, true
	}
	if el.Kind() != term.KindAtom || !sext.IsWildcard(el) || el.Atom() == "_" {
		return term.Term{}, false
	}
	for _, g := range guards {
		if g.Kind() != term.KindTuple || g.Len() != 3 || g.Elems()[0].Kind() != term.KindAtom {
			continue
		}
		op := g.Elems()[0].Atom()
		if op != "=:=" && op != "==" {
			continue
		}
		x, y := g.Elems()[1], g.Elems()[2]
		if term.Equal(y, el) {
			x, y = y, x
		}
		if !term.Equal(x, el) {
			continue
		}
		c, ok := guardConst(y)
		if ok && (op == "=:=" || !holdsNumber(c)) {
			return c, true
		}
	}
	return term.Term{}, false
}

// guardConst returns the constant a guard operand stands for: {const, X}
// or a literal that a guard reads as itself (no variable, no tuple,
// which a guard reads as a call, no list or map, which it builds).
func guardConst(t term.Term) (term.Term, bool) {
	switch t.Kind() {
	case term.KindTuple:
		if t.Len() == 2 && term.Equal(t.Elems()[0], term.Atom("const")) {
			return t.Elems()[1], true
		}
		return term.Term{}, false
	case term.KindAtom:
		if sext.IsWildcard(t) || t.Atom() == "$_" || t.Atom() == "$$" {
			return term.Term{}, false
		}
	case term.KindList, term.KindMap:
		return t, t.Len() == 0
	}
	return t, true
}

// groundTerm reports whether t holds no wildcard.
func groundTerm(t term.Term) bool {
	switch t.Kind() {
	case term.KindAtom:
		return !sext.IsWildcard(t)
	case term.KindTuple, term.KindList:
		if !slices.ContainsFunc(t.Elems(), func(e term.Term) bool { return !groundTerm(e) }) {
			return t.Kind() == term.KindTuple || t.IsProper() || groundTerm(t.Tail())
		}
		return false
	case term.KindMap:
		return !slices.ContainsFunc(t.Entries(), func(e term.MapEntry) bool { return !groundTerm(e.Key) || !groundTerm(e.Value) })
	case term.KindDesc:
		return groundTerm(t.Inner())
	case term.KindBinaryPrefix:
		return false // a pattern: <<"ali",_/binary>>
	}
	return true
}

func holdsNumber(t term.Term) bool {
	switch t.Kind() {
	case term.KindInt, term.KindFloat:
		return true
	case term.KindTuple, term.KindList:
		return slices.ContainsFunc(t.Elems(), holdsNumber) || t.Kind() == term.KindList && !t.IsProper() && holdsNumber(t.Tail())
	case term.KindMap:
		return slices.ContainsFunc(t.Entries(), func(e term.MapEntry) bool { return holdsNumber(e.Key) || holdsNumber(e.Value) })
	case term.KindDesc:
		return holdsNumber(t.Inner())
	}
	return false
}

// patternVarSet adds the '$N' variables of a pattern to vars.
func patternVarSet(p term.Term, vars map[string]bool) {
	switch p.Kind() {
	case term.KindAtom:
		if sext.IsWildcard(p) && p.Atom() != "_" {
			vars[p.Atom()] = true
		}
	case term.KindTuple, term.KindList:
		for _, e := range p.Elems() {
			patternVarSet(e, vars)
		}
		if p.Kind() == term.KindList && !p.IsProper() {
			patternVarSet(p.Tail(), vars)
		}
	case term.KindMap:
		for _, e := range p.Entries() {
			patternVarSet(e.Key, vars)
			patternVarSet(e.Value, vars)
		}
	case term.KindDesc:
		patternVarSet(p.Inner(), vars)
	}
}

// onlyVars reports whether guard g uses no variable outside vars, nor
// '$_' or '$$' (the whole object).
func onlyVars(g term.Term, vars map[string]bool) bool {
	switch g.Kind() {
	case term.KindAtom:
		n := g.Atom()
		if n == "$_" || n == "$$" {
			return false
		}
		return !sext.IsWildcard(g) || n == "_" || vars[n]
	case term.KindTuple:
		if g.Len() == 2 && term.Equal(g.Elems()[0], term.Atom("const")) {
			return true
		}
		for _, e := range g.Elems() {
			if !onlyVars(e, vars) {
				return false
			}
		}
	case term.KindList:
		for _, e := range g.Elems() {
			if !onlyVars(e, vars) {
				return false
			}
		}
		return g.IsProper() || onlyVars(g.Tail(), vars)
	case term.KindMap:
		for _, e := range g.Entries() {
			if !onlyVars(e.Key, vars) || !onlyVars(e.Value, vars) {
				return false
			}
		}
	case term.KindDesc:
		return onlyVars(g.Inner(), vars)
	}
	return true
}

// SelectTable yields, in key order (descending with Reverse), a row for
// every object of table that spec matches: the first clause whose head
// matches the object and whose guards are true gives the row, as
// ets:select and ets:select_reverse do on an ordered_set. It reads what
// ExplainTable reports: the ranges the key slots allow, each object at
// most once, or one index's entries of one value. SelectStats.KeysRead
// counts every key read, index entries and objects alike.
//
// A specification with a head that can never match the table's objects
// (another record, another arity, not a tuple) is an error wrapping
// ErrTableSpec, yielded before any row. Paging, tokens and early exits
// are as for Select; a token is refused (ErrTokenMismatch) by a select
// of another table, specification or direction.
func (s *Store) SelectTable(ctx context.Context, table string, spec *matchspec.Spec, opts SelectOptions) iter.Seq2[TableRow, error] {
	return func(yield func(TableRow, error) bool) {
		c, err := s.currentTables(ctx)
		if err != nil {
			yield(TableRow{}, err)
			return
		}
		d, err := c.live(table)
		if err != nil {
			yield(TableRow{}, err)
			return
		}
		p, err := s.planTable(d, spec)
		if err != nil {
			yield(TableRow{}, err)
			return
		}
		id := tableSelectID(table, spec)
		var after []byte
		if opts.After != "" {
			if after, err = tableTokens.decode(opts.After, id, opts.Reverse); err != nil {
				yield(TableRow{}, err)
				return
			}
		}
		sel := &tableSelection{s: s, ctx: ctx, d: d, id: id, opts: opts, m: spec.NewMatcher(), stats: opts.Stats, keyOnly: p.keyOnly}
		if opts.KeysOnly && p.keys != nil {
			sel.km = p.keys.NewMatcher()
		}
		if sel.stats == nil {
			sel.stats = new(SelectStats)
		}
		if p.ix != nil {
			sel.byIndex(p, after, yield)
			return
		}
		for i := range p.ranges {
			r := p.ranges[i]
			if opts.Reverse {
				r = p.ranges[len(p.ranges)-1-i]
			}
			var at []byte
			if after != nil {
				at = slices.Concat(d.rows, after)
			}
			lo, hi, ok := clip(r.Lower, r.Upper, at, opts.Reverse)
			if !ok {
				continue
			}
			more, err := sel.readRange(lo, hi, r.Clauses, yield)
			if err != nil && !sel.stopped {
				yield(TableRow{}, err)
				return
			}
			if !more {
				return
			}
		}
	}
}

type tableSelection struct {
	s     *Store
	ctx   context.Context
	d     *tableDef
	id    [8]byte
	opts  SelectOptions
	m     *matchspec.Matcher
	stats *SelectStats
	// stopped: the caller's loop ended, so nothing more may be yielded,
	// not even an error.
	stopped bool
	// km, with KeysOnly, matches the keys of the clauses keyOnly marks
	// (tablePlan.keys).
	km      *matchspec.Matcher
	keyOnly []bool
}

// row matches the object stored under kb (the key's encoding) with the
// value v, and makes its row; ok false means no clause matched, or the
// object is damaged (reported to OnBadKey).
func (sel *tableSelection) row(raw, kb, v []byte, clauses []int) (TableRow, bool) {
	key, err := sel.s.codec.Decode(kb)
	if err == nil && sel.km != nil && !slices.ContainsFunc(clauses, func(c int) bool { return !sel.keyOnly[c] }) {
		// KeysOnly, and the key decides: no object to decode.
		res, ok := sel.km.MatchClauses(key, clauses)
		if !ok {
			return TableRow{}, false
		}
		return TableRow{Key: key, Result: res, raw: bytes.Clone(kb), id: sel.id, rev: sel.opts.Reverse}, true
	}
	var obj term.Term
	if err == nil {
		obj, err = sel.d.object(key, v)
	}
	if err != nil {
		if sel.opts.OnBadKey != nil {
			sel.opts.OnBadKey(bytes.Clone(raw), err)
		}
		return TableRow{}, false
	}
	res, ok := sel.m.MatchClauses(obj, clauses)
	if !ok {
		return TableRow{}, false
	}
	r := TableRow{Key: key, Result: res, raw: bytes.Clone(kb), id: sel.id, rev: sel.opts.Reverse}
	if !sel.opts.KeysOnly {
		r.Object = obj
	}
	return r, true
}

// emit yields r; it reports false when the caller stopped or the limit
// was reached.
func (sel *tableSelection) emit(r TableRow, yield func(TableRow, error) bool) bool {
	sel.stats.Rows++
	if !yield(r, nil) {
		sel.stopped = true
		return false
	}
	return sel.opts.Limit <= 0 || sel.stats.Rows < int64(sel.opts.Limit)
}

// readRange yields the rows of one range of objects.
func (sel *tableSelection) readRange(lo, hi []byte, clauses []int, yield func(TableRow, error) bool) (more bool, err error) {
	if err := sel.ctx.Err(); err != nil {
		return false, err
	}
	it, err := sel.s.openCursor(sel.ctx, lo, hi, sel.opts.Reverse)
	if err != nil {
		return false, err
	}
	sel.stats.Ranges++
	defer it.Close() // an early break, a panic; the normal end reports its error
	more = true
	for it.Next() {
		if err = sel.ctx.Err(); err != nil {
			break
		}
		sel.stats.KeysRead++
		k := it.Key()
		v := it.Value()
		if v == nil && it.Err() != nil {
			break
		}
		r, ok := sel.row(k, k[len(sel.d.rows):], v, clauses)
		if !ok {
			continue
		}
		if !sel.emit(r, yield) {
			more = false
			break
		}
	}
	err = it.finish(err)
	return more && err == nil, err
}

// byIndex yields the rows of the objects p's index gives for its value.
func (sel *tableSelection) byIndex(p *tablePlan, after []byte, yield func(TableRow, error) bool) {
	s, d := sel.s, sel.d
	sel.stats.Index = p.ix.Attr
	sel.stats.Ranges++
	clauses := []int{0}
	// fetch reads and yields the object under kb; false: stop.
	fetch := func(kb []byte) (bool, error) {
		rk := slices.Concat(d.rows, kb)
		v, err := s.kv.Get(sel.ctx, rk)
		if errors.Is(err, ErrNotFound) {
			return true, nil // deleted since the entry was read
		}
		if err != nil {
			return false, err
		}
		sel.stats.KeysRead++
		r, ok := sel.row(rk, kb, v, clauses)
		if !ok {
			return true, nil
		}
		return sel.emit(r, yield), nil
	}
	var err error
	if p.ix.Unique {
		err = func() error {
			kb, err := s.kv.Get(sel.ctx, p.ranges[0].Lower)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			sel.stats.KeysRead++
			if after != nil {
				c := bytes.Compare(kb, after)
				if !sel.opts.Reverse && c <= 0 || sel.opts.Reverse && c >= 0 {
					return nil
				}
			}
			_, err = fetch(kb)
			return err
		}()
	} else {
		err = func() error {
			lo, hi := p.ranges[0].Lower, p.ranges[0].Upper
			if after != nil {
				var ok bool
				if lo, hi, ok = clip(lo, hi, slices.Concat(lo, after), sel.opts.Reverse); !ok {
					return nil
				}
			}
			head := len(p.ranges[0].Lower)
			it, err := s.openCursor(sel.ctx, lo, hi, sel.opts.Reverse)
			if err != nil {
				return err
			}
			defer it.Close() // an early return; the normal end reports its error
			for it.Next() {
				if err = sel.ctx.Err(); err != nil {
					break
				}
				sel.stats.KeysRead++
				more, ferr := fetch(bytes.Clone(it.Key()[head:]))
				if ferr != nil {
					err = ferr
					break
				}
				if !more {
					return it.finish(nil)
				}
			}
			return it.finish(err)
		}()
	}
	if sel.stopped {
		return
	}
	if err == nil {
		err = s.tableIndexReady(sel.ctx, d.Name, p.ix.Pos)
	}
	if err != nil {
		yield(TableRow{}, err)
	}
}

// tableIndexReady reports, as an error wrapping ErrNoIndex, an index
// that was dropped while a select read it (its entries may have gone
// before its objects).
func (s *Store) tableIndexReady(ctx context.Context, table string, pos int) error {
	c, err := s.currentTables(ctx)
	if err != nil {
		return err
	}
	d := c.find(table)
	if d == nil || d.dropping {
		return fmt.Errorf("%w: table %q was dropped during the select", ErrNoTable, table)
	}
	if ix := d.index(pos); ix == nil || ix.State != IndexReady {
		return fmt.Errorf("%w: table %q's index on %s was dropped during the select", ErrNoIndex, table, d.attrName(pos))
	}
	return nil
}
