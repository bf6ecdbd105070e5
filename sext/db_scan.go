package main

import (
	"errors"
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

const scanAbout = `
Print "TERM<TAB>VALUE", one a line in term order, for every key that
matches PATTERN: '_' (or a bare _, as in an Erlang pattern) matches any
term, '$N' any term but the same one wherever it occurs, and a binary
prefix <<"ali",_/binary>> any binary that starts with "ali". Only the
keys under PATTERN's prefix (everything before its first wildcard or
binary prefix, narrowed by the binary prefix's bits: sext prefix
--range shows the range) are read, so put the wildcards last:
'{user, <<"ali",_/binary>>, _}' reads only the users whose name starts
with "ali".

With --to, print every key from the first that can match PATTERN
through the last that can match --to's pattern, without matching
either. The keys that match --to's pattern are printed too: --to names
the last keys of the range, not the first ones left out (unlike index
scan --before). With keys {order, Customer, #Desc<Time>, Id}, from
"{order, 42, #Desc<T2>, '_'}" --to "{order, 42, #Desc<T1>, '_'}" lists
customer 42's orders from T2 back to T1, the orders at T1 included (the
newer time comes first, as #Desc sorts it).

A key that is no sext encoding is reported on stderr in hex and skipped;
a key that is not in canonical form is reported and printed; the exit
status is then 1.`

// rangeFlags are the flags scan and index scan share: a range's end (scan
// --to, through its pattern's last key; index scan --before, up to its
// pattern's first value), a limit, the direction, and counting only.
type rangeFlags struct {
	end     *string
	endName string // "--to", "--before"
	limit   *int
	reverse *bool
	count   *bool
}

// addRangeFlags adds the shared flags, with the end's flag name and help,
// the name of the rows ("entries") and of the order ("term") in theirs.
func addRangeFlags(fs *flagSet, end, endUsage, rows, order string) rangeFlags {
	return rangeFlags{
		end:     fs.String(end, "", endUsage),
		endName: "--" + end,
		limit:   fs.Int("limit", 0, "print at most `N` "+rows+" (0: all)"),
		reverse: fs.Bool("reverse", false, "scan in descending "+order+" order"),
		count:   fs.Bool("count", false, "print only the number of "+rows),
	}
}

// parseRange parses a range scan's arguments, want of them with the
// pattern last, checks the shared flags, and parses the pattern and, with
// the end's flag, the range's end; name names the pattern in a report. ok false
// means return status.
func (c *dbCall) parseRange(fs *flagSet, f rangeFlags, args []string, want int, what, name string) (pos []string, ts []term.Term, status int, ok bool) {
	if pos, status, ok = c.parse(fs, args, want, what); !ok {
		return nil, nil, status, false
	}
	ts, status, ok = c.patterns(fs, f, pos[want-1], name)
	return pos, ts, status, ok
}

func (c *dbCall) patterns(fs *flagSet, f rangeFlags, text, name string) (ts []term.Term, status int, ok bool) {
	if *f.limit < 0 {
		return nil, fs.usageError(c.stderr, "--limit must not be negative"), false
	}
	texts, names := []string{text}, []string{name}
	if *f.end != "" {
		texts, names = append(texts, *f.end), append(names, f.endName)
	}
	if ts, ok = c.terms(texts, names); !ok {
		return nil, exitUsage, false
	}
	return ts, exitOK, true
}

// skipBadKey is OnBadKey for the commands that read keys: the key is
// reported in hex, and the command goes on.
func skipBadKey(out *session) func([]byte, error) {
	return func(k []byte, err error) {
		out.fail("key "+sext.Hex.EncodeToString(k), fmt.Errorf("not a sext encoding, skipped: %s", describe(err)))
	}
}

func dbScan(c *dbCall, args []string) int {
	fs := c.flags()
	f := addRangeFlags(fs, "to", "scan a range through the last key this `PATTERN` can match, its keys included", "entries", "term")
	values := valuesFlag(fs)
	_, ts, status, ok := c.parseRange(fs, f, args, 1, "want one PATTERN", "PATTERN")
	if !ok {
		return status
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	out := newSession(c.stdout, c.stderr)
	opts := store.ScanOptions{Reverse: *f.reverse, Limit: *f.limit, KeysOnly: *f.count,
		OnBadKey:       skipBadKey(out),
		OnNonCanonical: func(k []byte, t term.Term) { out.fail("key "+sext.Hex.EncodeToString(k), c.be.nonCanonical(t)) }}
	seq := s.Scan(c.ctx, ts[0], opts)
	if *f.end != "" {
		seq = s.ScanRange(c.ctx, ts[0], ts[1], opts)
	}
	n, partial := 0, false
	for e, err := range seq {
		if err != nil {
			out.fail("", errors.New(storeErr(err)))
			partial = true
			break
		}
		n++
		if *f.count {
			continue
		}
		out.buf = append(appendTerm(out.buf[:0], e.Key), '\t')
		var err error
		if out.buf, err = showValue(values.val, out.buf, e.Value); err != nil {
			out.fail("the value of "+string(appendTerm(nil, e.Key)), fmt.Errorf("skipped: %s", describe(err)))
			continue
		}
		out.out.Write(append(out.buf, '\n'))
	}
	// A count cut short by an error is no count of the entries: stdout
	// stays empty, and stderr says how far it got.
	switch {
	case *f.count && partial:
		fmt.Fprintf(c.stderr, "sext: no count: the scan stopped after %s entries\n", commas(int64(n)))
	case *f.count:
		fmt.Fprintln(out.out, n)
	}
	return c.close(s, out.finish())
}
