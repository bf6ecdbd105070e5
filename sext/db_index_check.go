package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
)

const indexCheckAbout = `
Compare every index with the data: a stored key that matches an index's
pattern without its entry (missing), an entry whose key is not stored
(orphan), an entry its key does not give (stale: a wrong value, or an
index no longer defined), a build or drop that a stopped process left
unfinished, and keys in the store's reserved range that are none of
these (foreign). Each finding is one "sext:" line on stderr (at most 20
of each kind); the counts go to stdout. The exit status is 1 if anything
was found.

With --fix, write the missing entries, delete the orphan and stale ones,
and finish the builds and drops; each repair first checks that what was
found still holds, so writers may go on. The exit status is then 0 if
nothing is left (foreign keys are reported and left).`

func dbIndexCheck(c *dbCall, args []string) int {
	fs := c.flags()
	fix := fs.Bool("fix", false, "repair what is found")
	s, status, ok := c.openNoArgs(fs, args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	shown := map[store.IndexProblemKind]int{}
	start := time.Now()
	r, err := s.CheckIndexes(c.ctx, store.IndexCheckOptions{Fix: *fix, OnProblem: func(p store.IndexProblem) {
		if shown[p.Kind]++; shown[p.Kind] > maxBadLines {
			return
		}
		what := p.Kind.String()
		if p.Index != "" {
			what = fmt.Sprintf("index %s: %s", p.Index, what)
		}
		switch {
		case p.Kind == store.ProblemForeignReserved:
			what += " " + sext.Hex.EncodeToString(p.Raw)
		case p.Kind != store.ProblemUnfinished:
			what += " for " + string(appendTerm(nil, p.Key))
		}
		if p.Fixed {
			what += " (fixed)"
		}
		fmt.Fprintf(c.stderr, "sext: %s\n", what)
	}})
	if err != nil {
		out.fail("", errors.New(storeErr(err)))
	}
	fmt.Fprintf(out.out, "indexes     %d\n", r.Indexes)
	fmt.Fprintf(out.out, "keys        %s (matching an index)\n", commas(r.Keys))
	fmt.Fprintf(out.out, "entries     %s\n", commas(r.Entries))
	fmt.Fprintf(out.out, "missing     %s\n", commas(r.Missing))
	fmt.Fprintf(out.out, "orphans     %s\n", commas(r.Orphans))
	fmt.Fprintf(out.out, "stale       %s\n", commas(r.Stale))
	fmt.Fprintf(out.out, "unfinished  %s\n", commas(r.Unfinished))
	fmt.Fprintf(out.out, "foreign     %s\n", commas(r.Foreign))
	if *fix {
		fmt.Fprintf(out.out, "fixed       %s\n", commas(r.Fixed))
	}
	fmt.Fprintf(out.out, "checked in  %s\n", round(time.Since(start)))
	left := r.Missing + r.Orphans + r.Stale + r.Unfinished + r.Foreign
	if *fix {
		left -= r.Fixed
	}
	if left > 0 {
		out.failed = true
	}
	return c.close(s, out.finish())
}
