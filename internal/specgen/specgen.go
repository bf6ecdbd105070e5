// Package specgen makes random keys and random match specifications that
// meet each other often: the keys draw on the constants the specs compare
// with (500 and 500.0, 999.5, 1000 and 1000.0, both zeros, a few atoms),
// and the specs have several clauses, guards on the variable that bounds a
// scan and on others, and every form of body. Tests of the planner and of
// Select share it; it is seeded, so a failure can be replayed.
package specgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/erlsext/sext/term"
)

// Gen makes keys and specifications from R.
type Gen struct {
	R *rand.Rand
	// Erlang leaves out what has no Erlang text or whose order Erlang
	// and the encoding disagree on: Desc terms, pids, ports and
	// references. A live VM can then run the same specs on the same keys.
	Erlang bool
	// Prefixes puts binary prefixes (<<"ali",_/binary>>) into heads: in
	// a key tuple, a list, a list's tail, a map value and (unless Erlang)
	// a Desc; and binaries that begin with them, or nearly do, into
	// keys. ets's match specifications have no binary prefix: a VM runs
	// ETS(spec) instead, which selects the same objects.
	Prefixes bool
}

// New returns a generator seeded with seed, with Prefixes set.
func New(seed uint64) *Gen {
	return &Gen{R: rand.New(rand.NewPCG(seed, seed^0x5E1EC7)), Prefixes: true}
}

var (
	a    = term.Atom
	i    = term.Int
	f    = term.Float
	tags = []string{"order", "user", "t"}
)

// Leaf returns a random non-compound term from a small pool; with
// Prefixes, a quarter are binaries near the prefixes' bytes.
func (g *Gen) Leaf() term.Term {
	if g.Prefixes && g.R.IntN(4) == 0 {
		return g.Binary()
	}
	pool := []term.Term{
		i(0), i(1), i(2), i(-1), i(499), i(500), i(501), i(999), i(1000), i(1001), i(1 << 40),
		f(0), f(math.Copysign(0, -1)), f(1), f(-1), f(2.5), f(500), f(999.5), f(1000), f(-3.5),
		a("a"), a("b"), a("c"), a("true"), a("false"), a("order"),
		term.List(), term.Binary(nil), term.Binary([]byte("a")), term.Binary([]byte("ab")), term.Bitstring([]byte{0xE0}, 3),
		term.Pid{Node: "n@h", ID: 1}.Term(), term.Port{Node: "n@h", ID: 2}.Term(),
		term.Ref{Node: "n@h", Creation: 1, IDs: []uint32{3, 4}}.Term(),
	}
	n := len(pool)
	if g.Erlang {
		n -= 3 // the pid, port and reference at the end
	}
	return pool[g.R.IntN(n)]
}

// Term returns a random term nested at most depth deep.
func (g *Gen) Term(depth int) term.Term {
	if depth <= 0 || g.R.IntN(3) > 0 {
		return g.Leaf()
	}
	switch g.R.IntN(6) {
	case 0:
		return term.Tuple(g.terms(depth-1, g.R.IntN(3))...)
	case 1:
		return term.List(g.terms(depth-1, g.R.IntN(3))...)
	case 2:
		return term.ImproperList(g.terms(depth-1, 1+g.R.IntN(2)), g.Leaf())
	case 3:
		if g.Erlang {
			return term.Tuple()
		}
		return term.Desc(g.Term(depth - 1))
	case 4:
		es := []term.MapEntry{{Key: a("a"), Value: g.Term(depth - 1)}}
		if g.R.IntN(2) == 0 {
			es = append(es, term.MapEntry{Key: a("b"), Value: g.Leaf()})
		}
		return term.Map(es...)
	}
	return term.List()
}

func (g *Gen) terms(depth, n int) []term.Term {
	out := make([]term.Term, n)
	for k := range out {
		out[k] = g.Term(depth)
	}
	return out
}

// Key returns a random key: mostly a tuple led by a tag, sometimes any
// term.
func (g *Gen) Key() term.Term {
	if g.R.IntN(12) == 0 {
		return g.Term(2)
	}
	n := 1 + g.R.IntN(4)
	es := make([]term.Term, n)
	es[0] = a(tags[g.R.IntN(len(tags))])
	for k := 1; k < n; k++ {
		if g.R.IntN(5) == 0 && !g.Erlang {
			es[k] = term.Desc(g.Leaf())
		} else {
			es[k] = g.Term(2)
		}
	}
	return term.Tuple(es...)
}

// prefixes are the bytes of the binary prefixes heads hold: every length
// from 0 to 9, so that the bits a prefix fixes past its whole bytes in
// the encoding (9n mod 8 of them) take every count from 0 to 7.
var prefixes = []string{"", "a", "al", "ali", "alic", "alice", "alice_", "alice_b", "alice_bo", "alice_bob"}

// Binary returns a binary near the prefixes: one of them, one followed by
// a few more bytes, one whose last byte differs from a prefix's in a low
// bit or two (the bits the prefix's range fixes past its whole bytes),
// one a byte short, or a bitstring that begins with a prefix.
func (g *Gen) Binary() term.Term {
	p := []byte(prefixes[g.R.IntN(len(prefixes))])
	switch g.R.IntN(6) {
	case 0, 1:
		for range g.R.IntN(4) {
			p = append(p, "aelz\x00\xff"[g.R.IntN(6)])
		}
	case 2:
		if len(p) > 0 {
			p[len(p)-1] ^= byte(1 + g.R.IntN(3))
		}
	case 3:
		if len(p) > 0 {
			p = p[:len(p)-1]
		}
	case 4:
		bits := 1 + g.R.IntN(7)
		return term.Bitstring(append(p, byte(g.R.IntN(256))&^(0xFF>>bits)), 8*len(p)+bits)
	}
	return term.Binary(p)
}

// PrefixPattern returns a random binary prefix <<P,_/binary>>.
func (g *Gen) PrefixPattern() term.Term {
	return term.BinaryPrefix([]byte(prefixes[g.R.IntN(len(prefixes))]))
}

// prefixHead returns a head element holding a binary prefix: itself or
// in a list, a list's tail, a map's value or a Desc.
func (g *Gen) prefixHead(v func() term.Term) term.Term {
	p := g.PrefixPattern()
	switch g.R.IntN(8) {
	case 0:
		return term.ImproperList([]term.Term{p}, a("_"))
	case 1:
		return term.List(v(), p)
	case 2:
		return term.ImproperList([]term.Term{g.Leaf()}, p)
	case 3:
		return term.Map(term.MapEntry{Key: a("a"), Value: p})
	case 4:
		if !g.Erlang {
			return term.Desc(p)
		}
	}
	return p
}

var vars = []string{"$1", "$2", "$3"}

// Spec returns a random match specification of one to four clauses.
func (g *Gen) Spec() term.Term {
	cs := make([]term.Term, 1+g.R.IntN(4))
	for k := range cs {
		cs[k] = g.clause()
	}
	return term.List(cs...)
}

func (g *Gen) clause() term.Term {
	var bound []string
	head := g.head(&bound)
	guards := make([]term.Term, g.R.IntN(3))
	for k := range guards {
		guards[k] = g.guard(bound, 2)
	}
	return term.Tuple(head, term.List(guards...), term.List(g.body(bound)))
}

func (g *Gen) head(bound *[]string) term.Term {
	v := func() term.Term {
		name := vars[g.R.IntN(len(vars))]
		*bound = append(*bound, name)
		return a(name)
	}
	switch g.R.IntN(14) {
	case 0:
		if g.Prefixes && g.R.IntN(2) == 0 {
			return g.PrefixPattern()
		}
		return a("_")
	case 1:
		return v()
	}
	n := 1 + g.R.IntN(4)
	es := make([]term.Term, n)
	for k := range es {
		switch r := g.R.IntN(12); {
		case k == 0 && r < 8:
			es[k] = a(tags[g.R.IntN(len(tags))])
		case g.Prefixes && r < 3 && g.R.IntN(2) == 0:
			es[k] = g.prefixHead(v)
		case r < 3:
			es[k] = a("_")
		case r < 7:
			es[k] = v()
		case r == 7 && !g.Erlang:
			es[k] = term.Desc(v())
		case r == 8:
			es[k] = term.ImproperList([]term.Term{v()}, a("_"))
		case r == 9 && g.R.IntN(2) == 0:
			es[k] = term.Map(term.MapEntry{Key: a("a"), Value: v()})
		case r == 9:
			es[k] = term.List(v(), g.Leaf()) // a proper list: exact length
		default:
			es[k] = g.Leaf()
		}
	}
	return term.Tuple(es...)
}

var (
	cmps  = []string{"<", "=<", ">", ">=", "==", "/=", "=:=", "=/="}
	tests = []string{"is_integer", "is_float", "is_number", "is_atom", "is_binary", "is_bitstring",
		"is_tuple", "is_list", "is_map", "is_pid", "is_port", "is_reference", "is_boolean"}
	unary = []string{"size", "tuple_size", "byte_size", "bit_size", "length", "map_size", "hd", "tl", "abs"}
)

// operand is a variable, '$_', or a call on one.
func (g *Gen) operand(bound []string) term.Term {
	var x term.Term
	if len(bound) == 0 || g.R.IntN(8) == 0 {
		x = a("$_")
	} else {
		x = a(bound[g.R.IntN(len(bound))])
	}
	switch g.R.IntN(6) {
	case 0:
		return term.Tuple(a(g.pick(unary)), x)
	case 1:
		return term.Tuple(a("element"), i(int64(1+g.R.IntN(3))), x)
	}
	return x
}

func (g *Gen) constant() term.Term {
	if g.R.IntN(10) == 0 {
		return term.Tuple(a("const"), term.List(g.Leaf(), g.Leaf()))
	}
	c := g.Leaf()
	if g.R.IntN(4) == 0 {
		return term.Tuple(a("const"), c)
	}
	if c.Kind() == term.KindAtom && c.Atom() != "true" && g.R.IntN(2) == 0 {
		return term.Tuple(a("const"), c)
	}
	return c
}

func (g *Gen) guard(bound []string, depth int) term.Term {
	r := g.R.IntN(10)
	if depth <= 0 {
		r %= 5
	}
	switch r {
	case 0, 1, 2:
		x, y := g.operand(bound), g.constant()
		if g.R.IntN(4) == 0 {
			x, y = y, x
		}
		return term.Tuple(a(cmps[g.R.IntN(len(cmps))]), x, y)
	case 3:
		return term.Tuple(a(g.pick(tests)), g.operand(bound))
	case 4:
		if g.R.IntN(2) == 0 {
			return a("true")
		}
		return term.Tuple(a("=:="), g.operand(bound), g.operand(bound))
	case 5, 6:
		ops := []string{"andalso", "orelse", "and", "or", "xor"}
		return term.Tuple(a(ops[g.R.IntN(len(ops))]), g.guard(bound, depth-1), g.guard(bound, depth-1))
	case 7:
		return term.Tuple(a("not"), g.guard(bound, depth-1))
	}
	if g.Erlang {
		return term.Tuple(a("is_atom"), g.guard(bound, depth-1))
	}
	return term.Tuple(a("is_boolean"), g.guard(bound, depth-1))
}

// notInETS are guard functions Erlang has but OTP 25's match
// specifications refuse.
var notInETS = map[string]bool{"is_bitstring": true, "is_boolean": true, "tuple_size": true}

// pick returns one of names, leaving out notInETS for Erlang.
func (g *Gen) pick(names []string) string {
	for {
		n := names[g.R.IntN(len(names))]
		if !g.Erlang || !notInETS[n] {
			return n
		}
	}
}

func (g *Gen) body(bound []string) term.Term {
	switch g.R.IntN(6) {
	case 0, 1:
		return a("$_")
	case 2:
		return a("$$")
	case 3:
		return term.Tuple(term.Tuple(g.operand(bound), g.constant()))
	case 4:
		return term.List(g.operand(bound), a("$_"))
	}
	return term.Tuple(a("hd"), g.operand(bound)) // raises on most: 'EXIT'
}

// ETS rewrites spec for ets, whose match specifications have no binary
// prefix: in each clause, every binary prefix <<P,_/binary>> in the head
// becomes a variable of its own ('$1000', '$1001', ...) and the guards
// gain, first, [{is_binary,V}, {'=:=',{binary_part,V,0,len(P)},P}]: true
// of the binaries the prefix matches and of nothing else (binary_part
// raises on a shorter one, which makes the guard false). '$$' in the
// guards and body, outside {const, X}, becomes the list of the clause's
// own variables, so that the new ones do not show in it. ets then selects
// what the spec selects, with the same results.
func ETS(spec term.Term) term.Term {
	cls := make([]term.Term, spec.Len())
	for k, cl := range spec.Elems() {
		el := cl.Elems()
		var guards []term.Term
		n := 1000
		head := rewriteHead(el[0], func(p []byte) term.Term {
			v := a("$" + strconv.Itoa(n))
			n++
			guards = append(guards, term.Tuple(a("is_binary"), v))
			if len(p) > 0 {
				guards = append(guards, term.Tuple(a("=:="),
					term.Tuple(a("binary_part"), v, i(0), i(int64(len(p)))), term.Binary(p)))
			}
			return v
		})
		if n == 1000 {
			cls[k] = cl
			continue
		}
		all := term.List(headVars(el[0])...)
		for _, g := range el[1].Elems() {
			guards = append(guards, replaceAll(g, all))
		}
		body := make([]term.Term, el[2].Len())
		for j, b := range el[2].Elems() {
			body[j] = replaceAll(b, all)
		}
		cls[k] = term.Tuple(head, term.List(guards...), term.List(body...))
	}
	return term.List(cls...)
}

// rewriteHead returns t with each binary prefix replaced by what f gives
// for its bytes.
func rewriteHead(t term.Term, f func([]byte) term.Term) term.Term {
	each := func(ts []term.Term) []term.Term {
		out := make([]term.Term, len(ts))
		for k, x := range ts {
			out[k] = rewriteHead(x, f)
		}
		return out
	}
	switch t.Kind() {
	case term.KindBinaryPrefix:
		return f(t.BinaryPrefix())
	case term.KindTuple:
		return term.Tuple(each(t.Elems())...)
	case term.KindList:
		if t.IsProper() {
			return term.List(each(t.Elems())...)
		}
		es := each(t.Elems())
		return term.ImproperList(es, rewriteHead(t.Tail(), f))
	case term.KindMap:
		es := slices.Clone(t.Entries())
		for k := range es {
			es[k].Value = rewriteHead(es[k].Value, f)
		}
		return term.Map(es...)
	case term.KindDesc:
		return term.Desc(rewriteHead(t.Inner(), f))
	}
	return t
}

// headVars returns the '$N' variables of a head, each once, by number:
// what '$$' lists.
func headVars(t term.Term) []term.Term {
	var nums []int
	var walk func(t term.Term)
	walk = func(t term.Term) {
		switch t.Kind() {
		case term.KindAtom:
			if name := t.Atom(); len(name) > 1 && name[0] == '$' {
				if n, err := strconv.Atoi(name[1:]); err == nil && !slices.Contains(nums, n) {
					nums = append(nums, n)
				}
			}
		case term.KindTuple, term.KindList:
			for _, x := range t.Elems() {
				walk(x)
			}
			if t.Kind() == term.KindList && !t.IsProper() {
				walk(t.Tail())
			}
		case term.KindMap:
			for _, e := range t.Entries() {
				walk(e.Value)
			}
		case term.KindDesc:
			walk(t.Inner())
		}
	}
	walk(t)
	slices.Sort(nums)
	out := make([]term.Term, len(nums))
	for k, n := range nums {
		out[k] = a("$" + strconv.Itoa(n))
	}
	return out
}

// replaceAll replaces '$$' in the expression t by all, leaving {const, X}
// alone.
func replaceAll(t term.Term, all term.Term) term.Term {
	switch t.Kind() {
	case term.KindAtom:
		if t.Atom() == "$$" {
			return all
		}
	case term.KindTuple:
		es := t.Elems()
		if len(es) == 2 && es[0].Kind() == term.KindAtom && es[0].Atom() == "const" {
			return t
		}
		out := make([]term.Term, len(es))
		for k, x := range es {
			out[k] = replaceAll(x, all)
		}
		return term.Tuple(out...)
	case term.KindList:
		if t.Len() == 0 {
			return t
		}
		out := make([]term.Term, t.Len())
		for k, x := range t.Elems() {
			out[k] = replaceAll(x, all)
		}
		if t.IsProper() {
			return term.List(out...)
		}
		return term.ImproperList(out, replaceAll(t.Tail(), all))
	case term.KindMap:
		es := slices.Clone(t.Entries())
		for k := range es {
			es[k].Key, es[k].Value = replaceAll(es[k].Key, all), replaceAll(es[k].Value, all)
		}
		return term.Map(es...)
	}
	return t
}
