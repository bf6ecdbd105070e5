package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

const tableLoadAbout = `
Read objects from FILE, or from stdin if FILE is -, one a line in the
text write takes, and store them in TABLE, in atomic batches of --batch
objects, each with its index entries and the table's new count. As load
does, the batches do not wait for the disk; every --progress interval
the load syncs them and reports how many objects are durable, and the
end of the load (or an interrupt, which stops it between batches) makes
all of them durable. A crash loses at most the objects since the last
report, and never leaves the count, or an index, out of step with the
objects that are there.

A line that does not parse, an object that does not fit the table, and
one a unique index refuses are reported as "sext: FILE:LINE: ..." and
left out; the others are stored, and the exit status is then 1.`

var tableLoadSub = dbSub{"load", "sext db --dir DIR load --table TABLE [--batch N] [--progress DURATION] FILE", tableLoadAbout, dbLoadTable}

func dbLoadTable(c *dbCall, args []string) int {
	fs := c.flags()
	table := fs.String("table", "", "the `TABLE` to store the objects in")
	batch := fs.Int("batch", 10000, "objects per atomic batch (with --etcd, what fits etcd's default 128 operations a transaction)")
	every := fs.Duration("progress", 2*time.Second, "sync and report progress every `DURATION` (a terminal's bar is redrawn more often)")
	args, status, ok := c.parse(fs, args, 1, "want one FILE (- for stdin)")
	if !ok {
		return status
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
	s, ok := c.open(&pebblestore.Options{Store: store.Options{NoSync: true}, Pebble: pebblekv.Options{MemTableSize: 32 << 20, MustExist: true}})
	if !ok {
		return exitFail
	}
	info, err := s.DescribeTable(c.ctx, *table)
	if err != nil {
		return c.close(s, c.tableFail("", err))
	}
	if c.be.etcd() && !flagGiven(fs, "batch") {
		// A transaction holds 128 operations and 128 conditions: an
		// object costs a write and a condition, and each index up to
		// two writes and a condition.
		*batch = max(1, 120/(1+2*len(info.Indexes)))
	}
	out := newSession(c.stdout, c.stderr)
	p := newProgress(c.stderr, "loading", size)
	p.every = *every
	nbad := 0
	l := &tableLoader{s: s, table: *table, opts: c.termOpts, size: *batch, p: p, bad: func(line int, err error) {
		if nbad++; nbad <= maxBadLines {
			p.clear()
			out.fail(fmt.Sprintf("%s:%d", name, line), err)
		}
	}}
	n, err := l.load(c.ctx, in)
	c.reportBadLines(out, p, nbad)
	if err != nil {
		return c.loadFailed(s, out, p, n, err, "objects")
	}
	status = c.close(s, out.finish())
	p.clear()
	d := time.Since(p.start)
	fmt.Fprintf(c.stderr, "stored %s in %s in %s (%s objects/s)\n", counted(n, "object"), *table, round(d), commas(int64(float64(n)/d.Seconds())))
	return status
}

// tableLoader stores a file's objects in batches of size. A batch that
// fails for one of its objects (one that does not fit, or that a unique
// index refuses) is written again one object at a time, so that only
// those are left out.
type tableLoader struct {
	s     *store.Store
	table string
	opts  term.ParseOptions
	size  int
	p     *progress
	bad   func(line int, err error)
	objs  []term.Term
	lines []int // the line of each of objs
}

// load reads r to the end and returns the number of objects stored.
func (l *tableLoader) load(ctx context.Context, r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var stored, read int64
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
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
		if text := bytes.TrimSpace(line); len(text) > 0 {
			obj, err := l.opts.Parse(string(text))
			if err != nil {
				l.bad(lineNo, err)
			} else {
				l.objs, l.lines = append(l.objs, obj), append(l.lines, lineNo)
			}
		}
		if len(l.objs) >= l.size || rerr == io.EOF && len(l.objs) > 0 {
			n, err := l.flush(ctx)
			stored += n
			if err != nil {
				return stored, err
			}
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

// flush writes the batch, or when one of its objects is refused, each
// object alone.
func (l *tableLoader) flush(ctx context.Context) (int64, error) {
	defer func() { l.objs, l.lines = l.objs[:0], l.lines[:0] }()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	write := func(objs []term.Term) error {
		b := l.s.NewTableBatch()
		for _, o := range objs {
			b.Write(l.table, o)
		}
		return l.s.ApplyTableBatch(ctx, b)
	}
	err := write(l.objs)
	if !refused(err) {
		if err != nil {
			return 0, err
		}
		return int64(len(l.objs)), nil
	}
	var n int64
	for i, o := range l.objs {
		switch err := write([]term.Term{o}); {
		case refused(err):
			l.bad(l.lines[i], err)
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}

// refused reports an error that one object of a batch causes.
func refused(err error) bool {
	return errors.Is(err, store.ErrObject) || errors.Is(err, store.ErrUnique)
}
