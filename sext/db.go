package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

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
                     from PATTERN's first key through the last of --to's,
                     --to's keys included, without matching), --limit N,
                     --reverse, --count
  load FILE          read "TERM<TAB>VALUE" lines from FILE (- for stdin)
                     and store them in batches; flags: --batch N,
                     --progress DURATION (sync and report this often),
                     --crlf (lines end in CRLF)
  stats              describe the store: the keys (on Pebble an estimate
                     that counts index entries too, and says so);
                     --exact counts data keys and index entries apart
  check              count foreign and non-canonical keys and torn logs;
                     exit 1 if there are any; --fix rewrites the
                     non-canonical keys to their canonical bytes
  select SPEC        run an Erlang match specification over the keys its
                     plan allows; flags: --limit N, --reverse,
                     --keys-only, --after TOKEN (a "next:" token)
  explain SPEC       print the byte ranges, or the index entries, that
                     select reads; --count reads them
  index SUBCOMMAND   secondary indexes: create, drop, list, check, scan
                     (sext db index --help)
  table SUBCOMMAND   tables of records: create, drop, list, info, index,
                     check (sext db table --help); their objects:
                     write TABLE OBJECT..., read TABLE KEY, delete TABLE
                     KEY..., and load, select and explain with --table
  migrate SPEC       move every key a clause of SPEC matches to the key its
                     body builds, values and index entries kept, in atomic
                     steps; flags: --dry-run, --after TOKEN, --batch N,
                     --samples N, --progress DURATION
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
A corrupt file in the store (a table that fails its checksum, a missing
or cut manifest, a table of the wrong size) ends the command with one
"sext:" line naming the file; the store is not changed. A full disk ends
a write with one "sext:" line saying "no space left on device"; what
the store holds stays readable (a store whose disk is too full to open
it for writing opens read-only), and writes work again once there is
room.

examples:
  sext db --dir /tmp/shop put "{order, 42, #Desc<1735689600>, 7}" 12.50
  sext db --dir /tmp/shop scan "{order, 42, '_', '_'}" --limit 10
  sext db --dir /tmp/shop scan "{order, 40, '_', '_'}" --to "{order, 49, '_', '_'}" --count
  sext db --etcd 127.0.0.1:2379 watch "{job, q1, ready, '_'}"`

// dbSub is a db subcommand: its name ("put", "index create"), the text of
// its help, and what it runs.
type dbSub struct {
	name, synopsis, about string
	run                   func(c *dbCall, args []string) int
}

// dbSubs are db's subcommands; "index" has its own (dbIndexSubs).
var dbSubs = map[string]dbSub{
	"put":     {"put", "sext db --dir DIR put [--values etf] TERM VALUE", "Store VALUE under TERM, replacing any value there. The write is synced to disk." + valuesAbout, dbPut},
	"get":     {"get", "sext db --dir DIR get [--values etf] TERM", "Print the value stored under TERM and a newline. Exit 1 if there is none." + valuesAbout, dbGet},
	"del":     {"del", "sext db --dir DIR del TERM", "Remove TERM. Removing a key that is not there is not an error.", dbDel},
	"scan":    {"scan", "sext db --dir DIR scan PATTERN [--to PATTERN] [--limit N] [--reverse] [--count] [--values etf]", scanAbout + valuesAbout, dbScan},
	"load":    {"load", "sext db --dir DIR load [--batch N] [--crlf] [--values etf] FILE", loadAbout + valuesAbout, tableAware(dbLoad, tableLoadSub)},
	"stats":   {"stats", "sext db --dir DIR stats [--exact]", statsAbout, dbStats},
	"check":   {"check", "sext db --dir DIR check [--fix]", checkAbout, dbCheck},
	"select":  {"select", "sext db --dir DIR select [--limit N] [--reverse] [--keys-only] [--after TOKEN] SPEC", selectAbout, tableAware(dbSelect, tableSelectSub)},
	"explain": {"explain", "sext db --dir DIR explain [--count] SPEC", explainAbout, tableAware(dbExplain, tableExplainSub)},
	"watch":   {"watch", "sext db --etcd ENDPOINTS watch PATTERN [--from REV] [--limit N]", watchAbout, dbWatch},
	"index":   {"index", "sext db --dir DIR index SUBCOMMAND [flags] [args]", indexAbout, dbIndex},
	"table":   {"table", "sext db --dir DIR table SUBCOMMAND [flags] [args]", tableAbout, dbTable},
	"write":   {"write", "sext db --dir DIR write TABLE OBJECT...", "Store the OBJECTs in TABLE in one atomic write, with their index entries and the table's count. An object that does not fit the table, or that a unique index refuses, fails them all (exit status 2 or 1), and nothing is written.", dbWrite},
	"read":    {"read", "sext db --dir DIR read TABLE KEY", "Print the object of TABLE under KEY, in the text write reads. Exit 1 if there is none.", dbRead},
	"delete":  {"delete", "sext db --dir DIR delete TABLE KEY...", "Remove the objects under the KEYs from TABLE, in one atomic write. A key that is not there is not an error.", dbDelete},
}

// dbCall is one run of a db subcommand: the backend db's flags chose,
// the context an interrupt cancels, the subcommand and its streams.
type dbCall struct {
	ctx      context.Context
	be       backend
	sub      dbSub
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	termOpts term.ParseOptions // every TERM's, from --max-int-digits
}

func runDB(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("db", "sext db --dir DIR SUBCOMMAND [flags] [args]", dbAbout)
	dir := fs.String("dir", "", "the store's directory (this or --etcd is required)")
	etcd := fs.String("etcd", "", "use the etcd cluster at these comma-separated `ENDPOINTS` instead of a directory")
	timeout := fs.Duration("timeout", 5*time.Second, "with --etcd, how long each call to the cluster may take")
	utf8 := fs.Bool("utf8-atoms", false, "keys' atom names are UTF-8 instead of Latin-1")
	legacy := fs.Bool("legacy", false, "write bignums in keys in the pre-2013 layout, without a size prefix")
	maxDepth := fs.Int("max-depth", 0, "nesting limit for decoding keys, `N` levels (0: the library default, 10000)")
	digits := intDigitsFlag(fs)
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) == 0 {
		return fs.usageError(stderr, "missing subcommand: put, get, del, scan, load, stats, check, select, explain, index, table, write, read, delete, migrate or watch")
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
	be := backend{dir: *dir, codec: sext.Options{UTF8Atoms: *utf8, Legacy: *legacy, MaxDepth: *maxDepth}}
	if *etcd != "" {
		be.endpoints, be.timeout = strings.Split(*etcd, ","), *timeout
	}
	// An interrupt cancels the command's context: a load stops between
	// batches and closes the store, which makes what it stored durable.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &dbCall{ctx: ctx, be: be, sub: sub, stdin: stdin, stdout: stdout, stderr: stderr, termOpts: parseOptions(digits)}
	return sub.run(c, args[1:])
}

// flags makes the flag set of the running subcommand.
func (c *dbCall) flags() *flagSet {
	return newFlagSet("db "+c.sub.name, c.sub.synopsis, c.sub.about)
}

// parse parses the subcommand's flags, before, between or after its
// arguments, and checks that there are want of those (-1: any number),
// saying what is wanted otherwise. ok false means return status.
func (c *dbCall) parse(fs *flagSet, args []string, want int, what string) (pos []string, status int, ok bool) {
	pos, status, ok = parseAll(fs, args, c.stdout, c.stderr)
	if ok && want >= 0 && len(pos) != want {
		return nil, fs.usageError(c.stderr, what), false
	}
	return pos, status, ok
}

// terms parses the term arguments, named as reports name them; ok false
// means return exitUsage.
func (c *dbCall) terms(texts, names []string) ([]term.Term, bool) {
	return parseArgTerms(texts, names, c.termOpts, c.stderr)
}

// open opens the store with opts (nil: the defaults), reporting a
// failure on stderr. An interrupt stops the open too.
func (c *dbCall) open(opts *pebblestore.Options) (*store.Store, bool) {
	return c.be.openContext(c.ctx, opts, c.stderr)
}

// openExisting opens the store the commands that only read need: one
// that exists.
func (c *dbCall) openExisting() (*store.Store, bool) {
	return c.open(&pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
}

// openExistingKV is openExisting, and the backend under the store.
func (c *dbCall) openExistingKV() (*store.Store, store.KV, bool) {
	return c.be.openWithKV(c.ctx, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}}, c.stderr)
}

// openNoArgs parses the flags of a subcommand that takes no positional
// arguments and opens the existing store: the common start of stats,
// check and the index commands. When it fails it has said why, and
// returns the exit status.
func (c *dbCall) openNoArgs(fs *flagSet, args []string) (*store.Store, int, bool) {
	name := c.sub.name[strings.LastIndexByte(c.sub.name, ' ')+1:] // "list", not "index list"
	if _, status, ok := c.parse(fs, args, 0, name+" takes no arguments"); !ok {
		return nil, status, false
	}
	s, ok := c.openExisting()
	if !ok {
		return nil, exitFail, false
	}
	return s, exitOK, true
}

// close closes s as closeStore does.
func (c *dbCall) close(s *store.Store, status int) int { return closeStore(s, status, c.stderr) }

// fail reports err from the store on one line and returns exitFail.
func (c *dbCall) fail(err error) int {
	fmt.Fprintf(c.stderr, "sext: %s\n", storeErr(err))
	return exitFail
}
