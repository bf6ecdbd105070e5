package main

import (
	"errors"
	"fmt"

	"github.com/erlsext/sext/store"
)

const indexScanAbout = `
Print "TERM<TAB>VALUE", as db scan does, for every stored key whose
index value matches VALUEPATTERN: 500000 for the keys the index holds
under 500000, '_' for every key it holds, {'_', 7} for an index of two
variables whose second is 7, <<"ali",_/binary>> for the binary values
that start with "ali" (only their entries are read). Rows come in index order: by index value,
then by key. Only the entries under VALUEPATTERN's prefix are read, then
each row's value. With --before, print the rows of a half-open range of
values, as every range of the store is: from the first value that can
match VALUEPATTERN up to, and not including, the first that can match
--before's, without matching either ("5 --before 8" is 5, 6 and 7).
With --limit N, the token that resumes after the last
row goes to stderr as "next: TOKEN"; pass it back with --after.`

func dbIndexScan(c *dbCall, args []string) int {
	fs := c.flags()
	f := addRangeFlags(fs, "before", "scan a range of index values up to, not including, the first this `VALUEPATTERN` can match", "rows", "index")
	after := fs.String("after", "", "resume after the row this `TOKEN` (from --limit) names")
	args, ts, status, ok := c.parseRange(fs, f, args, 2, "want a NAME and a VALUEPATTERN", "VALUEPATTERN")
	if !ok {
		return status
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	out := newSession(c.stdout, c.stderr)
	opts := store.IndexScanOptions{Reverse: *f.reverse, Limit: *f.limit, KeysOnly: *f.count, After: *after}
	seq := s.IndexScan(c.ctx, args[0], ts[0], opts)
	if *f.end != "" {
		seq = s.IndexScanRange(c.ctx, args[0], store.ValueRange{From: ts[0], Before: ts[1]}, opts)
	}
	n, partial := 0, false
	var last store.IndexEntry
	for e, err := range seq {
		if err != nil {
			out.fail("", errors.New(storeErr(err)))
			partial = true
			break
		}
		n++
		last = e
		if !*f.count {
			out.buf = appendTerm(out.buf[:0], e.Key)
			out.buf = append(append(append(out.buf, '\t'), e.Value...), '\n')
			out.out.Write(out.buf)
		}
	}
	// A count cut short by an error is no count of the rows: stdout
	// stays empty, and stderr says how far it got.
	switch {
	case *f.count && partial:
		fmt.Fprintf(c.stderr, "sext: no count: the scan stopped after %s rows\n", commas(int64(n)))
	case *f.count:
		fmt.Fprintln(out.out, n)
	}
	status = out.finish()
	if *f.limit > 0 && n == *f.limit {
		fmt.Fprintf(c.stderr, "next: %s\n", last.Continuation())
	}
	return c.close(s, status)
}
