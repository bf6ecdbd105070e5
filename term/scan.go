package term

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// token is the kind of a lexical token.
type token uint8

const (
	tEOF      token = iota
	tInt            // integer; value in ival or ibig (magnitude)
	tFloat          // float; value in fval
	tChar           // $c; value in ival
	tAtom           // atom; name in lit
	tString         // "..."; code points in runes
	tVar            // a variable name, which is no term
	tLBrack         // [
	tRBrack         // ]
	tLBrace         // {
	tRBrace         // }
	tComma          // ,
	tBar            // |
	tBinOpen        // <<
	tGreater        // > (a binary closes with two adjacent ones)
	tDot            // .
	tArrow          // =>
	tColon          // :
	tMinus          // -
	tPlus           // +
	tMapOpen        // #{
	tHashName       // #Name< (Pid, Port, Ref or Desc); name in lit
	tSlash          // / (a binary segment's types)
	tPlusPlus       // ++ (a string's tail: "ab" ++ T)
)

// scanner splits the input into tokens on demand, one token behind the
// parser, in the manner of go/scanner. It records byte offsets only: line
// and column are worked out from an offset when an error needs them, which
// keeps the common path free of bookkeeping.
type scanner struct {
	src       string
	off       int // offset of the next unread byte
	maxDigits int // of an integer

	// The token last scanned.
	pos   int      // its offset
	tok   token    // its kind
	lit   string   // atom name, variable name or #Name
	ival  uint64   // tInt magnitude when ibig is nil; tChar code point
	ibig  *big.Int // tInt magnitude beyond uint64
	fval  float64
	runes []rune // tString contents, reused between tokens
	join  bool   // a string appends to runes: adjacent literals join
}

func (s *scanner) errorf(off int, format string, args ...any) error {
	return syntaxError(s.src, off, ErrSyntax, fmt.Sprintf(format, args...))
}

// skipSpace skips whitespace and % comments.
func (s *scanner) skipSpace() {
	for s.off < len(s.src) {
		switch s.src[s.off] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			s.off++
		case '%':
			if i := strings.IndexByte(s.src[s.off:], '\n'); i >= 0 {
				s.off += i + 1
			} else {
				s.off = len(s.src)
			}
		default:
			return
		}
	}
}

// scan reads the next token into s.
func (s *scanner) scan() error {
	s.skipSpace()
	s.pos = s.off
	if s.off >= len(s.src) {
		s.tok = tEOF
		return nil
	}
	c := s.src[s.off]
	switch {
	case c >= '0' && c <= '9':
		return s.scanNumber()
	case c == '$':
		s.off++
		r, err := s.scanChar(0)
		if err == nil && !isTextChar(r) {
			err = s.errorf(s.pos, "character %#x out of range in character literal", r)
		}
		s.tok, s.ival = tChar, uint64(r)
		return err
	case c == '\'':
		return s.scanQuotedAtom()
	case c == '"':
		s.off++
		if !s.join {
			s.runes = s.runes[:0]
		}
		// Room for the code points up to the next '"' at once: no more
		// than its bytes, and exactly them for ASCII.
		if i := strings.IndexByte(s.src[s.off:], '"'); i > 0 {
			s.runes = growBy(s.runes, i)
		}
		for {
			at := s.off
			r, done, err := s.scanQuoted('"')
			if err != nil || done {
				s.tok = tString
				return err
			}
			if !isTextChar(r) {
				return s.errorf(at, "character %#x out of range in string", r)
			}
			s.runes = append(grow(s.runes), r)
		}
	case c >= 0x80:
		r, size := utf8.DecodeRuneInString(s.src[s.off:])
		if !isAtomStart(r) && !isVarStart(r) {
			if r == utf8.RuneError && size == 1 {
				return s.errorf(s.off, "invalid UTF-8 encoding")
			}
			return s.errorf(s.off, "illegal character %q", r)
		}
		fallthrough
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		r, size := utf8.DecodeRuneInString(s.src[s.off:])
		s.off += size
		for s.off < len(s.src) {
			r, size := utf8.DecodeRuneInString(s.src[s.off:])
			if !isNameChar(r) {
				break
			}
			s.off += size
		}
		s.lit = s.src[s.pos:s.off]
		if isAtomStart(r) {
			s.tok = tAtom
			s.lit = strings.Clone(s.lit)
		} else {
			s.tok = tVar
		}
		return nil
	case c == '#':
		s.off++
		if s.off < len(s.src) && s.src[s.off] == '{' {
			s.off++
			s.tok = tMapOpen
			return nil
		}
		for s.off < len(s.src) && (s.src[s.off] >= 'a' && s.src[s.off] <= 'z' || s.src[s.off] >= 'A' && s.src[s.off] <= 'Z') {
			s.off++
		}
		s.lit = s.src[s.pos+1 : s.off]
		switch s.lit {
		case "Pid", "Port", "Ref", "Desc":
			if s.off < len(s.src) && s.src[s.off] == '<' {
				s.off++
				s.tok = tHashName
				return nil
			}
			return s.errorf(s.off, "expected '<' after #%s", s.lit)
		}
		return s.errorf(s.pos, "unknown form %q", clip(s.src[s.pos:s.off]))
	case c == '<':
		if strings.HasPrefix(s.src[s.off:], "<<") {
			s.off += 2
			s.tok = tBinOpen
			return nil
		}
	case c == '+':
		s.off++
		s.tok = tPlus
		if s.off < len(s.src) && s.src[s.off] == '+' {
			s.off++
			s.tok = tPlusPlus
		}
		return nil
	case c == '=':
		if strings.HasPrefix(s.src[s.off:], "=>") {
			s.off += 2
			s.tok = tArrow
			return nil
		}
	default:
		if tok := punct[c]; tok != tEOF {
			s.off++
			s.tok = tok
			return nil
		}
	}
	r, _ := utf8.DecodeRuneInString(s.src[s.off:])
	return s.errorf(s.off, "illegal character %q", r)
}

// punct maps the one-byte tokens; other bytes map to tEOF, meaning none.
var punct = [256]token{
	'[': tLBrack, ']': tRBrack, '{': tLBrace, '}': tRBrace, ',': tComma, '|': tBar,
	'>': tGreater, '.': tDot, ':': tColon, '-': tMinus, '/': tSlash,
}

// digitVal returns the value of c as a digit, or 36 if it is none.
func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 36
}

// digits skips digits of base, with single underscores between digits as
// Erlang allows (1_000), and reports whether there was at least one.
func (s *scanner) digits(base int) bool {
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		if digitVal(c) < base {
			s.off++
			continue
		}
		if c == '_' && s.off > start && s.off+1 < len(s.src) && digitVal(s.src[s.off+1]) < base {
			s.off++
			continue
		}
		break
	}
	return s.off > start
}

// stripUnderscores drops digit separators, copying only if there are any.
func stripUnderscores(s string) string {
	if strings.IndexByte(s, '_') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "_", "")
}

// scanNumber reads an integer, a Base#Digits integer or a float.
func (s *scanner) scanNumber() error {
	s.digits(10)
	base := 10
	digits := s.src[s.pos:s.off]
	switch {
	case s.off < len(s.src) && s.src[s.off] == '#':
		b, err := strconv.Atoi(stripUnderscores(digits))
		if err != nil || b < 2 || b > 36 {
			return s.errorf(s.pos, "invalid base %s", clip(digits))
		}
		s.off++
		start := s.off
		if !s.digits(b) {
			return s.errorf(s.off, "missing digits after %s#", clip(digits))
		}
		base, digits = b, s.src[start:s.off]
	case s.off+1 < len(s.src) && s.src[s.off] == '.' && digitVal(s.src[s.off+1]) < 10:
		s.off++
		s.digits(10)
		if s.off < len(s.src) && (s.src[s.off] == 'e' || s.src[s.off] == 'E') {
			s.off++
			if s.off < len(s.src) && (s.src[s.off] == '+' || s.src[s.off] == '-') {
				s.off++
			}
			if !s.digits(10) {
				return s.errorf(s.off, "missing digits in float exponent")
			}
		}
		f, err := strconv.ParseFloat(stripUnderscores(s.src[s.pos:s.off]), 64)
		if err != nil || math.IsInf(f, 0) {
			return s.errorf(s.pos, "float %s out of range", clip(s.src[s.pos:s.off]))
		}
		s.tok, s.fval = tFloat, f
		return nil
	}
	digits = stripUnderscores(digits)
	s.tok, s.ibig = tInt, nil
	if u, err := strconv.ParseUint(digits, base, 64); err == nil {
		s.ival = u
		return nil
	}
	// Too big for uint64; the digits were checked.
	digits = strings.TrimLeft(digits, "0")
	over, near := decimalDigitsOver(len(digits), base, s.maxDigits)
	if over {
		return s.digitsError(len(digits), base)
	}
	s.ibig = parseDigits(digits, base)
	if near && len(s.ibig.Text(10)) > s.maxDigits {
		return s.digitsError(len(digits), base)
	}
	return nil
}

// decimalDigitsOver reports whether an integer of n significant digits in
// base has more than max decimal digits: surely (over, known before any
// conversion), or perhaps (near, known only from its value). The limit is
// on the value, not on how it is written, so that what String writes in
// decimal Parse reads back.
func decimalDigitsOver(n, base, max int) (over, near bool) {
	if base == 10 {
		return n > max, false
	}
	// The value is at least base^(n-1) and below base^n.
	d := math.Log10(float64(base))
	return float64(n-1)*d > float64(max)+1e-3, float64(n)*d > float64(max)-1e-3
}

func (s *scanner) digitsError(n, base int) error {
	what := strconv.Itoa(n) + " digits"
	if base != 10 {
		what += " in base " + strconv.Itoa(base)
	}
	return syntaxError(s.src, s.pos, ErrDigits, "integer of "+what+
		", more than the limit of "+strconv.Itoa(s.maxDigits)+" decimal digits (ParseOptions.MaxIntDigits)")
}

// isTextChar reports whether r may stand in a string or a character
// literal: erl_scan refuses surrogates and the non-characters U+FFFE and
// U+FFFF there ("illegal character"), escaped or not.
func isTextChar(r rune) bool {
	return r >= 0 && r < 0xD800 || r > 0xDFFF && r < 0xFFFE || r > 0xFFFF && r <= utf8.MaxRune
}

// scanQuotedAtom reads a quoted atom. A name without escapes is taken from
// the source directly.
func (s *scanner) scanQuotedAtom() error {
	s.off++
	start := s.off
	plain := true
	var buf []byte
	for {
		at := s.off
		r, done, err := s.scanQuoted('\'')
		if err != nil {
			return err
		}
		if done {
			break
		}
		if s.src[at] == '\\' {
			if plain {
				buf = append(buf, s.src[start:at]...)
				plain = false
			}
			if r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
				return s.errorf(at, "character %#x out of range in atom", r)
			}
		}
		if !plain {
			buf = utf8.AppendRune(buf, r)
		}
	}
	s.tok = tAtom
	if plain {
		s.lit = strings.Clone(s.src[start : s.off-1])
	} else {
		s.lit = string(buf)
	}
	return nil
}

// scanQuoted reads one character of a quoted atom or string closed by q,
// reporting done at the closing quote.
func (s *scanner) scanQuoted(q byte) (r rune, done bool, err error) {
	if s.off >= len(s.src) {
		if q == '"' {
			return 0, false, s.errorf(s.pos, "unterminated string")
		}
		return 0, false, s.errorf(s.pos, "unterminated quoted atom")
	}
	if s.src[s.off] == q {
		s.off++
		return 0, true, nil
	}
	r, err = s.scanChar(q)
	return r, false, err
}

// scanChar reads one possibly escaped character, as in a quoted atom or
// string or after $. Outside quotes q is 0.
func (s *scanner) scanChar(q byte) (rune, error) {
	if s.off >= len(s.src) {
		return 0, s.errorf(s.off, "unexpected end of input in character")
	}
	if s.src[s.off] != '\\' {
		r, size := utf8.DecodeRuneInString(s.src[s.off:])
		if r == utf8.RuneError && size == 1 {
			return 0, s.errorf(s.off, "invalid UTF-8 encoding")
		}
		s.off += size
		return r, nil
	}
	esc := s.off
	s.off++
	if s.off >= len(s.src) {
		return 0, s.errorf(esc, "unterminated escape sequence")
	}
	c := s.src[s.off]
	s.off++
	switch c {
	case 'b':
		return '\b', nil
	case 'd':
		return 0x7F, nil
	case 'e':
		return 0x1B, nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 's':
		return ' ', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case '0', '1', '2', '3', '4', '5', '6', '7':
		r := rune(c - '0')
		for n := 1; n < 3 && s.off < len(s.src) && s.src[s.off] >= '0' && s.src[s.off] <= '7'; n++ {
			r = r*8 + rune(s.src[s.off]-'0')
			s.off++
		}
		return r, nil
	case 'x':
		if s.off < len(s.src) && s.src[s.off] == '{' {
			s.off++
			var r rune
			n := 0
			for ; s.off < len(s.src) && digitVal(s.src[s.off]) < 16; n++ {
				r = r*16 + rune(digitVal(s.src[s.off]))
				if r > utf8.MaxRune {
					return 0, s.errorf(esc, "escaped character out of range")
				}
				s.off++
			}
			if n == 0 || s.off >= len(s.src) || s.src[s.off] != '}' {
				return 0, s.errorf(esc, `invalid \x{...} escape`)
			}
			s.off++
			return r, nil
		}
		if s.off+1 < len(s.src) && digitVal(s.src[s.off]) < 16 && digitVal(s.src[s.off+1]) < 16 {
			r := rune(digitVal(s.src[s.off])*16 + digitVal(s.src[s.off+1]))
			s.off += 2
			return r, nil
		}
		return 0, s.errorf(esc, `invalid \x escape`)
	case '^':
		// Any character, as erl_scan has it: \^? is 31, \^1 is 17.
		if s.off >= len(s.src) {
			return 0, s.errorf(esc, "unterminated escape sequence")
		}
		r, size := utf8.DecodeRuneInString(s.src[s.off:])
		if r == utf8.RuneError && size == 1 {
			return 0, s.errorf(s.off, "invalid UTF-8 encoding")
		}
		s.off += size
		return r & 0x1F, nil
	}
	// Any other character stands for itself, as in Erlang ('\'' and '\\').
	s.off--
	r, size := utf8.DecodeRuneInString(s.src[s.off:])
	if r == utf8.RuneError && size == 1 {
		return 0, s.errorf(s.off, "invalid UTF-8 encoding")
	}
	s.off += size
	return r, nil
}
