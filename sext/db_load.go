package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

const loadAbout = `
Read lines "TERM<TAB>VALUE" from FILE, or from stdin if FILE is -, and
store them: the term is everything before the first TAB, the value every
byte after it up to the line's LF, a CR before the LF included, so that
what scan prints loads back as it was. With --crlf, the lines end in
CRLF (a file from Windows), and the CR is left out. Blank lines are
skipped. Writes go in atomic batches of
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

// etcdDefaultBatch is load's batch size with --etcd: etcd's default
// --max-txn-ops, since a batch is one transaction and is not split.
const etcdDefaultBatch = 128

// maxBadLines bounds the bad lines (and keys) a command reports one by
// one, so that loading the wrong file does not flood the terminal.
const maxBadLines = 20

func dbLoad(c *dbCall, args []string) int {
	fs := c.flags()
	batch := fs.Int("batch", 10000, "lines per atomic batch (with --etcd, 128: etcd's default limit of writes per transaction)")
	every := fs.Duration("progress", 2*time.Second, "sync and report progress every `DURATION` (a terminal's bar is redrawn more often)")
	crlf := fs.Bool("crlf", false, "the lines end in CRLF: leave each line's CR out of its value")
	values := valuesFlag(fs)
	args, status, ok := c.parse(fs, args, 1, "want one FILE (- for stdin)")
	if !ok {
		return status
	}
	if c.be.etcd() && !flagGiven(fs, "batch") {
		*batch = etcdDefaultBatch
	}
	if *batch < 1 {
		return fs.usageError(c.stderr, "--batch must be at least 1")
	}
	if *every <= 0 {
		return fs.usageError(c.stderr, "--progress must be positive")
	}
	name, in, size, done, ok := c.loadInput(args[0])
	if !ok {
		return exitFail
	}
	defer done()
	// Batches need not wait for the disk one by one: the load syncs at
	// each progress report, and Close syncs the rest.
	s, ok := c.open(&pebblestore.Options{Store: store.Options{NoSync: true}, Pebble: pebblekv.Options{MemTableSize: 32 << 20}})
	if !ok {
		return exitFail
	}
	if c.be.etcd() && !flagGiven(fs, "batch") {
		*batch = c.etcdBatchFor(s) // each index adds a write a key
	}
	out := newSession(c.stdout, c.stderr)
	p := newProgress(c.stderr, "loading", size)
	p.every = *every
	nbad := 0
	l := &loader{s: s, opts: c.termOpts, etf: values.val == "etf", crlf: *crlf, size: *batch, p: p, bad: func(line int, err error) {
		if nbad++; nbad <= maxBadLines {
			out.fail(fmt.Sprintf("%s:%d", name, line), err)
		}
	}}
	n, err := l.load(c.ctx, in)
	c.reportBadLines(out, p, nbad)
	if err != nil {
		return c.loadFailed(s, out, p, n, err, "keys")
	}
	status = c.close(s, out.finish())
	p.finish(n)
	return status
}

// loadInput opens what a load reads: standard input for "-", else the
// file named, with its size when it is a regular file (for the progress
// reports). done closes it.
func (c *dbCall) loadInput(arg string) (name string, in io.Reader, size int64, done func(), ok bool) {
	if arg == "-" {
		return "stdin", c.stdin, 0, func() {}, true
	}
	f, err := os.Open(arg)
	if err != nil {
		fmt.Fprintf(c.stderr, "sext: %v\n", err)
		return "", nil, 0, nil, false
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return arg, f, size, func() { f.Close() }, true
}

// reportBadLines ends a load's report of the lines it left out, nbad in
// all, of which it showed at most maxBadLines.
func (c *dbCall) reportBadLines(out *session, p *progress, nbad int) {
	if nbad == 0 {
		return
	}
	p.clear()
	out.failed = true
	if nbad > maxBadLines {
		fmt.Fprintf(c.stderr, "sext: %d more bad lines not shown\n", nbad-maxBadLines)
	}
	fmt.Fprintf(c.stderr, "sext: %s left out\n", counted(int64(nbad), "bad line"))
}

// loadFailed ends a load that err stopped after storing n items (noun:
// keys, objects). Closing syncs what was stored; if it fails, or the
// writes stopped (a full disk), only what the progress reports called
// durable is sure to be. Close reports a stop again: said once.
func (c *dbCall) loadFailed(s *store.Store, out *session, p *progress, n int64, err error, noun string) int {
	p.clear()
	interrupted := errors.Is(err, context.Canceled) && c.ctx.Err() != nil
	if !interrupted {
		out.fail("", errors.New(storeErr(err)))
	}
	out.finish()
	durable := "all durable"
	stopped := errors.Is(err, pebblekv.ErrWritesStopped)
	cerr := s.Close()
	if cerr != nil && !(stopped && errors.Is(cerr, pebblekv.ErrWritesStopped)) {
		fmt.Fprintf(c.stderr, "sext: closing the store: %s\n", storeErr(cerr))
	}
	if cerr != nil || stopped {
		durable = fmt.Sprintf("%s reported durable", commas(p.durable))
	}
	if interrupted {
		fmt.Fprintf(c.stderr, "sext: interrupted: %s %s stored, %s\n", commas(n), noun, durable)
	} else {
		fmt.Fprintf(c.stderr, "sext: %s %s were stored before the error, %s\n", commas(n), noun, durable)
	}
	return exitFail
}

// etcdBatchFor is load's default batch on etcd with the store's indexes:
// each key writes one entry an index, and a transaction holds etcd's
// default of 128 writes.
func (c *dbCall) etcdBatchFor(s *store.Store) int {
	list, err := s.Indexes(c.ctx)
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

// loader stores the "TERM<TAB>VALUE" lines of a load file in batches of
// size lines. A key that cannot be encoded spoils a store.Batch (Apply
// refuses it), yet a load leaves out only that line: rather than encode
// every key twice to find such keys first, the loader keeps the batch's
// good lines and, when one spoils it, puts them again into a new batch.
// So every key is encoded once, and those of a spoiled batch once more.
type loader struct {
	s     *store.Store
	etf   bool              // values are terms, stored as term_to_binary writes them
	opts  term.ParseOptions // every TERM's
	crlf  bool              // lines end in CRLF
	size  int
	p     *progress
	bad   func(line int, err error) // a line left out
	b     *store.Batch
	lines []byte // the lines in b, each ending in '\n'
}

// load reads r to the end and returns the number of keys stored. It
// returns an error only when it cannot go on: reading or writing failed,
// or ctx was cancelled (checked between batches). When the progress
// report is due it syncs the store first, so the keys it reports as
// durable are.
func (l *loader) load(ctx context.Context, r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	l.b = l.s.NewBatch()
	defer func() { l.b.Close() }()
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
		if err := l.add(line); err != nil {
			l.bad(lineNo, err)
		}
		if l.b.Len() >= l.size || rerr == io.EOF {
			n := int64(l.b.Len())
			if err := l.s.Apply(ctx, l.b); err != nil {
				return stored, err
			}
			stored += n
			l.b, l.lines = l.s.NewBatch(), l.lines[:0]
			if l.p.due() {
				if err := l.s.Sync(ctx); err != nil {
					return stored, err
				}
				l.p.durable = stored
			}
			l.p.update(stored, l.p.durable, read)
		}
		if rerr == io.EOF {
			return stored, nil
		}
	}
}

// add puts one line into the batch. Blank lines are skipped. A CR
// before the LF is the value's last byte, as scan printed it, unless
// the lines end in CRLF.
func (l *loader) add(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if l.crlf {
		line = bytes.TrimSuffix(line, []byte("\r"))
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	key, value, err := l.parse(line)
	if err != nil {
		return err
	}
	if err := l.b.Put(key, value); err != nil {
		l.rebuild()
		return err
	}
	l.lines = append(append(l.lines, line...), '\n')
	return nil
}

// rebuild replaces the spoiled batch with one of the lines it held.
func (l *loader) rebuild() {
	l.b.Close()
	l.b = l.s.NewBatch()
	for rest := l.lines; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		key, value, _ := l.parse(line) // each went in before
		l.b.Put(key, value)
	}
}

// parse reads a line, without its line ending: the key, and the value to
// store.
func (l *loader) parse(line []byte) (term.Term, []byte, error) {
	k, v, ok := strings.Cut(string(line), "\t")
	if !ok {
		return term.Term{}, nil, errors.New("no TAB between the term and the value")
	}
	key, err := l.opts.Parse(k)
	if err != nil {
		return term.Term{}, nil, err
	}
	if !l.etf {
		return key, []byte(v), nil
	}
	vt, err := l.opts.Parse(v)
	if err != nil {
		return term.Term{}, nil, within("the value", err)
	}
	value, err := etf.Encode(vt)
	if err != nil {
		return term.Term{}, nil, within("the value", err)
	}
	return key, value, nil
}
