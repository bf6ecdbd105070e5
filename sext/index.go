package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
)

const indexAbout = `
Secondary indexes, kept in the store itself: every process that opens
the store maintains them, each write of a key writing its index entries
in the same atomic write.

subcommands:
  create NAME PATTERN   index every key that matches PATTERN by what its
                        '$N' variables bind (several: the tuple of them,
                        in the order of their numbers); the keys already
                        stored are indexed in steps, with progress on
                        stderr, while writers go on
  drop NAME             delete the index and its entries
  list                  print "NAME<TAB>PATTERN<TAB>STATE" for each index
  check [--fix]         find data without entries, entries without data,
                        stale entries and unfinished builds or drops; exit
                        1 if there are any; --fix repairs them
  scan NAME VALUEPATTERN [--to VALUEPATTERN] [--limit N] [--reverse]
       [--count] [--after TOKEN]
                        print "TERM<TAB>VALUE" for each key whose index
                        value matches VALUEPATTERN ('_' for all), in index
                        order (by value, then key); with --limit, the
                        token that resumes after the last row goes to
                        stderr as "next: TOKEN"

examples:
  sext db --dir /tmp/shop index create order_id "{order, '_', '_', '\$1'}"
  sext db --dir /tmp/shop index scan order_id 500000
  sext db --dir /tmp/shop index scan order_id '_' --limit 10 --reverse`

func init() {
	dbIndexSubs = map[string]dbSub{
		"create": {"sext db --dir DIR index create NAME PATTERN [--progress DURATION]", "Define the index NAME over the keys that match PATTERN, which needs a '$N' variable, and index the keys already stored.", dbIndexCreate},
		"drop":   {"sext db --dir DIR index drop NAME", "Delete the index NAME and its entries.", dbIndexDrop},
		"list":   {"sext db --dir DIR index list", "Print each index: NAME<TAB>PATTERN<TAB>STATE (building, ready or dropping).", dbIndexList},
		"check":  {"sext db --dir DIR index check [--fix]", indexCheckAbout, dbIndexCheck},
		"scan":   {"sext db --dir DIR index scan NAME VALUEPATTERN [--to VALUEPATTERN] [--limit N] [--reverse] [--count] [--after TOKEN]", indexScanAbout, dbIndexScan},
	}
}

var dbIndexSubs map[string]dbSub

// dbIndex dispatches "sext db index SUB".
func dbIndex(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("db index", "sext db --dir DIR index SUBCOMMAND [flags] [args]", indexAbout)
	if len(args) == 0 {
		return fs.usageError(stderr, "missing subcommand: create, drop, list, check or scan")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		_, status, _ := fs.parse(args, stdout, stderr)
		return status
	}
	sub, ok := dbIndexSubs[args[0]]
	if !ok {
		return fs.usageError(stderr, fmt.Sprintf("unknown subcommand %q", args[0]))
	}
	return sub.run(dir, args[1:], stdin, stdout, stderr)
}

func indexFlags(name string) *flagSet {
	s := dbIndexSubs[name]
	return newFlagSet("db index "+name, s.synopsis, s.about)
}

func dbIndexCreate(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := indexFlags("create")
	every := fs.Duration("progress", 2*time.Second, "report progress every `DURATION` (a terminal's bar is redrawn more often)")
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 2 {
		return fs.usageError(stderr, "want a NAME and a PATTERN")
	}
	if *every <= 0 {
		return fs.usageError(stderr, "--progress must be positive")
	}
	ts, ok := parseArgTerms(fs, args[1:], []string{"PATTERN"}, stderr)
	if !ok {
		return exitUsage
	}
	s, ok := openStore(dir, mustExist(), stderr)
	if !ok {
		return exitFail
	}
	p := newProgress(stderr, "indexing", 0)
	p.every = *every
	var keys int64
	start := time.Now()
	err := s.CreateIndex(dbCtx, args[0], ts[0], &store.BuildOptions{Progress: func(n int64) {
		keys = n
		p.update(n, -1, 0)
	}})
	p.clear()
	if err != nil {
		fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
		if errors.Is(err, store.ErrIndexPattern) {
			return closeStore(s, exitUsage, stderr)
		}
		return closeStore(s, exitFail, stderr)
	}
	fmt.Fprintf(stderr, "indexed %s: read %s keys in %s\n", args[0], commas(keys), round(time.Since(start)))
	return closeStore(s, exitOK, stderr)
}

func dbIndexDrop(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := indexFlags("drop")
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 1 {
		return fs.usageError(stderr, "want one NAME")
	}
	s, ok := openStore(dir, mustExist(), stderr)
	if !ok {
		return exitFail
	}
	status = exitOK
	if err := s.DropIndex(dbCtx, args[0], nil); err != nil {
		fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
		status = exitFail
	}
	return closeStore(s, status, stderr)
}

func dbIndexList(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := indexFlags("list")
	s, status, ok := openNoArgs(dir, "list", fs, args, stdout, stderr)
	if !ok {
		return status
	}
	out := newSession(stdout, stderr)
	list, err := s.Indexes(dbCtx)
	if err != nil {
		out.fail("", errors.New(storeErr(err)))
	}
	for _, ix := range list {
		fmt.Fprintf(out.out, "%s\t%s\t%s\n", ix.Name, appendTerm(nil, ix.Pattern), ix.State)
	}
	return closeStore(s, out.finish(), stderr)
}

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

func dbIndexCheck(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := indexFlags("check")
	fix := fs.Bool("fix", false, "repair what is found")
	s, status, ok := openNoArgs(dir, "check", fs, args, stdout, stderr)
	if !ok {
		return status
	}
	out := newSession(stdout, stderr)
	shown := map[store.IndexProblemKind]int{}
	start := time.Now()
	r, err := s.CheckIndexes(dbCtx, store.IndexCheckOptions{Fix: *fix, OnProblem: func(p store.IndexProblem) {
		if shown[p.Kind]++; shown[p.Kind] > maxBadLines {
			return
		}
		what := p.Kind.String()
		if p.Index != "" {
			what = fmt.Sprintf("index %s: %s", p.Index, what)
		}
		switch {
		case p.Kind == store.ForeignReserved:
			what += " " + sext.Hex.EncodeToString(p.Raw)
		case p.Kind != store.Unfinished:
			what += " for " + string(appendTerm(nil, p.Key))
		}
		if p.Fixed {
			what += " (fixed)"
		}
		fmt.Fprintf(stderr, "sext: %s\n", what)
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
	return closeStore(s, out.finish(), stderr)
}

const indexScanAbout = `
Print "TERM<TAB>VALUE", as db scan does, for every stored key whose
index value matches VALUEPATTERN: 500000 for the keys the index holds
under 500000, '_' for every key it holds, {'_', 7} for an index of two
variables whose second is 7. Rows come in index order: by index value,
then by key. Only the entries under VALUEPATTERN's prefix are read, then
each row's value. With --to, print the rows from the first value that
can match VALUEPATTERN to the last that can match --to's, without
matching either. With --limit N, the token that resumes after the last
row goes to stderr as "next: TOKEN"; pass it back with --after.`

func dbIndexScan(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := indexFlags("scan")
	to := fs.String("to", "", "scan a range of index values up to the last this `VALUEPATTERN` can match")
	limit := fs.Int("limit", 0, "print at most `N` rows (0: all)")
	reverse := fs.Bool("reverse", false, "scan in descending index order")
	count := fs.Bool("count", false, "print only the number of rows")
	after := fs.String("after", "", "resume after the row this `TOKEN` (from --limit) names")
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 2 {
		return fs.usageError(stderr, "want a NAME and a VALUEPATTERN")
	}
	if *limit < 0 {
		return fs.usageError(stderr, "--limit must not be negative")
	}
	texts, names := args[1:], []string{"VALUEPATTERN"}
	if *to != "" {
		texts, names = append(texts, *to), append(names, "--to")
	}
	ts, ok := parseArgTerms(fs, texts, names, stderr)
	if !ok {
		return exitUsage
	}
	s, ok := openStore(dir, mustExist(), stderr)
	if !ok {
		return exitFail
	}
	out := newSession(stdout, stderr)
	opts := store.IndexScanOptions{Reverse: *reverse, Limit: *limit, KeysOnly: *count, After: *after}
	seq := s.IndexScan(dbCtx, args[0], ts[0], opts)
	if *to != "" {
		seq = s.IndexScanRange(dbCtx, args[0], ts[0], ts[1], opts)
	}
	n := 0
	var last store.IndexEntry
	for e, err := range seq {
		if err != nil {
			out.fail("", errors.New(storeErr(err)))
			break
		}
		n++
		last = e
		if !*count {
			out.buf = appendTerm(out.buf[:0], e.Key)
			out.buf = append(append(append(out.buf, '\t'), e.Value...), '\n')
			out.out.Write(out.buf)
		}
	}
	if *count {
		fmt.Fprintln(out.out, n)
	}
	status = out.finish()
	if *limit > 0 && n == *limit {
		fmt.Fprintf(stderr, "next: %s\n", last.Continuation())
	}
	return closeStore(s, status, stderr)
}

// etcdBatchFor is load's default batch on etcd with the store's indexes:
// each key writes one entry an index, and a transaction holds etcd's
// default of 128 writes.
func etcdBatchFor(s *store.Store) int {
	list, err := s.Indexes(dbCtx)
	if err != nil {
		return etcdDefaultBatch
	}
	n := 0
	for _, ix := range list {
		if ix.State != store.IndexDropping {
			n++
		}
	}
	return max(1, etcdDefaultBatch/(1+n))
}
