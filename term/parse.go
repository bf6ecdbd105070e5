package term

import (
	"math"
	"math/big"
	"slices"
	"strconv"
)

// DefaultMaxIntDigits is the most digits an integer may have in Parse, and
// in ParseOptions when MaxIntDigits is 0: the bound CPython sets after
// CVE-2020-10735 (sys.set_int_max_str_digits), for the same reason. Digits
// to binary is quadratic in math/big; 4,300 digits take microseconds, ten
// million would take minutes.
const DefaultMaxIntDigits = 4300

// ParseOptions configures a parse. The zero value gives Parse's behaviour.
type ParseOptions struct {
	// MaxIntDigits limits an integer's size in decimal digits, not
	// counting separators (1_000) or leading zeros, whatever base it is
	// written in: 16#FF counts as 255, three digits. So every integer
	// Parse reads, String writes back in text Parse reads again. Zero means
	// DefaultMaxIntDigits; negative means no limit. Longer integers fail
	// with an error wrapping ErrDigits.
	MaxIntDigits int

	// MaxDepth limits how deeply lists, tuples, maps, binaries and #Desc
	// may nest; a top-level [] is at depth 1. Zero or less means
	// DefaultMaxDepth, and more than MaxDepthCeiling means the ceiling.
	// Deeper text fails with an error wrapping ErrDepth.
	MaxDepth int
}

// Parse reads exactly one term written in Erlang's term syntax, as P and
// W write it, with an optional trailing "." as Erlang's own term reader
// wants. It also reads what a person typing terms writes: whitespace and
// % comments between tokens, strings ("abc", a list of code points),
// Base#Digits integers (16#FF), character literals ($a, $\n), digit
// separators (1_000), and Erlang's bit syntax for binaries with literal
// values: <<"abc",0>>, <<"héllo"/utf8>>, <<1:16/little>>, <<-1:12/signed>>,
// <<1.5/float>> (see the binary syntax below). Errors are of type
// *SyntaxError. Atom names are copied, so the result does not keep s
// alive.
//
// Two pattern forms read as the patterns they are: <<"ali",_/binary>> is
// BinaryPrefix([]byte("ali")), and "ali" ++ T is the list [$a,$l,$i|T],
// as in Erlang, so that "ali" ++ '_' matches every list that begins with
// "ali".
//
// In a binary each segment is Value[:Size][/Types], as in Erlang: Value
// an integer, character, float or string (each of whose characters is a
// segment of the same Size and Types); Types among integer (the default),
// float, utf8, utf16, utf32, signed, unsigned, big, little and unit:N.
// An integer segment is Size*Unit bits (default 8), at most
// MaxSegmentBits; a float segment 32 or 64. Segments need not be whole
// bytes: <<1:4,2:4>> is <<18>>, <<1:3>> a bitstring. Unlike Erlang,
// Parse refuses a value that does not fit its segment rather than
// truncating it (<<256>> is an error, not <<0>>), and native byte order,
// whose meaning depends on the machine.
func Parse(s string) (Term, error) { return ParseOptions{}.Parse(s) }

// MustParse is Parse for text known to be valid, such as patterns written
// in a program: it panics if s does not parse, with the error's position
// and message.
func MustParse(s string) Term {
	t, err := Parse(s)
	if err != nil {
		panic("term: MustParse(" + strconv.Quote(clip(s)) + "): " + err.Error())
	}
	return t
}

// Parse reads one term as the package-level Parse does, with o's limits.
func (o ParseOptions) Parse(s string) (Term, error) {
	p := parser{maxDepth: min(o.MaxDepth, MaxDepthCeiling)}
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	switch p.s.maxDigits = o.MaxIntDigits; {
	case o.MaxIntDigits == 0:
		p.s.maxDigits = DefaultMaxIntDigits
	case o.MaxIntDigits < 0:
		p.s.maxDigits = math.MaxInt
	}
	p.s.src = s
	if err := p.next(); err != nil {
		return Term{}, err
	}
	t, err := p.term(0)
	if err != nil {
		return Term{}, err
	}
	if p.s.tok == tDot {
		if err := p.next(); err != nil {
			return Term{}, err
		}
	}
	if p.s.tok != tEOF {
		return Term{}, p.unexpected("after term")
	}
	return t, nil
}

// parser is a recursive-descent parser over the scanner's tokens. Elements
// of the lists, tuples, maps and binaries being built are kept on shared
// stacks and copied out once complete, so each compound costs exactly one
// allocation of the right size.
type parser struct {
	s        scanner
	maxDepth int
	terms    []Term
	entries  []MapEntry
	bytes    []byte // a binary's bytes, as they are written
}

func (p *parser) next() error { return p.s.scan() }

func (p *parser) errorf(off int, format string, args ...any) error {
	return p.s.errorf(off, format, args...)
}

// describe names the current token for an error message.
func (p *parser) describe() string {
	text := clip(p.s.src[p.s.pos:p.s.off])
	switch p.s.tok {
	case tEOF:
		return "end of input"
	case tInt:
		return "integer " + text
	case tFloat:
		return "float " + text
	case tChar:
		return "character " + text
	case tAtom:
		return "atom " + text
	case tString:
		return "string"
	case tVar:
		return "variable " + text
	}
	return "'" + text + "'"
}

// unexpected reports the current token as out of place.
func (p *parser) unexpected(context string) error {
	msg := "unexpected " + p.describe()
	if context != "" {
		msg += " " + context
	}
	return p.errorf(p.s.pos, "%s", msg)
}

// expect consumes a token of kind tok or fails.
func (p *parser) expect(tok token, context string) error {
	if p.s.tok != tok {
		return p.unexpected(context)
	}
	return p.next()
}

// enter checks the depth of a compound about to be parsed, before any
// recursion, so that deep text fails fast in bounded memory.
func (p *parser) enter(depth int) error {
	if depth > p.maxDepth {
		return syntaxError(p.s.src, p.s.pos, ErrDepth,
			"nesting deeper than "+strconv.Itoa(p.maxDepth))
	}
	return nil
}

// term parses one term whose enclosing compounds nest depth deep.
func (p *parser) term(depth int) (Term, error) {
	switch p.s.tok {
	case tInt, tFloat, tChar, tMinus, tPlus:
		return p.number()
	case tAtom:
		t := Atom(p.s.lit)
		return t, p.next()
	case tString:
		return p.str(depth + 1)
	case tLBrack:
		return p.list(depth + 1)
	case tLBrace:
		return p.tuple(depth + 1)
	case tMapOpen:
		return p.mapTerm(depth + 1)
	case tBinOpen:
		return p.binary(depth + 1)
	case tHashName:
		switch p.s.lit {
		case "Desc":
			return p.desc(depth + 1)
		case "Pid":
			return p.pid()
		case "Port":
			return p.port()
		}
		return p.ref()
	case tVar:
		return Term{}, p.errorf(p.s.pos, "variable %s is not a term", clip(p.s.lit))
	}
	return Term{}, p.unexpected("")
}

// number parses an optionally signed integer, character or float.
func (p *parser) number() (Term, error) {
	neg, sign := false, false
	if p.s.tok == tMinus || p.s.tok == tPlus {
		neg, sign = p.s.tok == tMinus, true
		if err := p.next(); err != nil {
			return Term{}, err
		}
	}
	context := ""
	if sign {
		context = "after sign"
	}
	var t Term
	switch p.s.tok {
	case tFloat:
		f := p.s.fval
		if neg {
			f = -f
		}
		t = Float(f)
	case tChar:
		t = Int(int64(p.s.ival))
		if neg {
			t = Int(-int64(p.s.ival))
		}
	case tInt:
		switch {
		case p.s.ibig != nil:
			b := p.s.ibig
			if neg {
				b.Neg(b)
			}
			t = BigInt(b)
		case neg && p.s.ival <= 1<<63:
			t = Int(-int64(p.s.ival)) // wraps correctly for -2^63
		case neg:
			t = BigInt(new(big.Int).Neg(new(big.Int).SetUint64(p.s.ival)))
		default:
			t = Uint(p.s.ival)
		}
	default:
		return Term{}, p.unexpected(context)
	}
	return t, p.next()
}

// str parses adjacent string literals, which Erlang joins, as a list of
// code points, and a tail joined on with ++, as in Erlang's pattern
// "ab" ++ T, the list [$a, $b | T]: "ab" ++ '_' is a pattern for every
// list that begins with "ab".
func (p *parser) str(depth int) (Term, error) {
	if err := p.enter(depth); err != nil {
		return Term{}, err
	}
	// Adjacent literals, and literals joined by ++, gather their code
	// points in one run, and the list is made once at its size: 16 bytes
	// a character, and linear however many literals are joined.
	for {
		if err := p.nextJoined(); err != nil {
			return Term{}, err
		}
		if p.s.tok == tString {
			continue
		}
		if p.s.tok != tPlusPlus {
			return List(codePoints(p.s.runes, 0)...), nil
		}
		if err := p.nextJoined(); err != nil {
			return Term{}, err
		}
		if p.s.tok == tString {
			continue
		}
		// The tail: the run is copied out first, as scanning the tail's
		// own strings reuses the scanner's runes.
		elems := codePoints(p.s.runes, 1)
		tail, err := p.term(depth)
		if err != nil {
			return Term{}, err
		}
		elems[len(elems)-1] = tail
		return ListWithTail(elems...), nil
	}
}

// nextJoined scans the next token, a string among them appending its
// code points to the run before it.
func (p *parser) nextJoined() error {
	p.s.join = true
	err := p.next()
	p.s.join = false
	return err
}

// codePoints returns rs as integer terms, with room for extra more
// terms after them.
func codePoints(rs []rune, extra int) []Term {
	if len(rs)+extra == 0 {
		return nil
	}
	elems := make([]Term, len(rs)+extra)
	for i, r := range rs {
		elems[i] = Int(int64(r))
	}
	return elems
}

// grow makes room for one more element, doubling the capacity when there
// is none: append alone grows large slices by a quarter, which allocates
// five times the final size in all; doubling allocates twice.
func grow[S ~[]E, E any](s S) S { return growBy(s, 1) }

// growBy makes room for n more elements, at least doubling the capacity
// when there is not enough.
func growBy[S ~[]E, E any](s S, n int) S {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, max(n, cap(s), 8))
}

// popTerms returns a copy of the scratch terms from start on and drops them.
func (p *parser) popTerms(start int) []Term {
	if len(p.terms) == start {
		return nil
	}
	elems := slices.Clone(p.terms[start:])
	clear(p.terms[start:]) // let the garbage collector have them
	p.terms = p.terms[:start]
	return elems
}

// elems parses terms separated by commas up to a token that is no comma,
// pushing them on the scratch stack.
func (p *parser) elems(depth int) error {
	for {
		t, err := p.term(depth)
		if err != nil {
			return err
		}
		p.terms = append(grow(p.terms), t)
		if p.s.tok != tComma {
			return nil
		}
		if err := p.next(); err != nil {
			return err
		}
	}
}

// list parses [...], proper or improper. A tail that is itself a list
// literal, as in [a|[b|[c|d]]], is read in the same loop onto the same
// scratch stack rather than by recursion: the result is the flat [a,b,c|d]
// either way, and building it level by level would copy what each level
// collected again at every level above, quadratic in the nesting.
func (p *parser) list(depth int) (Term, error) {
	start := len(p.terms)
	tail, closes := Term{}, 0
	for {
		if err := p.enter(depth); err != nil {
			return Term{}, err
		}
		if err := p.next(); err != nil { // past '['
			return Term{}, err
		}
		closes++
		if p.s.tok == tRBrack { // [] ends the chain: the list is proper
			break
		}
		if err := p.elems(depth); err != nil {
			return Term{}, err
		}
		if p.s.tok != tBar {
			break
		}
		if err := p.next(); err != nil {
			return Term{}, err
		}
		if p.s.tok == tLBrack {
			depth++
			continue
		}
		var err error
		if tail, err = p.term(depth); err != nil {
			return Term{}, err
		}
		break
	}
	for range closes {
		if err := p.expect(tRBrack, "in list"); err != nil {
			return Term{}, err
		}
	}
	return ImproperList(p.popTerms(start), tail), nil
}

// tuple parses {...}.
func (p *parser) tuple(depth int) (Term, error) {
	if err := p.enter(depth); err != nil {
		return Term{}, err
	}
	if err := p.next(); err != nil {
		return Term{}, err
	}
	start := len(p.terms)
	if p.s.tok != tRBrace {
		if err := p.elems(depth); err != nil {
			return Term{}, err
		}
	}
	if err := p.expect(tRBrace, "in tuple"); err != nil {
		return Term{}, err
	}
	return Tuple(p.popTerms(start)...), nil
}

// mapTerm parses #{K => V, ...}. Of repeated keys the last wins, as in an
// Erlang map literal.
func (p *parser) mapTerm(depth int) (Term, error) {
	if err := p.enter(depth); err != nil {
		return Term{}, err
	}
	if err := p.next(); err != nil {
		return Term{}, err
	}
	start := len(p.entries)
	if p.s.tok != tRBrace {
		for {
			k, err := p.term(depth)
			if err != nil {
				return Term{}, err
			}
			if err := p.expect(tArrow, "in map, expected '=>'"); err != nil {
				return Term{}, err
			}
			v, err := p.term(depth)
			if err != nil {
				return Term{}, err
			}
			p.entries = append(grow(p.entries), MapEntry{k, v})
			if p.s.tok != tComma {
				break
			}
			if err := p.next(); err != nil {
				return Term{}, err
			}
		}
	}
	if err := p.expect(tRBrace, "in map"); err != nil {
		return Term{}, err
	}
	entries := slices.Clone(p.entries[start:])
	clear(p.entries[start:])
	p.entries = p.entries[:start]
	return Map(entries...), nil
}

// desc parses #Desc<Term>.
func (p *parser) desc(depth int) (Term, error) {
	if err := p.enter(depth); err != nil {
		return Term{}, err
	}
	if err := p.next(); err != nil {
		return Term{}, err
	}
	t, err := p.term(depth)
	if err != nil {
		return Term{}, err
	}
	if err := p.expect(tGreater, "in #Desc"); err != nil {
		return Term{}, err
	}
	return Desc(t), nil
}

// node parses the node atom that opens a pid, port or reference.
func (p *parser) node(form string) (string, error) {
	if err := p.next(); err != nil {
		return "", err
	}
	if p.s.tok != tAtom {
		return "", p.unexpected("in #" + form + ", expected node atom")
	}
	name := p.s.lit
	return name, p.next()
}

// field parses ",N" with N an unsigned integer no greater than max.
func (p *parser) field(form, what string, max uint64) (uint64, error) {
	if err := p.expect(tComma, "in #"+form); err != nil {
		return 0, err
	}
	if p.s.tok != tInt || p.s.ibig != nil || p.s.ival > max {
		if p.s.tok == tInt || p.s.tok == tMinus {
			return 0, p.errorf(p.s.pos, "%s %s out of range 0..%d", form, what, max)
		}
		return 0, p.unexpected("in #" + form + ", expected " + what)
	}
	v := p.s.ival
	return v, p.next()
}

// pid parses #Pid<Node,Id,Serial,Creation>.
func (p *parser) pid() (Term, error) {
	var pid Pid
	var err error
	var v [3]uint64
	if pid.Node, err = p.node("Pid"); err != nil {
		return Term{}, err
	}
	for i, what := range [3]string{"id", "serial", "creation"} {
		if v[i], err = p.field("Pid", what, math.MaxUint32); err != nil {
			return Term{}, err
		}
	}
	if err := p.expect(tGreater, "in #Pid"); err != nil {
		return Term{}, err
	}
	pid.ID, pid.Serial, pid.Creation = uint32(v[0]), uint32(v[1]), uint32(v[2])
	return pid.Term(), nil
}

// port parses #Port<Node,Id,Creation>.
func (p *parser) port() (Term, error) {
	var port Port
	var err error
	var c uint64
	if port.Node, err = p.node("Port"); err != nil {
		return Term{}, err
	}
	if port.ID, err = p.field("Port", "id", math.MaxUint64); err != nil {
		return Term{}, err
	}
	if c, err = p.field("Port", "creation", math.MaxUint32); err != nil {
		return Term{}, err
	}
	if err := p.expect(tGreater, "in #Port"); err != nil {
		return Term{}, err
	}
	port.Creation = uint32(c)
	return port.Term(), nil
}

// ref parses #Ref<Node,Creation,Id1,...>, with at least one id word.
func (p *parser) ref() (Term, error) {
	var ref Ref
	var err error
	if ref.Node, err = p.node("Ref"); err != nil {
		return Term{}, err
	}
	c, err := p.field("Ref", "creation", math.MaxUint32)
	if err != nil {
		return Term{}, err
	}
	ref.Creation = uint32(c)
	for len(ref.IDs) == 0 || p.s.tok == tComma {
		id, err := p.field("Ref", "id", math.MaxUint32)
		if err != nil {
			return Term{}, err
		}
		ref.IDs = append(ref.IDs, uint32(id))
	}
	if err := p.expect(tGreater, "in #Ref"); err != nil {
		return Term{}, err
	}
	return ref.Term(), nil
}
