package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

const selectAbout = `
Run the match specification SPEC, written as ets:select takes it, over
the store: for each key in term order, the first clause whose head
matches it and whose guards are all true makes a row. A row whose body is
just '$_' prints as scan prints it, "TERM<TAB>VALUE"; any other body
prints its term, one a line.

  sext db --dir D select "[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]"

Only the byte ranges the specification allows are read (db explain shows
them): each clause's head prefix, narrowed by guards on the head's first
variable. With --limit N, a page that reaches N rows ends with the line
"next: TOKEN" on stderr; pass TOKEN to --after (with the same SPEC and
direction) for the next page, which may be empty. A resumed select sees
the store as it is then, from just after the last row's key.

A key that is no sext encoding is reported on stderr in hex and skipped;
the exit status is then 1.`

const explainAbout = `
Print what a select of SPEC reads. Mostly that is the byte ranges of its
plan, merged over its clauses: one line a range,
"N<TAB>LOWER<TAB>UPPER<TAB>CLAUSES", the bounds in hex ("-" for none;
LOWER is included, UPPER is not) and the clauses, counted from 1, whose
keys may lie in it. When the store has an index that answers SPEC's one
clause and the plan would read every key the index covers, select reads
that index's entries of the clause's value instead, and explain prints
that alone, as one line "index NAME<TAB>LOWER<TAB>UPPER<TAB>CLAUSES"
with the entries' bounds in hex. With --count, two more columns: the
keys in the range (for an index, the entries select reads) and the rows
the select takes from it.

  sext db --dir D explain --count "[{{order,'_','_',500000},[],['$_']}]"`

// parseSpec parses the SPEC argument, reporting an error as the other
// subcommands report a bad TERM. A bare _ in it is the wildcard, as in a
// PATTERN.
func parseSpec(fs *flagSet, args []string, o term.ParseOptions, stderr io.Writer) (*matchspec.Spec, bool) {
	if len(args) != 1 {
		fs.usageError(stderr, "want one SPEC")
		return nil, false
	}
	t, err := parsePattern(args[0], o)
	var spec *matchspec.Spec
	if err == nil {
		spec, err = matchspec.Compile(t)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sext: SPEC: %s\n", describe(err))
		return nil, false
	}
	return spec, true
}

func dbSelect(c *dbCall, args []string) int {
	fs := c.flags()
	limit := fs.Int("limit", 0, "print at most `N` rows, then the token for the next page (0: all)")
	reverse := fs.Bool("reverse", false, "select in descending term order")
	keysOnly := fs.Bool("keys-only", false, "do not read values: a '$_' row prints its key alone")
	after := fs.String("after", "", "resume after the row this continuation `TOKEN` came from")
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	if *limit < 0 {
		return fs.usageError(c.stderr, "--limit must not be negative")
	}
	spec, ok := parseSpec(fs, args, c.termOpts, c.stderr)
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	out := newSession(c.stdout, c.stderr)
	opts := store.SelectOptions{Limit: *limit, Reverse: *reverse, KeysOnly: *keysOnly, After: strings.TrimSpace(*after),
		OnBadKey: skipBadKey(out)}
	n, next := 0, ""
	for row, err := range s.Select(c.ctx, spec, opts) {
		if err != nil {
			out.fail("", err)
			next = ""
			break
		}
		n++
		switch {
		case row.Result.Whole && *keysOnly:
			out.buf = append(appendTerm(out.buf[:0], row.Key), '\n')
		case row.Result.Whole:
			out.buf = appendTerm(out.buf[:0], row.Key)
			out.buf = append(append(append(out.buf, '\t'), row.Value...), '\n')
		default:
			out.buf = append(appendTerm(out.buf[:0], row.Result.Term), '\n')
		}
		out.out.Write(out.buf)
		if *limit > 0 && n == *limit {
			next = row.Continuation()
		}
	}
	status = out.finish()
	if next != "" {
		fmt.Fprintf(c.stderr, "next: %s\n", next)
	}
	return c.close(s, status)
}

func dbExplain(c *dbCall, args []string) int {
	fs := c.flags()
	count := fs.Bool("count", false, "also count the keys in each range (or the index entries select reads) and the rows taken from them")
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	spec, ok := parseSpec(fs, args, c.termOpts, c.stderr)
	if !ok {
		return exitUsage
	}
	// The store's index definitions decide whether select reads an
	// index, so explain opens the store even without --count; the count
	// of a range's keys reads its backend's bytes.
	kv, ok := c.be.openKV(c.ctx, &pebblekv.Options{MustExist: true}, c.stderr)
	if !ok {
		return exitFail
	}
	s := store.New(kv, &store.Options{Codec: c.be.codec})
	out := newSession(c.stdout, c.stderr)
	if p, err := s.ExplainSelect(c.ctx, spec); err != nil {
		out.fail("", err)
	} else if p.Index != nil {
		explainIndex(c.ctx, out, s, spec, *p.Index, *count)
	} else {
		explainPlan(c.ctx, out, kv, spec, p.Ranges, *count)
	}
	return c.close(s, out.finish())
}

// explainPlan prints the plan's ranges, and with count what each holds.
func explainPlan(ctx context.Context, out *session, kv store.KV, spec *matchspec.Spec, ranges []matchspec.Range, count bool) {
	for i, r := range ranges {
		line := fmt.Sprintf("%d\t%s\t%s\t%s", i+1, hexOrDash(r.Lower), hexOrDash(r.Upper), clauseList(r.Clauses))
		if count {
			keys, rows, err := countRange(ctx, kv, spec, r)
			if err != nil {
				out.fail("", err)
				return
			}
			line += fmt.Sprintf("\t%d\t%d", keys, rows)
		}
		fmt.Fprintln(out.out, line)
	}
}

// explainIndex prints the index entries a select reads in place of the
// plan. Its count is the select's own: run keys-only, it reads the same
// entries and takes the same rows.
func explainIndex(ctx context.Context, out *session, s *store.Store, spec *matchspec.Spec, p store.IndexPlan, count bool) {
	line := fmt.Sprintf("index %s\t%s\t%s\t%s", p.Name, hexOrDash(p.Lower), hexOrDash(p.Upper), clauseList(p.Clauses))
	if count {
		var st store.SelectStats
		for _, err := range s.Select(ctx, spec, store.SelectOptions{KeysOnly: true, Stats: &st}) {
			if err != nil {
				out.fail("", err)
				return
			}
		}
		if st.Index != p.Name { // the definitions changed in between
			out.fail("", fmt.Errorf("the select read %s, not index %s: run explain again", orPlan(st.Index), p.Name))
			return
		}
		line += fmt.Sprintf("\t%d\t%d", st.KeysRead, st.Rows)
	}
	fmt.Fprintln(out.out, line)
}

func orPlan(index string) string {
	if index == "" {
		return "the plan"
	}
	return "index " + index
}

// clauseList numbers clauses from 1, comma-separated.
func clauseList(cs []int) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = strconv.Itoa(c + 1)
	}
	return strings.Join(s, ",")
}

func hexOrDash(b []byte) string {
	if b == nil {
		return "-"
	}
	return sext.Hex.EncodeToString(b)
}

// countRange counts the keys of one range through the seam and the rows
// the spec's clauses take from them.
func countRange(ctx context.Context, kv store.KV, spec *matchspec.Spec, r matchspec.Range) (keys, rows int64, err error) {
	lo := r.Lower
	if len(lo) == 0 {
		lo = seam.ReservedEnd // below it lie the index entries, which are not keys
	}
	it, err := kv.NewIter(ctx, lo, r.Upper, false)
	if err != nil {
		return 0, 0, err
	}
	defer it.Close()
	m := spec.NewMatcher()
	for it.Next() {
		keys++
		if t, err := sext.Decode(it.Key()); err == nil {
			if _, ok := m.MatchClauses(t, r.Clauses); ok {
				rows++
			}
		}
	}
	return keys, rows, it.Err()
}
