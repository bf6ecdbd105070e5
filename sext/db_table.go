package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

const tableAbout = `
Tables of records, as mnesia keeps them: each object a tuple such as
{person, Name, Age, Email}, stored whole under its key (the element at
the key position, 2 for a record: its first attribute), one object a key,
in key order. A table keeps its exact object count, in the same atomic
write as the objects, and indexes on any field, unique or not.

subcommands:
  create TABLE [ATTR...]  a table of records {TABLE, ATTR...}, the first
                          ATTR the key; --record NAME when the record's
                          name is not the table's; --type ordered_set
                          (the default) or set; no ATTR: any tuple, keyed
                          at --keypos (1 by default, as in ets)
  drop TABLE              delete the table: its objects, indexes, count
  list                    print "TABLE<TAB>RECORD<TAB>ATTRS<TAB>KEYPOS<TAB>TYPE<TAB>STATE"
  info TABLE              the definition, the indexes and the count, one
                          "NAME<TAB>VALUE" line each; the count's line is
                          "count<TAB>N", N a plain number, exact, read from
                          one key
  index TABLE ATTR        index the objects by ATTR (a name, or a position
                          for any tuple), built beside writers; --unique:
                          refuse a second object with the same value;
                          --drop: delete the index
  check [--fix]           compare each table's count and index entries
                          with its objects; exit 1 on any difference;
                          --fix repairs them

The objects themselves: sext db write TABLE OBJECT..., read TABLE KEY,
delete TABLE KEY..., load --table TABLE FILE, select --table TABLE SPEC
and explain --table TABLE SPEC.

examples:
  sext db --dir /tmp/shop table create person name age email
  sext db --dir /tmp/shop table index person email --unique
  sext db --dir /tmp/shop write person '{person, <<"ann">>, 31, <<"ann@x">>}'
  sext db --dir /tmp/shop select --table person "[{{person,'\$1','\$2','_'},[{'>','\$2',30}],['\$1']}]"
  sext db --dir /tmp/shop table info person`

// dbTableSubs are the subcommands of "sext db table".
var dbTableSubs = map[string]dbSub{
	"create": {"table create", "sext db --dir DIR table create TABLE [ATTR...] [--record NAME] [--type ordered_set|set] [--keypos N]", tableCreateAbout, dbTableCreate},
	"drop":   {"table drop", "sext db --dir DIR table drop TABLE", "Delete TABLE: its objects, its indexes, its count and its definition, in steps. An interrupted drop leaves the table being dropped (writers refuse it); drop it again, or run table check --fix, to finish.", dbTableDrop},
	"list":   {"table list", "sext db --dir DIR table list", "Print each table: TABLE<TAB>RECORD<TAB>ATTRS<TAB>KEYPOS<TAB>TYPE<TAB>STATE, RECORD and ATTRS (comma-separated) \"-\" for a table of any tuple, STATE ready or dropping.", dbTableList},
	"info":   {"table info", "sext db --dir DIR table info TABLE", tableInfoAbout, dbTableInfo},
	"index":  {"table index", "sext db --dir DIR table index TABLE ATTR [--unique] [--drop] [--progress DURATION]", tableIndexAbout, dbTableIndex},
	"check":  {"table check", "sext db --dir DIR table check [--fix]", tableCheckAbout, dbTableCheck},
}

const tableCreateAbout = `
Define TABLE. With ATTRs, its objects are records {RECORD, ATTR...},
RECORD being the table's name unless --record gives another, and the key
is the first ATTR (--keypos 2, as in mnesia; another position counts
from 1, the record's name being 1). Without ATTRs, its objects are any
tuple with an element at --keypos (1 by default, as in ets). --type is
ordered_set (the default) or set: both keep one object a key, in key
order; bag is not offered.`

const tableInfoAbout = `
Print TABLE's definition, its indexes and its exact object count, one
"NAME<TAB>VALUE" line each:

  table	person
  record	person
  attributes	name age email
  keypos	2
  type	ordered_set
  state	ready
  index	email unique ready
  count	3

The count is kept in the same atomic write as the objects, so it is
exact after any crash, and reading it reads one key.`

const tableIndexAbout = `
Index TABLE's objects by the field ATTR: an attribute's name, or a
position counted from 1 for a table of any tuple. A select whose one
clause fixes ATTR (in its head, or by a guard '$N' =:= VALUE) reads the
index's entries of that value rather than the table: a unique index
always, another when the key does not narrow the select. With --unique a
write that would give two objects one value is refused, and so is the
index itself if the objects already do. The objects stored are indexed
in steps while writers go on, with progress on stderr; an interrupted
build is finished by the same command or by table check --fix. --drop
deletes the index.`

const tableCheckAbout = `
Check every table: its count against its objects, its index entries
against what its objects give, objects that do not decode, keys that no
table owns. Print one line a problem, "TABLE<TAB>KIND<TAB>DETAIL", and
exit 1 if there is any; with --fix, repair the counts and entries and
finish interrupted drops and builds (each line then ends "<TAB>fixed").`

// dbTable dispatches "sext db table SUB".
func dbTable(c *dbCall, args []string) int {
	return c.dispatch(args, dbTableSubs, "create, drop, list, info, index or check")
}

// tableFail reports an error of the table calls on one line and returns
// the exit status: 2 (usage) for a definition, specification or object
// the command line gave wrong, 1 otherwise.
func (c *dbCall) tableFail(what string, err error) int {
	if what != "" {
		what += ": "
	}
	fmt.Fprintf(c.stderr, "sext: %s%s\n", what, storeErr(err))
	if errors.Is(err, store.ErrTableDef) || errors.Is(err, store.ErrTableSpec) {
		return exitUsage
	}
	return exitFail
}

func dbTableCreate(c *dbCall, args []string) int {
	fs := c.flags()
	record := fs.String("record", "", "the record's `NAME`, when it is not the table's")
	typ := fs.String("type", "ordered_set", "`ordered_set` or set: one object a key either way (bag is not offered)")
	keypos := fs.Int("keypos", 0, "the key's position `N`, from 1 (default: 2 for records, 1 for any tuple)")
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	if len(args) == 0 {
		return fs.usageError(c.stderr, "want a TABLE and its ATTRs")
	}
	def := store.TableDef{Name: args[0], Attributes: args[1:], KeyPos: *keypos}
	var err error
	if def.Type, err = store.ParseTableType(*typ); err != nil {
		return fs.usageError(c.stderr, storeErr(err))
	}
	if len(def.Attributes) > 0 {
		def.Record = args[0]
		if *record != "" {
			def.Record = *record
		}
	} else if *record != "" {
		return fs.usageError(c.stderr, "--record needs ATTRs: a table without them holds any tuple")
	}
	s, ok := c.open(nil)
	if !ok {
		return exitFail
	}
	status = exitOK
	if err := s.CreateTable(c.ctx, def); err != nil {
		status = c.tableFail("", err)
	}
	return c.close(s, status)
}

func dbTableDrop(c *dbCall, args []string) int {
	fs := c.flags()
	args, status, ok := c.parse(fs, args, 1, "want one TABLE")
	if !ok {
		return status
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	status = exitOK
	if err := s.DropTable(c.ctx, args[0], nil); err != nil {
		status = c.tableFail("", err)
	}
	return c.close(s, status)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func dbTableList(c *dbCall, args []string) int {
	s, status, ok := c.openNoArgs(c.flags(), args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	list, err := s.Tables(c.ctx)
	if err != nil {
		out.fail("", errors.New(storeErr(err)))
	}
	for _, t := range list {
		state := "ready"
		if t.Dropping {
			state = "dropping"
		}
		fmt.Fprintf(out.out, "%s\t%s\t%s\t%d\t%s\t%s\n", t.Name, orDash(t.Record), orDash(strings.Join(t.Attributes, ",")), t.KeyPos, t.Type, state)
	}
	return c.close(s, out.finish())
}

func dbTableInfo(c *dbCall, args []string) int {
	fs := c.flags()
	args, status, ok := c.parse(fs, args, 1, "want one TABLE")
	if !ok {
		return status
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	in, err := s.DescribeTable(c.ctx, args[0])
	if err != nil {
		return c.close(s, c.tableFail("", err))
	}
	out := newSession(c.stdout, c.stderr)
	state := "ready"
	if in.Dropping {
		state = "dropping"
	}
	fmt.Fprintf(out.out, "table\t%s\nrecord\t%s\nattributes\t%s\nkeypos\t%d\ntype\t%s\nstate\t%s\n",
		in.Name, orDash(in.Record), orDash(strings.Join(in.Attributes, " ")), in.KeyPos, in.Type, state)
	for _, ix := range in.Indexes {
		kind := ""
		if ix.Unique {
			kind = " unique"
		}
		fmt.Fprintf(out.out, "index\t%s%s %s\n", ix.Attr, kind, ix.State)
	}
	if !in.Dropping {
		fmt.Fprintf(out.out, "count\t%d\n", in.Count)
	}
	return c.close(s, out.finish())
}

func dbTableIndex(c *dbCall, args []string) int {
	fs := c.flags()
	unique := fs.Bool("unique", false, "refuse a second object with the same value")
	drop := fs.Bool("drop", false, "delete the index instead")
	every := fs.Duration("progress", 2*time.Second, "report progress every `DURATION` (a terminal's bar is redrawn more often)")
	args, status, ok := c.parse(fs, args, 2, "want a TABLE and an ATTR")
	if !ok {
		return status
	}
	if *every <= 0 {
		return fs.usageError(c.stderr, "--progress must be positive")
	}
	if *drop && *unique {
		return fs.usageError(c.stderr, "--drop and --unique exclude each other")
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	label := "indexing"
	if *drop {
		label = "dropping"
	}
	p := newProgress(c.stderr, label, 0)
	p.every = *every
	var n int64
	start := time.Now()
	opts := &store.BuildOptions{Progress: func(k int64) {
		n = k
		p.update(k, -1, 0)
	}}
	var err error
	if *drop {
		err = s.DropTableIndex(c.ctx, args[0], args[1], opts)
	} else {
		err = s.CreateTableIndex(c.ctx, args[0], args[1], *unique, opts)
	}
	p.clear()
	if err != nil {
		return c.close(s, c.tableFail("", err))
	}
	if !*drop {
		fmt.Fprintf(c.stderr, "indexed %s by %s: read %s in %s\n", args[0], args[1], counted(n, "object"), round(time.Since(start)))
	}
	return c.close(s, exitOK)
}

func dbTableCheck(c *dbCall, args []string) int {
	fs := c.flags()
	fix := fs.Bool("fix", false, "repair counts and entries, finish drops and builds")
	s, status, ok := c.openNoArgs(fs, args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	r, err := s.CheckTables(c.ctx, store.TableCheckOptions{Fix: *fix, OnProblem: func(p store.TableProblem) {
		detail := p.Detail
		if p.Index != "" {
			detail = strings.TrimSpace("index " + p.Index + ": " + detail)
		}
		if p.Key.Kind() != term.KindList || p.Key.Len() > 0 {
			detail += " (key " + string(appendTerm(nil, p.Key)) + ")"
		}
		line := fmt.Sprintf("%s\t%s\t%s", orDash(p.Table), p.Kind, detail)
		if p.Fixed {
			line += "\tfixed"
		}
		fmt.Fprintln(out.out, line)
	}})
	if err != nil {
		out.fail("", errors.New(storeErr(err)))
	}
	fmt.Fprintf(c.stderr, "checked %s: %s, %s index entries\n", counted(int64(r.Tables), "table"), counted(r.Objects, "object"), commas(r.Entries))
	status = out.finish()
	if !r.Clean() && (!*fix || r.Fixed < r.Counts+r.Missing+r.Stale+r.Unfinished) {
		status = exitFail
	}
	return c.close(s, status)
}

// Objects: write, read and delete.

func dbWrite(c *dbCall, args []string) int {
	fs := c.flags()
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	if len(args) < 2 {
		return fs.usageError(c.stderr, "want a TABLE and at least one OBJECT")
	}
	names := make([]string, len(args)-1)
	for i := range names {
		names[i] = "OBJECT"
		if len(names) > 1 {
			names[i] = "OBJECT " + strconv.Itoa(i+1)
		}
	}
	objs, ok := c.terms(args[1:], names)
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	b := s.NewTableBatch()
	for _, o := range objs {
		b.Write(args[0], o)
	}
	status = exitOK
	if err := s.ApplyTableBatch(c.ctx, b); err != nil {
		var oe *store.ObjectError
		if errors.As(err, &oe) {
			fmt.Fprintf(c.stderr, "sext: %s: %s (nothing written)\n", names[oe.Write], storeErr(err))
			status = exitUsage
		} else {
			status = c.tableFail("", err)
		}
	}
	return c.close(s, status)
}

func dbRead(c *dbCall, args []string) int {
	fs := c.flags()
	args, status, ok := c.parse(fs, args, 2, "want a TABLE and a KEY")
	if !ok {
		return status
	}
	ts, ok := c.terms(args[1:], []string{"KEY"})
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	obj, err := s.ReadObject(c.ctx, args[0], ts[0])
	switch {
	case errors.Is(err, store.ErrNotFound):
		fmt.Fprintf(c.stderr, "sext: not found: %s in %s\n", appendTerm(nil, ts[0]), args[0])
		return c.close(s, exitFail)
	case err != nil:
		return c.close(s, c.tableFail("", err))
	}
	c.stdout.Write(append(appendTerm(nil, obj), '\n'))
	return c.close(s, exitOK)
}

func dbDelete(c *dbCall, args []string) int {
	fs := c.flags()
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	if len(args) < 2 {
		return fs.usageError(c.stderr, "want a TABLE and at least one KEY")
	}
	names := make([]string, len(args)-1)
	for i := range names {
		names[i] = "KEY"
	}
	keys, ok := c.terms(args[1:], names)
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	b := s.NewTableBatch()
	for _, k := range keys {
		b.Delete(args[0], k)
	}
	status = exitOK
	if err := s.ApplyTableBatch(c.ctx, b); err != nil {
		status = c.tableFail("", err)
	}
	return c.close(s, status)
}

// tableAware runs keys (the key store's subcommand) unless its
// arguments hold --table, which makes it table's: load, select and
// explain have both forms.
func tableAware(keys func(c *dbCall, args []string) int, table dbSub) func(c *dbCall, args []string) int {
	return func(c *dbCall, args []string) int {
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--table" || a == "-table" || strings.HasPrefix(a, "--table=") || strings.HasPrefix(a, "-table=") {
				call := *c
				call.sub = table
				return table.run(&call, args)
			}
		}
		return keys(c, args)
	}
}
