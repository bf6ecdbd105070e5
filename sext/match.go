package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

const matchAbout = `
Match TERM against PATTERN, where the atom '_' (or a bare _, as in an
Erlang pattern) matches any term, an atom '$N' (N a number) matches any
term but must match equal terms wherever it occurs, and a binary prefix
<<"ali",_/binary>> matches any binary that starts with "ali" (a
bitstring that is no whole number of bytes does not match, as in
Erlang). If TERM matches, print the bindings of the '$N'
wildcards, one "$N = Term" a line in the order first met, and exit 0.
If it does not, print "no match" on stderr and exit 1. A usage or parse
error exits 2.

examples:
  sext match "{user,'\$1',['\$2'|'_']}" '{user,42,[a,b,c]}'
  sext match "{user,<<\"ali\",_/binary>>,'\$1'}" '{user,<<"alice">>,7}'`

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
	if holdsBinaryPrefix(ts[1]) {
		fmt.Fprintln(stderr, "sext: TERM: a binary prefix (<<...,_/binary>>) is a pattern, not a term: it belongs in PATTERN")
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

// holdsBinaryPrefix reports whether t holds a binary prefix anywhere (the
// parser bounds how deep it looks).
func holdsBinaryPrefix(t term.Term) bool {
	switch t.Kind() {
	case term.KindBinaryPrefix:
		return true
	case term.KindTuple:
		return slices.ContainsFunc(t.Elems(), holdsBinaryPrefix)
	case term.KindList:
		return slices.ContainsFunc(t.Elems(), holdsBinaryPrefix) || !t.IsProper() && holdsBinaryPrefix(t.Tail())
	case term.KindMap:
		return slices.ContainsFunc(t.Entries(), func(e term.MapEntry) bool { return holdsBinaryPrefix(e.Key) || holdsBinaryPrefix(e.Value) })
	case term.KindDesc:
		return holdsBinaryPrefix(t.Inner())
	}
	return false
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
