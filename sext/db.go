package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/term"
)

func init() {
	register(&command{name: "db", summary: "an ordered term store: put, get, del, scan, load, stats, check, watch", run: runDB})
}

const dbAbout = `
Keep values under term keys in an embedded Pebble store in DIR. Keys are
stored as their sext encodings, so a scan with a pattern reads only the
keys that can match it, in term order.

subcommands:
  put TERM VALUE     store VALUE (the argument's bytes) under TERM
  get TERM           print the value under TERM; exit 1 if there is none
  del TERM           remove TERM (no error if it is not there)
  scan PATTERN       print "TERM<TAB>VALUE" for each key that matches
                     PATTERN, in term order; flags: --to PATTERN (a range
                     from PATTERN's first key to the last of --to's,
                     without matching), --limit N, --reverse, --count
  load FILE          read "TERM<TAB>VALUE" lines from FILE (- for stdin)
                     and store them in batches; flags: --batch N,
                     --progress DURATION (sync and report this often)
  stats              describe the store; --exact counts the keys
  check              count foreign and non-canonical keys and torn logs;
                     exit 1 if there are any; --fix rewrites the
                     non-canonical keys to their canonical bytes
  select SPEC        run an Erlang match specification over the keys its
                     plan allows; flags: --limit N, --reverse,
                     --keys-only, --after TOKEN (a "next:" token)
  explain SPEC       print the plan's byte ranges; --count reads them
  index SUBCOMMAND   secondary indexes: create, drop, list, check, scan
                     (sext db index --help)
  watch PATTERN      (--etcd only) print each change to a key that matches
                     PATTERN as it happens; flags: --from REV, --limit N

With --etcd ENDPOINTS (comma-separated host:port or URLs) in place of
--dir DIR, the store is an etcd cluster: the same subcommands, plus watch.
Each call to the cluster gives up after --timeout (5s by default), as it
does when fewer than a quorum of members are up.

put and load create DIR (not its parent); the others need an existing
store. Neither creates a store in a directory that holds a store's files
without its manifest marker: that store is damaged, not absent. A key in
the store that is no sext encoding (written by another program) is
reported on stderr with its bytes in hex and skipped; so is a bad line of
a load file, and the exit status is then 1. A key that decodes but is not
in the bytes this encoder writes for its term (a legacy bignum, an
unsorted map) is reported too: get and del do not reach it, and check
--fix rewrites it. Values are printed as stored, so a value with a
newline in it breaks the line format.

The codec flags --utf8-atoms, --legacy and --max-depth mean what they mean
to encode and decode; every command on one store must use the same ones.
A corrupt file in the store ends the command with one "sext:" line naming
the file; the store is not changed.

examples:
  sext db --dir /tmp/shop put "{order, 42, #Desc<1735689600>, 7}" 12.50
  sext db --dir /tmp/shop scan "{order, 42, '_', '_'}" --limit 10
  sext db --dir /tmp/shop scan "{order, 40, '_', '_'}" --to "{order, 49, '_', '_'}" --count
  sext db --etcd 127.0.0.1:2379 watch "{job, q1, ready, '_'}"`

// dbSub is a db subcommand: it gets the store directory and its own
// arguments.
type dbSub struct {
	synopsis, about string
	run             func(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// dbSubs is filled in by init: the subcommands' functions refer to it for
// their help, which a plain initializer would make a cycle.
var dbSubs map[string]dbSub

func init() {
	dbSubs = map[string]dbSub{
		"put":   {"sext db --dir DIR put [--values etf] TERM VALUE", "Store VALUE under TERM, replacing any value there. The write is synced to disk." + valuesAbout, dbPut},
		"get":   {"sext db --dir DIR get [--values etf] TERM", "Print the value stored under TERM and a newline. Exit 1 if there is none." + valuesAbout, dbGet},
		"del":   {"sext db --dir DIR del TERM", "Remove TERM. Removing a key that is not there is not an error.", dbDel},
		"scan":  {"sext db --dir DIR scan PATTERN [--to PATTERN] [--limit N] [--reverse] [--count] [--values etf]", scanAbout + valuesAbout, dbScan},
		"load":  {"sext db --dir DIR load [--batch N] [--values etf] FILE", loadAbout + valuesAbout, dbLoad},
		"stats": {"sext db --dir DIR stats [--exact]", "Print the backend, key count (an estimate unless --exact), disk usage and table count. With --exact, exit 1 if there are foreign or non-canonical keys.", dbStats},
		"check": {"sext db --dir DIR check [--fix]", checkAbout, dbCheck},
		"watch": {"sext db --etcd ENDPOINTS watch PATTERN [--from REV] [--limit N]", watchAbout, dbWatch},
		"index": {"sext db --dir DIR index SUBCOMMAND [flags] [args]", indexAbout, dbIndex},
	}
	dbSubs["select"], dbSubs["explain"] = selectSub, explainSub // sext/select.go
}

func runDB(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("db", "sext db --dir DIR SUBCOMMAND [flags] [args]", dbAbout)
	dir := fs.String("dir", "", "the store's directory (this or --etcd is required)")
	etcd := fs.String("etcd", "", "use the etcd cluster at these comma-separated `ENDPOINTS` instead of a directory")
	timeout := fs.Duration("timeout", 5*time.Second, "with --etcd, how long each call to the cluster may take")
	utf8 := fs.Bool("utf8-atoms", false, "keys' atom names are UTF-8 instead of Latin-1")
	legacy := fs.Bool("legacy", false, "write bignums in keys in the pre-2013 layout, without a size prefix")
	maxDepth := fs.Int("max-depth", 0, "nesting limit for decoding keys, `N` levels (0: the library default, 10000)")
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) == 0 {
		return fs.usageError(stderr, "missing subcommand: put, get, del, scan, load, stats, check, select, explain, index or watch")
	}
	sub, ok := dbSubs[args[0]]
	if !ok {
		return fs.usageError(stderr, fmt.Sprintf("unknown subcommand %q", args[0]))
	}
	wantsHelp := false
	for _, a := range args[1:] {
		if a == "-h" || a == "-help" || a == "--help" {
			wantsHelp = true
		}
	}
	if *dir == "" && *etcd == "" && !wantsHelp {
		return fs.usageError(stderr, "--dir DIR is required (or --etcd ENDPOINTS)")
	}
	if *dir != "" && *etcd != "" {
		return fs.usageError(stderr, "--dir and --etcd exclude each other")
	}
	if *maxDepth < 0 {
		return fs.usageError(stderr, "--max-depth must not be negative")
	}
	dbEtcd = etcdTarget{}
	if *etcd != "" {
		dbEtcd = etcdTarget{endpoints: strings.Split(*etcd, ","), timeout: *timeout}
	}
	dbCodec = sext.Options{UTF8Atoms: *utf8, Legacy: *legacy, MaxDepth: *maxDepth}
	// An interrupt cancels the command's context: a load stops between
	// batches and closes the store, which makes what it stored durable.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dbCtx = ctx
	return sub.run(*dir, args[1:], stdin, stdout, stderr)
}

// dbCodec is the key codec the db flags chose, and dbCtx the context of
// the running subcommand (cancelled by an interrupt); runDB sets both, as
// it sets dbEtcd.
var (
	dbCodec sext.Options
	dbCtx   = context.Background()
)

// subFlags makes the flag set of a db subcommand.
func subFlags(name string) *flagSet {
	s := dbSubs[name]
	return newFlagSet("db "+name, s.synopsis, s.about)
}

// parseAll parses flags that may come before, between or after the
// positional arguments ("scan PATTERN --limit 5"), which the flag package
// alone stops at.
func parseAll(fs *flagSet, args []string, stdout, stderr io.Writer) (pos []string, status int, ok bool) {
	for {
		rest, status, ok := fs.parse(args, stdout, stderr)
		if !ok {
			return nil, status, false
		}
		if len(rest) == 0 {
			return pos, exitOK, true
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// openStore opens the store in dir with the db flags' codec, reporting a
// failure on stderr, and warnings the store keeps on record (a torn log)
// too.
func openStore(dir string, opts *store.Options, stderr io.Writer) (*store.Store, bool) {
	if opts == nil {
		opts = &store.Options{}
	}
	opts.Codec = dbCodec
	if dbEtcd.endpoints != nil {
		return openEtcdStore(opts, stderr)
	}
	s, err := store.Open(dir, opts)
	if err != nil {
		fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
		// Only a store that is plainly absent gets the hint: a damaged one
		// (ErrCorrupt) must not be written over.
		if errors.Is(err, store.ErrNoStore) && !errors.Is(err, store.ErrCorrupt) && opts.Pebble.MustExist {
			fmt.Fprintln(stderr, "sext: (put or load creates a store)")
		}
		return nil, false
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(stderr, "sext: warning: %s (sext db check --fix clears this note)\n", storeErr(w))
	}
	return s, true
}

// openNoArgs parses the flags of a db subcommand that takes no positional
// arguments and opens the existing store: the common start of stats,
// check and the index commands. When it fails it has said why, and
// returns the exit status.
func openNoArgs(dir, name string, fs *flagSet, args []string, stdout, stderr io.Writer) (*store.Store, int, bool) {
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return nil, status, false
	}
	if len(args) != 0 {
		return nil, fs.usageError(stderr, name+" takes no arguments"), false
	}
	s, ok := openStore(dir, mustExist(), stderr)
	if !ok {
		return nil, exitFail, false
	}
	return s, exitOK, true
}

// mustExist is the store.Options of the commands that only read.
func mustExist() *store.Options {
	return &store.Options{Pebble: pebblekv.Options{MustExist: true}}
}

// storeErr formats an error from the store for one line: a corrupt
// file's error as the file, then what Pebble said of it, first line only
// (Pebble's corruption errors carry multi-line hints).
func storeErr(err error) string {
	msg := describe(err)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// closeStore closes s and reports an error, turning status into a
// failure if it was a success.
func closeStore(s *store.Store, status int, stderr io.Writer) int {
	if err := s.Close(); err != nil {
		fmt.Fprintf(stderr, "sext: closing the store: %v\n", err)
		if status == exitOK {
			return exitFail
		}
	}
	return status
}

func dbPut(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := subFlags("put")
	values := valuesFlag(fs)
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 2 {
		return fs.usageError(stderr, "want a TERM and a VALUE")
	}
	texts, names := args[:1], []string{"TERM"}
	if values.val == "etf" {
		texts, names = args, append(names, "VALUE")
	}
	ts, ok := parseArgTerms(fs, texts, names, stderr)
	if !ok {
		return exitUsage
	}
	value, err := putValue(values.val, args, ts)
	if err != nil {
		fmt.Fprintf(stderr, "sext: VALUE: %s\n", describe(err))
		return exitFail
	}
	s, ok := openStore(dir, nil, stderr)
	if !ok {
		return exitFail
	}
	status = exitOK
	if err := s.Put(dbCtx, ts[0], value); err != nil {
		fmt.Fprintf(stderr, "sext: TERM: %s\n", describe(err))
		status = exitFail
	}
	return closeStore(s, status, stderr)
}

// withKey runs the body of get or del: it parses the one TERM argument,
// opens the existing store, hands both to do and closes the store.
func withKey(name, dir string, args []string, stdout, stderr io.Writer, do func(*store.Store, term.Term) int) int {
	fs := subFlags(name)
	if name == "get" {
		getValues = valuesFlag(fs)
	}
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 1 {
		return fs.usageError(stderr, "want one TERM")
	}
	ts, ok := parseArgTerms(fs, args, []string{"TERM"}, stderr)
	if !ok {
		return exitUsage
	}
	s, ok := openStore(dir, mustExist(), stderr)
	if !ok {
		return exitFail
	}
	return closeStore(s, do(s, ts[0]), stderr)
}

func dbGet(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return withKey("get", dir, args, stdout, stderr, func(s *store.Store, key term.Term) int {
		v, err := s.Get(dbCtx, key)
		switch {
		case errors.Is(err, store.ErrNotFound):
			fmt.Fprintf(stderr, "sext: not found: %s\n", appendTerm(nil, key))
			return exitFail
		case err != nil:
			fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
			return exitFail
		}
		v, err = showValue(getValues.val, nil, v)
		if err != nil {
			fmt.Fprintf(stderr, "sext: the value of %s: %s\n", appendTerm(nil, key), describe(err))
			return exitFail
		}
		stdout.Write(append(v, '\n'))
		return exitOK
	})
}

func dbDel(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return withKey("del", dir, args, stdout, stderr, func(s *store.Store, key term.Term) int {
		if err := s.Delete(dbCtx, key); err != nil {
			fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
			return exitFail
		}
		return exitOK
	})
}

const scanAbout = `
Print "TERM<TAB>VALUE", one a line in term order, for every key that
matches PATTERN: '_' matches any term, '$N' any term but the same one
wherever it occurs. Only the keys under PATTERN's prefix (everything
before its first wildcard) are read, so put the wildcards last.

With --to, print every key from the first that can match PATTERN to the
last that can match --to's pattern, without matching either: with keys
{order, Customer, #Desc<Time>, Id}, from "{order, 42, #Desc<T2>, '_'}"
--to "{order, 42, #Desc<T1>, '_'}" lists customer 42's orders from T2
back to T1 (the newer time comes first, as #Desc sorts it).

A key that is no sext encoding is reported on stderr in hex and skipped;
a key that is not in canonical form is reported and printed; the exit
status is then 1.`

func dbScan(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := subFlags("scan")
	to := fs.String("to", "", "scan a range up to the last key this `PATTERN` can match")
	limit := fs.Int("limit", 0, "print at most `N` entries (0: all)")
	reverse := fs.Bool("reverse", false, "scan in descending term order")
	count := fs.Bool("count", false, "print only the number of entries")
	values := valuesFlag(fs)
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 1 {
		return fs.usageError(stderr, "want one PATTERN")
	}
	if *limit < 0 {
		return fs.usageError(stderr, "--limit must not be negative")
	}
	texts, names := args, []string{"PATTERN"}
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
	opts := store.ScanOptions{Reverse: *reverse, Limit: *limit, KeysOnly: *count,
		OnBadKey: func(k []byte, err error) {
			out.fail("key "+sext.Hex.EncodeToString(k), fmt.Errorf("not a sext encoding, skipped: %s", describe(err)))
		},
		OnNonCanonical: func(k []byte, t term.Term) { out.fail("key "+sext.Hex.EncodeToString(k), nonCanonical(t)) }}
	seq := s.Scan(dbCtx, ts[0], opts)
	if *to != "" {
		seq = s.ScanRange(dbCtx, ts[0], ts[1], opts)
	}
	n := 0
	for e, err := range seq {
		if err != nil {
			out.fail("", errors.New(storeErr(err)))
			break
		}
		n++
		if !*count {
			out.buf = append(appendTerm(out.buf[:0], e.Key), '\t')
			var err error
			if out.buf, err = showValue(values.val, out.buf, e.Value); err != nil {
				out.fail("the value of "+string(appendTerm(nil, e.Key)), fmt.Errorf("skipped: %s", describe(err)))
				continue
			}
			out.out.Write(append(out.buf, '\n'))
		}
	}
	if *count {
		fmt.Fprintln(out.out, n)
	}
	return closeStore(s, out.finish(), stderr)
}

const loadAbout = `
Read lines "TERM<TAB>VALUE" from FILE, or from stdin if FILE is -, and
store them: the term is everything before the first TAB, the value every
byte after it. Blank lines are skipped. Writes go in atomic batches of
--batch lines, without waiting for the disk; every --progress interval
the load syncs them and reports how many keys are durable, which is the
number a crash cannot take back, and the end of the load (or an
interrupt, which stops it between batches) makes all of them durable.

Progress goes to stderr: on a terminal a bar with the durable keys, the
rate and, for a file, the time left; otherwise a line each --progress
interval; and at the end a summary with the number of keys stored and
the rate. A line that does not parse is reported as "sext: FILE:LINE:
column C: ..." and left out; the others are loaded, and the exit status
is then 1.`

func dbLoad(dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := subFlags("load")
	batch := fs.Int("batch", 10000, "lines per atomic batch (with --etcd, 128: etcd's default limit of writes per transaction)")
	every := fs.Duration("progress", 2*time.Second, "sync and report progress every `DURATION` (a terminal's bar is redrawn more often)")
	values := valuesFlag(fs)
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if dbEtcd.endpoints != nil && !flagGiven(fs, "batch") {
		*batch = etcdDefaultBatch
	}
	if len(args) != 1 {
		return fs.usageError(stderr, "want one FILE (- for stdin)")
	}
	if *batch < 1 {
		return fs.usageError(stderr, "--batch must be at least 1")
	}
	if *every <= 0 {
		return fs.usageError(stderr, "--progress must be positive")
	}
	name, in, size := "stdin", stdin, int64(0)
	if args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "sext: %v\n", err)
			return exitFail
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		name, in = args[0], f
	}
	// Batches need not wait for the disk one by one: the load syncs at
	// each progress report, and Close syncs the rest.
	s, ok := openStore(dir, &store.Options{NoSync: true, Pebble: pebblekv.Options{MemTableSize: 32 << 20}}, stderr)
	if !ok {
		return exitFail
	}
	if dbEtcd.endpoints != nil && !flagGiven(fs, "batch") {
		*batch = etcdBatchFor(s) // each index adds a write a key
	}
	out := newSession(stdout, stderr)
	p := newProgress(stderr, "loading", size)
	p.every = *every
	nbad := 0
	n, err := loadLines(dbCtx, s, in, *batch, values.val == "etf", p, func(line int, err error) {
		if nbad++; nbad <= maxBadLines {
			out.fail(fmt.Sprintf("%s:%d", name, line), err)
		}
	})
	if nbad > 0 {
		p.clear()
		out.failed = true
		if nbad > maxBadLines {
			fmt.Fprintf(stderr, "sext: %d more bad lines not shown\n", nbad-maxBadLines)
		}
		fmt.Fprintf(stderr, "sext: %s bad lines left out\n", commas(int64(nbad)))
	}
	if err != nil {
		p.clear()
		interrupted := errors.Is(err, context.Canceled) && dbCtx.Err() != nil
		if !interrupted {
			out.fail("", errors.New(storeErr(err)))
		}
		out.finish()
		// Closing syncs what was stored; if it fails, only what the
		// progress reports called durable is sure to be.
		durable := "all durable"
		if cerr := s.Close(); cerr != nil {
			fmt.Fprintf(stderr, "sext: closing the store: %s\n", storeErr(cerr))
			durable = fmt.Sprintf("%s reported durable", commas(p.durable))
		}
		if interrupted {
			fmt.Fprintf(stderr, "sext: interrupted: %s keys stored, %s\n", commas(n), durable)
		} else {
			fmt.Fprintf(stderr, "sext: %s keys were stored before the error, %s\n", commas(n), durable)
		}
		return exitFail
	}
	status = closeStore(s, out.finish(), stderr)
	p.finish(n)
	return status
}

// maxBadLines bounds the bad lines load reports one by one, so that
// loading the wrong file does not flood the terminal.
const maxBadLines = 20

// loadLines stores the "TERM<TAB>VALUE" lines of r in batches of size,
// calls bad for each line that is not one, and returns the number of
// keys stored. It returns an error only when it cannot go on: reading or
// writing failed, or ctx was cancelled (checked between batches). When
// the progress report is due it syncs the store first, so the keys it
// reports as durable are.
func loadLines(ctx context.Context, s *store.Store, r io.Reader, size int, etfValues bool, p *progress, bad func(line int, err error)) (int64, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	b := s.NewBatch()
	defer func() { b.Close() }()
	var stored, read int64
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			long := append([]byte(nil), line...)
			for errors.Is(rerr, bufio.ErrBufferFull) {
				line, rerr = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if rerr != nil && rerr != io.EOF {
			return stored, rerr
		}
		read += int64(len(line))
		if err := loadLine(b, line, etfValues); err != nil {
			bad(lineNo, err)
		}
		if b.Len() >= size || rerr == io.EOF {
			n := int64(b.Len())
			if err := s.Apply(ctx, b); err != nil {
				return stored, err
			}
			stored += n
			b = s.NewBatch()
			if p.due() {
				if err := s.Sync(ctx); err != nil {
					return stored, err
				}
				p.durable = stored
			}
			p.update(stored, p.durable, read)
		}
		if rerr == io.EOF {
			return stored, nil
		}
	}
}

// loadLine adds one line of a load file to b. Blank lines are skipped.
// With etfValues the value is a term, stored as term_to_binary writes it.
func loadLine(b *store.Batch, line []byte, etfValues bool) error {
	text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	k, v, ok := strings.Cut(text, "\t")
	if !ok {
		return errors.New("no TAB between the term and the value")
	}
	t, err := term.Parse(k)
	if err != nil {
		return err
	}
	if _, err := dbCodec.Encode(t); err != nil {
		return err // checked here so as not to spoil the batch
	}
	if etfValues {
		vt, err := term.Parse(v)
		if err != nil {
			return fmt.Errorf("the value: %s", describe(err))
		}
		if err := b.PutTerm(t, vt); err != nil {
			return fmt.Errorf("the value: %w", etfError(err))
		}
		return nil
	}
	return b.Put(t, []byte(v))
}

func dbStats(dir string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := subFlags("stats")
	exact := fs.Bool("exact", false, "count the keys by reading them all; exit 1 if some are foreign or non-canonical")
	s, status, ok := openNoArgs(dir, "stats", fs, args, stdout, stderr)
	if !ok {
		return status
	}
	st, err := s.Stats(dbCtx)
	if err != nil {
		fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
		return closeStore(s, exitFail, stderr)
	}
	out := newSession(stdout, stderr)
	fmt.Fprintf(out.out, "backend    %s\n", st.Backend)
	fmt.Fprintf(out.out, "dir        %s\n", st.Dir)
	if *exact {
		start := time.Now()
		var n, bad, odd int64
		for _, err := range s.Scan(dbCtx, term.Atom("_"), store.ScanOptions{KeysOnly: true,
			OnBadKey:       func([]byte, error) { bad++ },
			OnNonCanonical: func([]byte, term.Term) { odd++ }}) {
			if err != nil {
				out.fail("", errors.New(storeErr(err)))
				break
			}
			n++
		}
		fmt.Fprintf(out.out, "keys       %s (counted in %s)\n", commas(n), round(time.Since(start)))
		if bad > 0 {
			fmt.Fprintf(out.out, "foreign    %s keys that are no sext encoding\n", commas(bad))
			out.fail("", fmt.Errorf("%s foreign keys (sext db check lists them)", commas(bad)))
		}
		if odd > 0 {
			fmt.Fprintf(out.out, "non-canon  %s keys not in canonical form\n", commas(odd))
			out.fail("", fmt.Errorf("%s non-canonical keys (sext db check --fix rewrites them)", commas(odd)))
		}
	} else if st.Backend == "etcd" {
		fmt.Fprintf(out.out, "keys       %s (counted by the cluster)\n", commas(int64(st.KeysEstimate)))
	} else {
		fmt.Fprintf(out.out, "keys       ~%s (estimated from flushed tables; --exact counts)\n", commas(int64(st.KeysEstimate)))
	}
	if st.Backend == "etcd" {
		fmt.Fprintf(out.out, "db size    %s (the database of the member that answered)\n", humanBytes(st.DiskBytes))
		return closeStore(s, out.finish(), stderr)
	}
	fmt.Fprintf(out.out, "disk       %s\n", humanBytes(st.DiskBytes))
	fmt.Fprintf(out.out, "tables     %d\n", st.Tables)
	fmt.Fprintf(out.out, "memtables  %s\n", humanBytes(st.MemTableSize))
	return closeStore(s, out.finish(), stderr)
}

// commas writes n with thousands separators: 1,000,000.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// humanBytes writes a size in B, KB, MB or GB (powers of 1024).
func humanBytes(n uint64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
}

// round shortens a duration for people: 3 significant figures or so.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond)
	}
	return d
}

// nonCanonical describes a key that decodes to t but is not the bytes
// the encoder writes for t.
func nonCanonical(t term.Term) error {
	want, err := dbCodec.Encode(t)
	if err != nil {
		return fmt.Errorf("not in canonical form (%s does not encode: %v)", appendTerm(nil, t), err)
	}
	return fmt.Errorf("not in canonical form: %s is written %s; get and del do not reach this key (sext db check --fix rewrites it)", appendTerm(nil, t), sext.Hex.EncodeToString(want))
}
