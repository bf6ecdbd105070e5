package matchspec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// Spec is a compiled match specification: a list of clauses {Head,
// Guards, Body}, tried in order. It is immutable and safe for concurrent
// use; per-match scratch lives in a Matcher.
type Spec struct {
	clauses []clause
	source  term.Term
	id      string
	slots   int // the most variables any clause binds
	nodes   int // subterms of the spec, what planning's allowance is measured in

	planOnce sync.Once
	plan     []Range
}

type clause struct {
	head   pat
	headT  term.Term // the head as written, for the planner
	headN  int       // subterms of the head: the planner's cost of a walk over it
	names  []string  // variable names by slot, in ascending '$N' order
	guards []*expr
	body   []*expr
	whole  bool // the body is exactly ['$_']
}

// Result is what a matching clause made of an object.
type Result struct {
	// Clause is the index, from 0, of the first clause that matched.
	Clause int
	// Term is the value of the clause's body: its last expression. A call
	// in it that raises (hd([]), element/2 out of range) is the atom
	// 'EXIT' where it stands, as in ets:select.
	Term term.Term
	// Whole reports that the body is exactly ['$_'], so Term is the object
	// itself: a store prints such a row as its key and value.
	Whole bool
}

// Parse reads a match specification written in Erlang's term syntax, as
// ets:select takes it, and compiles it:
//
//	[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]
//
// Syntax errors are *term.SyntaxError, with line and column; errors in the
// specification's shape are *SpecError.
func Parse(text string) (*Spec, error) {
	t, err := term.Parse(text)
	if err != nil {
		return nil, err
	}
	return Compile(t)
}

// MustParse is Parse for specifications in source code: it panics on an
// error.
func MustParse(text string) *Spec {
	s, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return s
}

// Compile compiles a match specification, a proper list of {Head, Guards,
// Body} tuples. See the package documentation for what heads, guards and
// bodies may hold. A spec of more than MaxClauses clauses, nesting deeper
// than sext.DefaultMaxDepth, or with #Desc inside #Desc deeper than
// MaxDescDepth is refused with ErrLimit, at any depth a term built in code
// may have.
func Compile(ms term.Term) (*Spec, error) {
	if ms.Kind() != term.KindList || !ms.IsProper() {
		return nil, &SpecError{Err: ErrSpec, Detail: "want a proper list of {Head, Guards, Body}, got " + brief(ms)}
	}
	elems := ms.Elems()
	if len(elems) > MaxClauses {
		return nil, &SpecError{Err: ErrLimit, Detail: "more than MaxClauses clauses"}
	}
	// The shape is checked first, without recursion: compiling recurses
	// into the spec, and a term built in code can nest deeper than a
	// goroutine stack survives; encoding nested Descs grows by an eighth a
	// level.
	nodes, err := checkShape(ms)
	if err != nil {
		return nil, err
	}
	// The identity is the spec's encoding, hashed: the same spec written
	// with other spacing has the same identity in any process. UTF-8
	// atoms, so that any atom a spec may name has an encoding.
	enc, encErr := identity(ms)
	if errors.Is(encErr, sext.ErrDepth) {
		return nil, &SpecError{Err: ErrLimit, Detail: encErr.Error()}
	}
	s := &Spec{source: ms, nodes: nodes, clauses: make([]clause, len(elems))}
	for i, c := range elems {
		if err := s.clauses[i].compile(c, i+1); err != nil {
			return nil, err
		}
		s.slots = max(s.slots, len(s.clauses[i].names))
	}
	if encErr != nil {
		return nil, &SpecError{Err: ErrSpec, Detail: encErr.Error()}
	}
	sum := sha256.Sum256(enc)
	s.id = hex.EncodeToString(sum[:8])
	return s, nil
}

// identity returns the bytes a spec's identity hashes: its encoding. A
// binary prefix has none, so a spec that holds one is encoded with '_' in
// each one's place, followed by the encoding of the list [{N, <<Bytes>>}]
// of the prefixes, N counting the subterms met before each in a
// depth-first walk. One term's encoding is never a proper prefix of
// another's, so no spec without prefixes has the same bytes, and the
// list tells every two specs with prefixes apart.
func identity(ms term.Term) ([]byte, error) {
	o := sext.Options{UTF8Atoms: true}
	if !hasPrefix(ms) {
		return o.Encode(ms)
	}
	var marks []term.Term
	n := 0
	enc, err := o.Encode(stripPrefixes(ms, &n, &marks))
	if err != nil {
		return nil, err
	}
	return o.Append(enc, term.List(marks...))
}

// stripPrefixes returns t with '_' for each binary prefix, and appends
// {N, <<Bytes>>} for each to marks, *n counting the subterms walked.
func stripPrefixes(t term.Term, n *int, marks *[]term.Term) term.Term {
	at := *n
	*n++
	each := func(ts []term.Term) []term.Term {
		out := make([]term.Term, len(ts))
		for i, x := range ts {
			out[i] = stripPrefixes(x, n, marks)
		}
		return out
	}
	switch t.Kind() {
	case term.KindBinaryPrefix:
		*marks = append(*marks, term.Tuple(term.Int(int64(at)), term.Binary(t.BinaryPrefix())))
		return term.Atom("_")
	case term.KindTuple:
		return term.Tuple(each(t.Elems())...)
	case term.KindList:
		if t.IsProper() {
			return term.List(each(t.Elems())...)
		}
		es := each(t.Elems())
		return term.ImproperList(es, stripPrefixes(t.Tail(), n, marks))
	case term.KindMap:
		// Keys are left as they are, so that no two become one: a key
		// with a prefix fails to encode (Compile refuses it anyway).
		es := slices.Clone(t.Entries())
		for i := range es {
			*n += countNodes(es[i].Key)
			es[i].Value = stripPrefixes(es[i].Value, n, marks)
		}
		return term.Map(es...)
	case term.KindDesc:
		return term.Desc(stripPrefixes(t.Inner(), n, marks))
	}
	return t
}

// countNodes counts t's subterms, t included.
func countNodes(t term.Term) int {
	n := 1
	switch t.Kind() {
	case term.KindTuple, term.KindList:
		for _, x := range t.Elems() {
			n += countNodes(x)
		}
		if t.Kind() == term.KindList && !t.IsProper() {
			n += countNodes(t.Tail())
		}
	case term.KindMap:
		for _, e := range t.Entries() {
			n += countNodes(e.Key) + countNodes(e.Value)
		}
	case term.KindDesc:
		n += countNodes(t.Inner())
	}
	return n
}

// MaxClauses bounds the clauses of one specification.
const MaxClauses = 4096

// Len returns the number of clauses.
func (s *Spec) Len() int { return len(s.clauses) }

// Term returns the specification as a term, as it was compiled.
func (s *Spec) Term() term.Term { return s.source }

// String returns the specification in Erlang's syntax.
func (s *Spec) String() string { return s.source.String() }

// ID returns the specification's identity: 16 hex digits of a SHA-256 of
// its sext encoding, the same in every process for the same term.
// Continuation tokens carry it, so that a token is not resumed with
// another specification.
func (s *Spec) ID() string { return s.id }

// Match runs the specification on obj, as ets:select does on one object:
// the first clause whose head matches and whose guards all evaluate to
// true gives the result. It allocates scratch for each call; a loop over
// many objects should use a Matcher.
func (s *Spec) Match(obj term.Term) (Result, bool) { return s.NewMatcher().Match(obj) }

// Matcher runs a Spec with scratch space reused between calls. It is not
// safe for concurrent use; make one for each goroutine.
type Matcher struct {
	s     *Spec
	env   env
	bound []bool
}

// NewMatcher returns a Matcher for s.
func (s *Spec) NewMatcher() *Matcher {
	return &Matcher{s: s, env: env{slots: make([]term.Term, s.slots)}, bound: make([]bool, s.slots)}
}

// Match is Spec.Match.
func (m *Matcher) Match(obj term.Term) (Result, bool) {
	for i := range m.s.clauses {
		if r, ok := m.clause(i, obj); ok {
			return r, true
		}
	}
	return Result{}, false
}

// MatchClauses is Match restricted to the clauses listed, in ascending
// order: those a plan's range serves (Range.Clauses). Every object a clause
// matches lies in one of that clause's ranges, so trying only a range's
// clauses, in order, gives what Match gives.
func (m *Matcher) MatchClauses(obj term.Term, clauses []int) (Result, bool) {
	for _, i := range clauses {
		if r, ok := m.clause(i, obj); ok {
			return r, true
		}
	}
	return Result{}, false
}

func (m *Matcher) clause(i int, obj term.Term) (Result, bool) {
	c := &m.s.clauses[i]
	n := len(c.names)
	clear(m.bound[:n])
	if !c.head.match(obj, m.env.slots, m.bound) {
		return Result{}, false
	}
	m.env.whole = obj
	m.env.n = n
	for _, g := range c.guards {
		v, ok := g.eval(&m.env, false)
		if !ok || !isTrue(v) {
			return Result{}, false
		}
	}
	if c.whole {
		return Result{Clause: i, Term: obj, Whole: true}, true
	}
	var v term.Term
	for _, b := range c.body {
		v, _ = b.eval(&m.env, true)
	}
	return Result{Clause: i, Term: v}, true
}

var (
	atomTrue  = term.Atom("true")
	atomFalse = term.Atom("false")
	atomExit  = term.Atom("EXIT")
)

func isTrue(t term.Term) bool { return t.Kind() == term.KindAtom && t.Atom() == "true" }

// brief prints t for an error message, cut to a readable length.
func brief(t term.Term) string {
	s := t.String()
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
