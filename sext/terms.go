package main

import (
	"fmt"
	"io"

	"github.com/erlsext/sext/term"
)

// parseTerm parses one term of text.
func parseTerm(s string, o term.ParseOptions) (term.Term, error) { return o.Parse(s) }

// appendTerm appends t's text in the --print format. A term without an
// exact text form (which decoding should never produce) gets Append's.
func appendTerm(dst []byte, t term.Term) []byte {
	if b, err := printFormat.AppendText(dst, t); err == nil {
		return b
	}
	return printFormat.Append(dst, t)
}

// parseArgTerms parses the operand terms of a command (match's PATTERN
// and TERM, db's TERM, ...), names[i] naming args[i] in a report. On a
// parse error it reports it and returns ok false.
func parseArgTerms(args []string, names []string, o term.ParseOptions, stderr io.Writer) ([]term.Term, bool) {
	ts := make([]term.Term, len(args))
	for i, a := range args {
		t, err := parseTerm(a, o)
		if err != nil {
			fmt.Fprintf(stderr, "sext: %s: %s\n", names[i], describe(err))
			return nil, false
		}
		ts[i] = t
	}
	return ts, true
}
