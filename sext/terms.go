package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/erlsext/sext/term"
)

// parseTerm parses one term of text.
func parseTerm(s string, o term.ParseOptions) (term.Term, error) { return o.Parse(s) }

// maxBareWildcards bounds the bare _ a pattern may hold, since each costs
// a parse of the text up to it; more is an error at the next one.
const maxBareWildcards = 256

// parsePattern parses one pattern of text: a term in which a bare _,
// the wildcard of every Erlang pattern, reads as '_' (term.Parse refuses
// it as a variable). Each _ the parser refuses is written '_' in its
// place and the text parsed again, so _ stays what the parser makes of
// it where it is a pattern form of its own (<<"ali",_/binary>>). An
// error's offset and column are those of the text as written.
func parsePattern(s string, o term.ParseOptions) (term.Term, error) {
	var subs []int // offsets in the rewritten text of each '_' written
	text := s
	for {
		t, err := o.Parse(text)
		var se *term.SyntaxError
		if err == nil || !errors.As(err, &se) || !bareWildcard(text, se.Offset) || len(subs) == maxBareWildcards {
			if se != nil && len(subs) > 0 {
				e := *se
				e.Offset, e.Column = unshift(text, subs, se.Offset, se.Column)
				return t, &e
			}
			return t, err
		}
		subs = append(subs, se.Offset)
		text = text[:se.Offset] + "'_'" + text[se.Offset+1:]
	}
}

// bareWildcard reports whether the token at off of text is _ alone.
func bareWildcard(text string, off int) bool {
	if off < 0 || off >= len(text) || text[off] != '_' {
		return false
	}
	if off+1 < len(text) {
		c := text[off+1]
		if c == '_' || c == '@' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80 {
			return false // a named variable (_X, _1) is still refused
		}
	}
	return true
}

// unshift maps an error's offset and column in the rewritten text back to
// the text as written: each '_' before it on its line added two columns.
func unshift(text string, subs []int, off, col int) (int, int) {
	o, c := off, col
	for _, m := range subs {
		if m >= off {
			continue
		}
		o -= 2
		if !strings.Contains(text[m:off], "\n") {
			c -= 2
		}
	}
	return o, c
}

// appendTerm appends t's text in the --print format. A term without an
// exact text form (which decoding should never produce) gets Append's.
func appendTerm(dst []byte, t term.Term) []byte {
	if b, err := printFormat.AppendText(dst, t); err == nil {
		return b
	}
	return printFormat.Append(dst, t)
}

// parseArgTerms parses the operand terms of a command (match's PATTERN
// and TERM, db's TERM, ...), names[i] naming args[i] in a report; those
// named as patterns (PATTERN, VALUEPATTERN, a range's ends) read a bare
// _ as the wildcard. On a parse error it reports it and returns ok
// false.
func parseArgTerms(args []string, names []string, o term.ParseOptions, stderr io.Writer) ([]term.Term, bool) {
	ts := make([]term.Term, len(args))
	for i, a := range args {
		parse := parseTerm
		if isPatternArg(names[i]) {
			parse = parsePattern
		}
		t, err := parse(a, o)
		if err != nil {
			fmt.Fprintf(stderr, "sext: %s: %s\n", names[i], describe(err))
			return nil, false
		}
		ts[i] = t
	}
	return ts, true
}

// isPatternArg reports whether an operand of that name is a pattern.
func isPatternArg(name string) bool {
	return strings.HasSuffix(name, "PATTERN") || name == "--to" || name == "--before"
}
