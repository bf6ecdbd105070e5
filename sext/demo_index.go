package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// demoIndex is the demo's index on the order id, the last element of
// the key: what query 5 looks up.
var demoIndex = term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("$1"))

// indexQuery creates the index on the order id and answers query 5
// through it, beside the full scan's time (scan5).
func (d *demo) indexQuery(scan5 time.Duration) error {
	w := d.out.out
	// Numbered after the selects of demo_select.go (6 to 8).
	fmt.Fprintf(w, "\n9. query 5 again, through an index on the order id\n   CreateIndex order_id %s\n", demoIndex)
	w.Flush()
	p := newProgress(d.stderr, "indexing", 0)
	start := time.Now()
	var keys int64
	err := d.s.CreateIndex(d.ctx, "order_id", demoIndex, &store.BuildOptions{Progress: func(n int64) {
		keys = n
		p.update(n, -1, 0)
	}})
	p.clear()
	if err != nil {
		return err
	}
	build := time.Since(start)
	fmt.Fprintf(w, "   built in %s (%s read, %s keys/s)\n", round(build), counted(keys, "key"), commas(int64(float64(keys)/build.Seconds())))

	id := term.Int(int64(d.n / 2))
	lookup := func(id term.Term) (int, []store.IndexEntry, error) {
		n := 0
		var rows []store.IndexEntry
		for e, err := range d.s.IndexScan(d.ctx, "order_id", id, store.IndexScanOptions{}) {
			if err != nil {
				return n, rows, err
			}
			n++
			rows = append(rows, e)
		}
		return n, rows, nil
	}
	start = time.Now()
	n, rows, err := lookup(id)
	if err != nil {
		return err
	}
	first := time.Since(start)
	// The first look-up pays for reading the tables' blocks from disk;
	// the typical one is the median of many, of other ids.
	r := rand.New(rand.NewPCG(7, 7))
	times := make([]time.Duration, 1000)
	for i := range times {
		start := time.Now()
		if _, _, err := lookup(term.Int(r.Int64N(int64(d.n)))); err != nil {
			return err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	med := times[len(times)/2]
	fmt.Fprintf(w, "   IndexScan order_id %s: %s in %s (the first look-up, which reads its blocks from disk)\n",
		id, counted(int64(n), "row"), round(first))
	for _, e := range rows {
		d.printRow(store.Entry{Key: e.Key, Value: e.Value})
	}
	fmt.Fprintf(w, "   %s other ids: median %s, 99th percentile %s\n", commas(int64(len(times))), round(med), round(times[len(times)*99/100]))
	if med > 0 {
		fmt.Fprintf(w, "   the full scan of query 5 took %s, %s as long as the median look-up\n", round(scan5), timesAsLong(float64(scan5)/float64(med)))
	}

	// The select planner takes the index too, for a clause that fixes
	// the order id.
	spec, err := matchspec.Compile(term.List(term.Tuple(term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), id), term.List(), term.List(term.Atom("$_")))))
	if err != nil {
		return err
	}
	// What sext db explain prints of it: the index entries in place of
	// the plan's ranges (sections 6 to 8 print those).
	plan, err := d.s.ExplainSelect(d.ctx, spec)
	if err != nil {
		return err
	}
	var st store.SelectStats
	start = time.Now()
	n = 0
	for _, err := range d.s.Select(d.ctx, spec, store.SelectOptions{Stats: &st}) {
		if err != nil {
			return err
		}
		n++
	}
	through := "the plan's ranges" // not this demo's case: the planner takes the index
	if st.Index != "" {
		through = "index " + st.Index
	}
	fmt.Fprintf(w, "\n10. the same as a match specification: the planner reads the index\n   Select %s\n", spec)
	if ip := plan.Index; ip != nil {
		r := ip.Ranges[0] // a constant value: one range
		fmt.Fprintf(w, "   index %s: %s .. %s\n", ip.Name, sext.Hex.EncodeToString(r.Lower), sext.Hex.EncodeToString(r.Upper))
	}
	fmt.Fprintf(w, "   %s in %s, %s read, through %s\n", counted(int64(n), "row"), round(time.Since(start)), counted(st.KeysRead, "key"), through)
	return w.Flush()
}

// timesAsLong writes a ratio for "N times as long": whole above 10, else to a
// tenth.
func timesAsLong(r float64) string {
	if r >= 10 {
		return commas(int64(r)) + " times"
	}
	return fmt.Sprintf("%.1f times", r)
}
