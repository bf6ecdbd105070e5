package main

import (
	"fmt"
	"io"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

const matchAbout = `
Match TERM against PATTERN, where the atom '_' (or a bare _, as in an
Erlang pattern) matches any term and an atom '$N' (N a number) matches any term but must match equal terms
wherever it occurs. If TERM matches, print the bindings of the '$N'
wildcards, one "$N = Term" a line in the order first met, and exit 0.
If it does not, print "no match" on stderr and exit 1. A usage or parse
error exits 2.

example:
  sext match "{user,'\$1',['\$2'|'_']}" '{user,42,[a,b,c]}'`

func runMatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("match", "sext match PATTERN TERM", matchAbout)
	digits := intDigitsFlag(fs)
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 2 {
		return fs.usageError(stderr, "want a PATTERN and a TERM")
	}
	ts, ok := parseArgTerms(args, []string{"PATTERN", "TERM"}, parseOptions(digits), stderr)
	if !ok {
		return exitUsage
	}
	var bs sext.Bindings
	var matched bool
	if err := safely(func() error { bs, matched = sext.Match(ts[0], ts[1]); return nil }); err != nil {
		fmt.Fprintf(stderr, "sext: %v\n", err)
		return exitUsage
	}
	if !matched {
		fmt.Fprintln(stderr, "no match")
		return exitFail
	}
	s := newSession(stdout, stderr)
	for _, b := range bs {
		s.out.WriteString(b.Name + " = ")
		s.writeTerm(b.Value)
	}
	return s.finish()
}

const compareAbout = `
Compare terms A and B in the order of their encodings (Erlang's term
order, with sext's rules for numeric ties, maps and #Desc) and print -1,
0 or 1 as A sorts before, with or after B. A parse error exits 2.

example:
  sext compare 1 1.0      # prints -1`

func runCompare(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", "sext compare A B", compareAbout)
	digits := intDigitsFlag(fs)
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 2 {
		return fs.usageError(stderr, "want two terms")
	}
	ts, ok := parseArgTerms(args, []string{"A", "B"}, parseOptions(digits), stderr)
	if !ok {
		return exitUsage
	}
	var c int
	if err := safely(func() error { c = term.Compare(ts[0], ts[1]); return nil }); err != nil {
		fmt.Fprintf(stderr, "sext: %v\n", err)
		return exitUsage
	}
	s := newSession(stdout, stderr)
	fmt.Fprintln(s.out, c)
	return s.finish()
}
