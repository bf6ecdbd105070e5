package main

import (
	"io"
	"slices"

	"github.com/erlsext/sext/term"
)

const sortAbout = `
Read terms from stdin, one a line (blank lines are skipped), and print
them in Erlang term syntax in the order of their encodings (see "sext help
compare"). Equal terms keep their input order. A line that does not parse
is reported on stderr as "sext: line N: column C: ..." and left out; the
others are still printed, and the exit status is then 1.

example:
  printf '%s\n' '{b,1}' 2 '"ab"' a | sext sort`

func runSort(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("sort", "sext sort [flags] < TERMS", sortAbout)
	digits := intDigitsFlag(fs)
	reverse := fs.Bool("reverse", false, "print in descending order")
	unique := fs.Bool("unique", false, "print only the first of each run of equal terms")
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) > 0 {
		return fs.usageError(stderr, "sort reads stdin and takes no arguments")
	}
	s := newSession(stdout, stderr)
	var ts []term.Term
	s.eachItem(nil, stdin, func(_, item string) error {
		t, err := parseTerm(item, parseOptions(digits))
		if err == nil {
			ts = append(ts, t)
		}
		return err
	})
	cmp := term.Compare
	if *reverse {
		cmp = func(a, b term.Term) int { return term.Compare(b, a) }
	}
	slices.SortStableFunc(ts, cmp)
	if *unique {
		ts = slices.CompactFunc(ts, term.Equal)
	}
	for _, t := range ts {
		s.writeTerm(t)
	}
	return s.finish()
}
