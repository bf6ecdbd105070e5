package main

import (
	"fmt"

	"github.com/erlsext/sext/store"
)

const tableSelectAbout = `
Run the match specification SPEC, written as ets:select takes it, over
the objects of TABLE: for each object in key order, the first clause
whose head matches it and whose guards are all true makes a row. Heads
are patterns of whole objects, {person, '$1', '_', '$2'}; '$_' is the
object. A row whose body is just '$_' prints the object in the text that
write reads (with --keys-only, its key alone); any other body prints its
term, one a line.

  sext db --dir D select --table person "[{{person,'\$1','\$2','_'},[{'>','\$2',30}],['\$1']}]"

Only what the heads' key slots allow is read (explain --table shows it),
or an index's entries when the one clause fixes an indexed field. A head
that cannot match the table's objects (another record or arity, not a
tuple) is an error, exit status 2, rather than an empty answer. With
--limit N, a page that reaches N rows ends with "next: TOKEN" on stderr;
pass TOKEN to --after, with the same TABLE, SPEC and direction, for the
next page.`

const tableExplainAbout = `
Print what select --table reads for SPEC. The first line says which:
"reads<TAB>table TABLE" (its objects, in the ranges below) or
"reads<TAB>index ATTR" ("index ATTR unique" for a unique one), and the
second why. Then one line a byte range, "N<TAB>LOWER<TAB>UPPER<TAB>CLAUSES",
the bounds in hex (LOWER included, UPPER not) and the clauses, counted
from 1, whose objects may lie in it. With --count, a last line
"count<TAB>KEYS<TAB>ROWS": the keys the select reads (index entries and
objects alike) and the rows it makes, from running it.

  sext db --dir D explain --table person --count "[{{person,'_','_',<<\"ann@x\">>},[],['\$_']}]"`

var (
	tableSelectSub  = dbSub{"select", "sext db --dir DIR select --table TABLE [--limit N] [--reverse] [--keys-only] [--after TOKEN] SPEC", tableSelectAbout, dbSelectTable}
	tableExplainSub = dbSub{"explain", "sext db --dir DIR explain --table TABLE [--count] SPEC", tableExplainAbout, dbExplainTable}
)

func dbSelectTable(c *dbCall, args []string) int {
	fs := c.flags()
	table := fs.String("table", "", "the `TABLE` whose objects to select")
	sf := newSelectFlags(fs, "key", "a '$_' row prints its key alone")
	spec, s, status, ok := c.startSelect(fs, sf, args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	opts := sf.options(out)
	n, next := 0, ""
	for row, err := range s.SelectTable(c.ctx, *table, spec, opts) {
		if err != nil {
			out.finish()
			return c.close(s, c.tableFail("", err))
		}
		n++
		switch {
		case row.Result.Whole && *sf.keysOnly:
			out.buf = append(appendTerm(out.buf[:0], row.Key), '\n')
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

func dbExplainTable(c *dbCall, args []string) int {
	fs := c.flags()
	table := fs.String("table", "", "the `TABLE` whose select to explain")
	count := fs.Bool("count", false, "run the select and count the keys it reads and the rows it makes")
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	spec, ok := parseSpec(fs, args, c.termOpts, c.stderr)
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	p, err := s.ExplainTable(c.ctx, *table, spec)
	if err != nil {
		return c.close(s, c.tableFail("", err))
	}
	out := newSession(c.stdout, c.stderr)
	switch {
	case p.Index == "":
		fmt.Fprintf(out.out, "reads\ttable %s\n", p.Table)
	case p.Unique:
		fmt.Fprintf(out.out, "reads\tindex %s unique\n", p.Index)
	default:
		fmt.Fprintf(out.out, "reads\tindex %s\n", p.Index)
	}
	fmt.Fprintf(out.out, "why\t%s\n", p.Why)
	for i, r := range p.Ranges {
		fmt.Fprintf(out.out, "%d\t%s\t%s\t%s\n", i+1, hexOrDash(r.Lower), hexOrDash(r.Upper), clauseList(r.Clauses))
	}
	if *count {
		var st store.SelectStats
		for _, err := range s.SelectTable(c.ctx, *table, spec, store.SelectOptions{KeysOnly: true, Stats: &st}) {
			if err != nil {
				out.fail("", err)
				break
			}
		}
		if st.Index != p.Index { // the definitions changed in between
			out.fail("", fmt.Errorf("the select read %s, not what explain found: run explain again", orTable(st.Index)))
		} else {
			fmt.Fprintf(out.out, "count\t%d\t%d\n", st.KeysRead, st.Rows)
		}
	}
	return c.close(s, out.finish())
}

func orTable(index string) string {
	if index == "" {
		return "the table"
	}
	return "index " + index
}
