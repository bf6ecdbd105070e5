package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

const demoAbout = `
Build an order book in an embedded Pebble store and query it with
patterns. Each order is stored under the key

  {order, CustomerId, #Desc<Timestamp>, OrderId}

with its amount as the value. Because the timestamp is wrapped in #Desc,
a customer's orders sort newest first, so "the latest orders of customer
C" is the forward scan of {order, C, '_', '_'}, and a time window is a
range scan whose first bound holds the newer time.

The store goes in a temporary directory that is removed at the end,
unless --dir names one (its parent must exist); the load goes in large
batches without a write-ahead log, which is safe for data that can be
made again. The generator is seeded, so every run makes the same orders.`

// Demo data: a year of orders, 100 per customer on average.
const (
	demoYearStart     = 1735689600 // 2025-01-01T00:00:00Z
	demoYearSeconds   = 365 * 24 * 3600
	demoOrdersPerCust = 100
	demoBatch         = 20000
)

func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", "sext demo [--dir DIR] [--n N]", demoAbout)
	dir := fs.String("dir", "", "keep the store in `DIR` instead of a temporary directory")
	n := fs.Int("n", 1_000_000, "the number of orders to load")
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) > 0 {
		return fs.usageError(stderr, "demo takes no arguments")
	}
	if *n < 1 {
		return fs.usageError(stderr, "--n must be at least 1")
	}
	path, temporary := *dir, *dir == ""
	if temporary {
		var err error
		if path, err = os.MkdirTemp("", "sext-demo-"); err != nil {
			fmt.Fprintf(stderr, "sext: %v\n", err)
			return exitFail
		}
		defer os.RemoveAll(path)
	}
	s, ok := backend{dir: path}.open(&pebblestore.Options{Store: store.Options{NoSync: true}, Pebble: pebblekv.Options{DisableWAL: true, MemTableSize: 64 << 20}}, stderr)
	if !ok {
		return exitFail
	}
	out := newSession(stdout, stderr)
	d := &demo{ctx: context.Background(), s: s, out: out, stderr: stderr, n: *n}
	where := path
	if temporary {
		where += " (temporary, removed at the end)"
	}
	fmt.Fprintf(out.out, "sext demo: an order book of %s orders in an embedded Pebble store\n", commas(int64(*n)))
	fmt.Fprintf(out.out, "store: %s\n", where)
	fmt.Fprintf(out.out, "keys:  {order, CustomerId, #Desc<Timestamp>, OrderId}, so each customer's orders sort newest first\n\n")
	out.out.Flush()
	err := d.load()
	if err == nil {
		err = d.queries()
	}
	if err == nil {
		err = d.selects() // sext/demo_select.go
	}
	if err == nil {
		err = d.indexQuery(d.scan5) // sext/demo_index.go
	}
	if err == nil {
		err = d.tables() // sext/demo_table.go
	}
	if err != nil {
		out.fail("", err)
	}
	start := time.Now()
	status = closeStore(s, out.finish(), stderr)
	if status == exitOK {
		fmt.Fprintf(stdout, "\nclosed the store in %s (the memory tables were flushed to disk)\n", round(time.Since(start)))
	}
	return status
}

type demo struct {
	ctx    context.Context
	s      *store.Store
	out    *session
	stderr io.Writer
	n      int
	custs  int
	scan5  time.Duration // query 5's full scan, for the index (demo_index.go)
}

func orderKey(cust, ts, id int64) term.Term {
	return term.Tuple(term.Atom("order"), term.Int(cust), term.Desc(term.Int(ts)), term.Int(id))
}

// load writes the orders in batches. Two goroutines build and apply
// batches side by side: encoding and the memtable insert each take about
// half the time, and Pebble lets batches commit concurrently.
func (d *demo) load() error {
	d.custs = max(1, d.n/demoOrdersPerCust)
	p := newProgress(d.stderr, "loading", 0)
	start := time.Now()
	workers := min(2, runtime.GOMAXPROCS(0))
	chunks := make(chan int) // the first order id of each batch
	errs := make(chan error, workers)
	stored := make(chan int, 64)
	for range workers {
		go func() {
			var err error
			for first := range chunks {
				if err != nil {
					continue // drain
				}
				// Each batch has its own seeded source, so the data do not
				// depend on which goroutine made them.
				r := rand.New(rand.NewPCG(uint64(first), 0x5E47))
				b := d.s.NewBatch()
				var val []byte
				last := min(first+demoBatch, d.n)
				for id := first; id < last; id++ {
					cust := 1 + r.Int64N(int64(d.custs))
					ts := demoYearStart + r.Int64N(demoYearSeconds)
					cents := 100 + r.Int64N(50000)
					val = strconv.AppendFloat(val[:0], float64(cents)/100, 'f', 2, 64)
					if err = b.Put(orderKey(cust, ts, int64(id)), val); err != nil {
						break
					}
				}
				if err == nil {
					err = d.s.Apply(d.ctx, b)
				}
				b.Close()
				if err == nil {
					stored <- last - first
				}
			}
			errs <- err
		}()
	}
	go func() {
		for first := 0; first < d.n; first += demoBatch {
			chunks <- first
		}
		close(chunks)
	}()
	var total int64
	var err error
	for done := 0; done < workers; {
		select {
		case k := <-stored:
			total += int64(k)
			p.update(total, -1, 0)
		case e := <-errs:
			if e != nil && err == nil {
				err = e
			}
			done++
		}
	}
	for len(stored) > 0 {
		total += int64(<-stored)
	}
	if err != nil {
		p.clear()
		return err
	}
	p.clear()
	elapsed := time.Since(start)
	fmt.Fprintf(d.out.out, "loaded %s keys in %s: %s keys/s (%s customers, batches of %s, no WAL)\n",
		commas(total), round(elapsed), commas(int64(float64(total)/elapsed.Seconds())), commas(int64(d.custs)), commas(demoBatch))
	if st, err := d.s.Stats(d.ctx); err == nil {
		fmt.Fprintf(d.out.out, "store: %s on disk, %s still in memory tables\n", humanBytes(st.DiskBytes), humanBytes(st.MemTableSize))
	}
	return d.out.out.Flush()
}

// queries runs the scans and prints what they found and how long they
// took.
func (d *demo) queries() error {
	cust := int64(1 + d.custs/2) // any customer will do; this one every time
	if cust > int64(d.custs) {
		cust = 1
	}
	any := term.Atom("_")
	forCust := term.Tuple(term.Atom("order"), term.Int(cust), any, any)
	march, april := int64(1740787200), int64(1743465600) // 2025-03-01, 2025-04-01 UTC

	type query struct {
		title, how string
		seq        func() func(func(store.Entry, error) bool)
		show       int // rows to print
	}
	lo, hi := max(1, cust-5), min(int64(d.custs), cust+4)
	queries := []query{
		{
			title: fmt.Sprintf("customer %d's five latest orders", cust),
			how:   fmt.Sprintf("Scan %s, limit 5", forCust),
			seq: func() func(func(store.Entry, error) bool) {
				return d.s.Scan(d.ctx, forCust, store.ScanOptions{Limit: 5})
			},
			show: 5,
		},
		{
			title: fmt.Sprintf("customer %d's first order", cust),
			how:   fmt.Sprintf("Scan %s, reverse, limit 1", forCust),
			seq: func() func(func(store.Entry, error) bool) {
				return d.s.Scan(d.ctx, forCust, store.ScanOptions{Limit: 1, Reverse: true})
			},
			show: 1,
		},
		func() query {
			// #Desc puts the newer time first, so the range starts at the
			// end of March and runs back to its start.
			from := term.Tuple(term.Atom("order"), term.Int(cust), term.Desc(term.Int(april-1)), any)
			to := term.Tuple(term.Atom("order"), term.Int(cust), term.Desc(term.Int(march)), any)
			return query{
				title: fmt.Sprintf("customer %d's orders in March 2025, newest first", cust),
				how:   fmt.Sprintf("ScanRange %s .. %s", from, to),
				seq:   func() func(func(store.Entry, error) bool) { return d.s.ScanRange(d.ctx, from, to, store.ScanOptions{}) },
				show:  3,
			}
		}(),
		func() query {
			from := term.Tuple(term.Atom("order"), term.Int(lo), any, any)
			to := term.Tuple(term.Atom("order"), term.Int(hi), any, any)
			return query{
				title: fmt.Sprintf("all orders of customers %d to %d", lo, hi),
				how:   fmt.Sprintf("ScanRange %s .. %s, keys only", from, to),
				seq: func() func(func(store.Entry, error) bool) {
					return d.s.ScanRange(d.ctx, from, to, store.ScanOptions{KeysOnly: true})
				},
			}
		}(),
		func() query {
			p := term.Tuple(term.Atom("order"), any, any, term.Int(int64(d.n/2)))
			return query{
				title: fmt.Sprintf("order %d, whoever placed it: the wildcards come first, so every key is read", d.n/2),
				how:   fmt.Sprintf("Scan %s", p),
				seq:   func() func(func(store.Entry, error) bool) { return d.s.Scan(d.ctx, p, store.ScanOptions{}) },
				show:  1,
			}
		}(),
	}
	// One key and one pattern in bytes, to show what the store sees.
	if e, err := sext.Encode(orderKey(cust, march, 7)); err == nil {
		fmt.Fprintf(d.out.out, "\nthe key %s is %d bytes:\n  %s\n", orderKey(cust, march, 7), len(e), sext.Hex.EncodeToString(e))
	}
	if lower, upper, err := sext.PrefixRange(forCust); err == nil {
		fmt.Fprintf(d.out.out, "the pattern %s reads the keys from\n  %s up to\n  %s\n", forCust, sext.Hex.EncodeToString(lower), sext.Hex.EncodeToString(upper))
	}
	for i, q := range queries {
		start := time.Now()
		var rows []store.Entry
		count := 0
		for e, err := range q.seq() {
			if err != nil {
				return err
			}
			if count < q.show {
				rows = append(rows, e)
			}
			count++
		}
		elapsed := time.Since(start)
		if i == 4 {
			d.scan5 = elapsed
		}
		fmt.Fprintf(d.out.out, "\n%d. %s\n   %s\n   %s in %s\n", i+1, q.title, q.how, counted(int64(count), "row"), round(elapsed))
		for _, e := range rows {
			d.printRow(e)
		}
		if count > len(rows) && len(rows) > 0 {
			fmt.Fprintf(d.out.out, "   ... and %s more\n", commas(int64(count-len(rows))))
		}
		if err := d.out.out.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// printRow writes a key, its value and its timestamp as a date.
func (d *demo) printRow(e store.Entry) {
	when := ""
	if elems := e.Key.Elems(); len(elems) == 4 && elems[2].Kind() == term.KindDesc {
		if ts := elems[2].Inner(); ts.IsInt64() {
			when = time.Unix(ts.Int64(), 0).UTC().Format("2006-01-02 15:04:05")
		}
	}
	key := string(appendTerm(nil, e.Key))
	fmt.Fprintf(d.out.out, "   %-42s %8s  %s\n", key, e.Value, when)
}
