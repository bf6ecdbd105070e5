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
variable. A head may hold a binary prefix <<"ali",_/binary>>, which
matches any binary that starts with "ali" and narrows the range to those
binaries (an extension: ets's match specifications have none). With --limit N, a page that reaches N rows ends with the line
"next: TOKEN" on stderr; pass TOKEN to --after (with the same SPEC and
direction) for the next page, which may be empty. A resumed select sees
the store as it is then, from just after the last row's key.

A key that is no sext encoding is reported on stderr in hex and skipped;
the exit status is then 1.`

const explainAbout = `
Print what a select of SPEC reads, as a table with a header line. Mostly
that is the byte ranges of its plan, merged over its clauses: one line a
range under "range<TAB>lower<TAB>upper<TAB>clauses": its number, the
bounds in hex ("-" for none; lower is included, upper is not) and the
clauses, counted from 1, whose keys may lie in it.

When the store has an index that answers SPEC's one clause and the plan
would read every key the index covers, select reads that index's entries
instead, and explain prints those alone, under
"index<TAB>value<TAB>lower<TAB>upper<TAB>clauses": the index's name, the
value whose entries are read, and the entries' bounds in hex. The value
is a constant the clause's head gives, the head's variable where the
guards bound it ("'$1' (a range of values, keys sorted)", one line for
each range the guards allow), or a binary prefix the head gives there
("<<"A1",_/binary>> (a range of values, keys sorted)", the values that
start with "A1"): select then gathers the keys of those entries, sorts
them into key order and reads them (past 262,144 keys it reads the plan
instead). With --limit, each page reads the plan beside those entries, a
key of each in turn, and prints the rows of whichever ends first, so that
small pages do not read every entry each.

With --count, two more columns: "keys" (for an index, "entries"), what
the range holds, and "rows", the rows the select takes from it.

  sext db --dir D explain --count "[{{order,'_','_',500000},[],['$_']}]"
  sext db --dir D explain "[{{order,'_','_','$1'},[{'>=','$1',100},{'<','$1',200}],['$_']}]"`

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

// selectFlags are the paging flags of a select, of keys or of a table's
// objects alike.
type selectFlags struct {
	limit             *int
	reverse, keysOnly *bool
	after             *string
}

// newSelectFlags defines them on fs: order names what the order is of,
// keysOnly says what --keys-only does.
func newSelectFlags(fs *flagSet, order, keysOnly string) selectFlags {
	return selectFlags{
		limit:    fs.Int("limit", 0, "print at most `N` rows, then the token for the next page (0: all)"),
		reverse:  fs.Bool("reverse", false, "select in descending "+order+" order"),
		keysOnly: fs.Bool("keys-only", false, keysOnly),
		after:    fs.String("after", "", "resume after the row this continuation `TOKEN` came from"),
	}
}

// options are the store's options the flags ask for.
func (f selectFlags) options(out *session) store.SelectOptions {
	return store.SelectOptions{Limit: *f.limit, Reverse: *f.reverse, KeysOnly: *f.keysOnly,
		After: strings.TrimSpace(*f.after), OnBadKey: skipBadKey(out)}
}

// startSelect parses a select's flags and its SPEC and opens the store;
// when not ok, status is the exit status.
func (c *dbCall) startSelect(fs *flagSet, sf selectFlags, args []string) (*matchspec.Spec, *store.Store, int, bool) {
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return nil, nil, status, false
	}
	if *sf.limit < 0 {
		return nil, nil, fs.usageError(c.stderr, "--limit must not be negative"), false
	}
	spec, ok := parseSpec(fs, args, c.termOpts, c.stderr)
	if !ok {
		return nil, nil, exitUsage, false
	}
	s, ok := c.openExisting()
	if !ok {
		return nil, nil, exitFail, false
	}
	return spec, s, exitOK, true
}

func dbSelect(c *dbCall, args []string) int {
	fs := c.flags()
	sf := newSelectFlags(fs, "term", "do not read values: a '$_' row prints its key alone")
	spec, s, status, ok := c.startSelect(fs, sf, args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	opts := sf.options(out)
	n, next := 0, ""
	for row, err := range s.Select(c.ctx, spec, opts) {
		if err != nil {
			out.fail("", err)
			next = ""
			break
		}
		n++
		switch {
		case row.Result.Whole && *sf.keysOnly:
			out.buf = append(appendTerm(out.buf[:0], row.Key), '\n')
		case row.Result.Whole:
			out.buf = appendTerm(out.buf[:0], row.Key)
			out.buf = append(append(append(out.buf, '\t'), row.Value...), '\n')
		default:
			out.buf = append(appendTerm(out.buf[:0], row.Result.Term), '\n')
		}
		out.out.Write(out.buf)
		if *sf.limit > 0 && n == *sf.limit {
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
	s, kv, ok := c.openExistingKV()
	if !ok {
		return exitFail
	}
	out := newSession(c.stdout, c.stderr)
	if p, err := s.ExplainSelect(c.ctx, spec); err != nil {
		out.fail("", err)
	} else if p.Index != nil {
		explainIndex(c.ctx, out, kv, c.be.codec, spec, *p.Index, *count)
	} else {
		explainPlan(c.ctx, out, kv, c.be.codec, spec, p.Ranges, *count)
	}
	return c.close(s, out.finish())
}

// explainPlan prints the plan's ranges, and with count what each holds.
func explainPlan(ctx context.Context, out *session, kv store.KV, codec sext.Options, spec *matchspec.Spec, ranges []matchspec.Range, count bool) {
	header := "range\tlower\tupper\tclauses"
	if count {
		header += "\tkeys\trows"
	}
	fmt.Fprintln(out.out, header)
	for i, r := range ranges {
		line := fmt.Sprintf("%d\t%s\t%s\t%s", i+1, hexOrDash(r.Lower), hexOrDash(r.Upper), clauseList(r.Clauses))
		if count {
			keys, rows, err := countRange(ctx, kv, r, func(k []byte) (term.Term, bool) {
				t, err := codec.Decode(k)
				return t, err == nil
			}, spec.NewMatcher())
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
// plan, and with count what each range holds: its entries, and the rows
// the clause takes from their data keys.
func explainIndex(ctx context.Context, out *session, kv store.KV, codec sext.Options, spec *matchspec.Spec, p store.IndexPlan, count bool) {
	header := "index\tvalue\tlower\tupper\tclauses"
	if count {
		header += "\tentries\trows"
	}
	fmt.Fprintln(out.out, header)
	value := string(appendTerm(nil, p.Value))
	if p.Sorted {
		value += " (a range of values, keys sorted)"
	}
	// An entry is the reserved byte, then {index, Name, Value, Key}.
	dataKey := func(k []byte) (term.Term, bool) {
		t, err := codec.Decode(k[1:])
		if err != nil || t.Kind() != term.KindTuple || t.Len() != 4 {
			return term.Term{}, false
		}
		return t.Elems()[3], true
	}
	for _, r := range p.Ranges {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", p.Name, value, hexOrDash(r.Lower), hexOrDash(r.Upper), clauseList(r.Clauses))
		if count {
			entries, rows, err := countRange(ctx, kv, r, dataKey, spec.NewMatcher())
			if err != nil {
				out.fail("", err)
				return
			}
			line += fmt.Sprintf("\t%d\t%d", entries, rows)
		}
		fmt.Fprintln(out.out, line)
	}
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

// countRange counts the keys of one range through the seam, and the
// rows r's clauses take from the terms key gives of them (a data key,
// or an index entry's).
func countRange(ctx context.Context, kv store.KV, r matchspec.Range, key func([]byte) (term.Term, bool), m *matchspec.Matcher) (keys, rows int64, err error) {
	lo := r.Lower
	if len(lo) == 0 {
		lo = seam.ReservedEnd // below it lie the index entries, which are not keys
	}
	it, err := kv.NewIter(ctx, lo, r.Upper, false)
	if err != nil {
		return 0, 0, err
	}
	defer it.Close()
	for it.Next() {
		keys++
		if t, ok := key(it.Key()); ok {
			if _, ok := m.MatchClauses(t, r.Clauses); ok {
				rows++
			}
		}
	}
	return keys, rows, it.Err()
}
