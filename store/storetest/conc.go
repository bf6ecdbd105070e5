package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// ConcDurationEnv names the environment variable that sets how long the
// concurrency test runs (a time.ParseDuration string, such as "60s");
// unset, it runs DefaultConcDuration.
const ConcDurationEnv = "STORE_CONC_DURATION"

// DefaultConcDuration is how long the concurrency test runs by default
// at testsize's full size: long enough that every kind of operation runs
// beside every other many times, short enough for every go test run. A
// quick run takes half.
const DefaultConcDuration = 2 * time.Second

// The concurrency test's data. Stable keys {stable, I, I rem 7} hold
// "s<I>" and are never written after the start: every read of them has
// exactly one right answer, whatever runs beside it. Churn keys
// {churn, I, I rem 5} are put and deleted all the time; a read of them
// must be consistent (in order, each value one its key was given, each
// index entry its key's) but not any one answer. Foreign keys are not
// sext encodings.
const (
	concStable = 240
	concChurn  = 120
	concGroups = 7
)

var (
	concForeign = [][]byte{{0x01}, {0xff, 0xfe}, []byte("plain text")}

	atomStable, atomChurn = term.Atom("stable"), term.Atom("churn")
	concAny               = term.Atom("_")

	// concGrp indexes the stable keys by group and concChurnIx the churn
	// keys by number; both stay ready throughout. concCyc, over the
	// stable keys by number, is created and dropped over and over.
	concGrp     = idxDef{"conc_grp", term.Tuple(atomStable, concAny, term.Atom("$1"))}
	concChurnIx = idxDef{"conc_churn", term.Tuple(atomChurn, term.Atom("$1"), concAny)}
	concCyc     = idxDef{"conc_cyc", term.Tuple(atomStable, term.Atom("$1"), concAny)}
)

func stableKey(i int) term.Term {
	return term.Tuple(atomStable, term.Int(int64(i)), term.Int(int64(i%concGroups)))
}

func churnKey(i int) term.Term {
	return term.Tuple(atomChurn, term.Int(int64(i)), term.Int(int64(i%5)))
}

// keyID returns the kind ("stable", "churn") and number of a key of the
// test, or ok false.
func keyID(k term.Term) (kind string, id int, ok bool) {
	if k.Kind() != term.KindTuple || k.Len() != 3 {
		return "", 0, false
	}
	el := k.Elems()
	if el[0].Kind() != term.KindAtom || !el[1].IsInt64() || !el[2].IsInt64() {
		return "", 0, false
	}
	kind, id = el[0].Atom(), int(el[1].Int64())
	switch {
	case kind == "stable" && id >= 0 && id < concStable && int(el[2].Int64()) == id%concGroups:
	case kind == "churn" && id >= 0 && id < concChurn && int(el[2].Int64()) == id%5:
	default:
		return "", 0, false
	}
	return kind, id, true
}

// concRun is one run of the concurrency test: the store and the tally.
type concRun struct {
	t      *testing.T
	s      *store.Store
	kv     store.KV // under s, for the foreign keys seed writes
	stats  map[string]*concStat
	fails  atomic.Int64 // wrong answers, errors and panics, all kinds
	cycled atomic.Int64 // CheckIndexes findings on the cycled index (see checkIdx)
	seq    atomic.Int64 // value numbers for the writers
}

// concStat counts one kind of operation.
type concStat struct {
	runs, wrong, panics, refused atomic.Int64
	nanos                        atomic.Int64 // time spent in all runs
}

// concOp is one kind of operation: run returns nil when what it saw
// agrees with the model.
type concOp struct {
	name string
	run  func(c *concRun, r *rand.Rand) error
}

// errRefused marks an answer that is right but says nothing: a scan of
// the index being rebuilt that found it not ready.
var errRefused = errors.New("refused")

// testConcurrent runs every read and scan beside every write and every
// maintenance call for ConcDurationEnv (DefaultConcDuration, half in a
// quick run), checking each answer against the model, and fails on any
// wrong answer, any unexpected error and any panic. It logs how many of
// each operation ran.
func testConcurrent(t *testing.T, open func(t *testing.T) store.KV) {
	d := testsize.Pick(DefaultConcDuration/2, DefaultConcDuration)
	if v := os.Getenv(ConcDurationEnv); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("%s=%q: %v", ConcDurationEnv, v, err)
		}
	}
	s, kv := newStoreKV(t, open)
	c := &concRun{t: t, s: s, kv: kv, stats: map[string]*concStat{}}
	c.seed()
	roles := []struct {
		n   int
		ops []concOp
	}{
		{4, concReads},
		{2, concWrites},
		{1, concChecks},
		{1, concIndexCycle},
	}
	for _, role := range roles {
		for _, op := range role.ops {
			c.stats[op.name] = &concStat{}
		}
	}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	g := 0
	for _, role := range roles {
		for range role.n {
			g++
			wg.Add(1)
			go func(seed uint64, ops []concOp) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, 0xC0C))
				for time.Now().Before(deadline) && c.fails.Load() < 50 {
					c.once(ops[r.IntN(len(ops))], r)
				}
			}(uint64(g), role.ops)
		}
	}
	wg.Wait()
	var b strings.Builder
	var runs, wrong, panics int64
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range c.stats {
			if !yield(k) {
				return
			}
		}
	}) {
		st := c.stats[name]
		runs += st.runs.Load()
		wrong += st.wrong.Load()
		panics += st.panics.Load()
		n := max(st.runs.Load(), 1)
		fmt.Fprintf(&b, "\n  %-18s %7d runs %3d wrong %3d panics %9v each", name, st.runs.Load(), st.wrong.Load(), st.panics.Load(),
			time.Duration(st.nanos.Load()/n).Round(time.Microsecond))
		if n := st.refused.Load(); n > 0 {
			fmt.Fprintf(&b, " (%d refused: index not ready, or dropped during the scan)", n)
		}
	}
	t.Logf("%v of concurrent operations: %d runs, %d wrong answers or errors, %d panics; %d CheckIndexes findings on the index being created and dropped%s",
		d, runs, wrong, panics, c.cycled.Load(), b.String())
}

// once runs one operation, counting what it gives and recovering a
// panic (which counts as a failure, with its stack).
func (c *concRun) once(op concOp, r *rand.Rand) {
	st := c.stats[op.name]
	st.runs.Add(1)
	start := time.Now()
	defer func() {
		st.nanos.Add(int64(time.Since(start)))
		if p := recover(); p != nil {
			st.panics.Add(1)
			if c.fails.Add(1) <= 20 {
				c.t.Errorf("%s panicked: %v\n%s", op.name, p, debug.Stack())
			}
		}
	}()
	err := op.run(c, r)
	switch {
	case err == nil:
	case errors.Is(err, errRefused):
		st.refused.Add(1)
	default:
		st.wrong.Add(1)
		if c.fails.Add(1) <= 20 {
			c.t.Errorf("%s: %v", op.name, err)
		}
	}
}

// seed writes the stable keys, half the churn keys, the foreign keys and
// the two lasting indexes.
func (c *concRun) seed() {
	t, s := c.t, c.s
	b := s.NewBatch()
	for i := range concStable {
		b.Put(stableKey(i), fmt.Appendf(nil, "s%d", i))
	}
	for i := 0; i < concChurn; i += 2 {
		b.Put(churnKey(i), fmt.Appendf(nil, "c%d/0", i))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	wb := c.kv.NewBatch()
	for _, k := range concForeign {
		wb.Set(k, []byte("foreign"))
	}
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	for _, d := range []idxDef{concGrp, concChurnIx} {
		if err := s.CreateIndex(ctx, d.name, d.pattern, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// ids lists the stable numbers from lo to hi (not included) for which
// keep holds, reversed if asked.
func ids(lo, hi int, reverse bool, keep func(int) bool) []int {
	var out []int
	for i := lo; i < hi; i++ {
		if keep == nil || keep(i) {
			out = append(out, i)
		}
	}
	if reverse {
		slices.Reverse(out)
	}
	return out
}

// sawStable checks entries against the stable keys want, in that order,
// with their values unless keysOnly.
func sawStable(what string, got []store.Entry, want []int, keysOnly bool) error {
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		kind, id, isKey := keyID(got[i].Key)
		ok = isKey && kind == "stable" && id == want[i] && valueRight(kind, id, got[i].Value, keysOnly)
	}
	if !ok {
		return fmt.Errorf("%s: %d entries %s, want %d: %v", what, len(got), showKeys(got), len(want), clip(want))
	}
	return nil
}

// valueRight reports whether v is a value key (kind, id) can hold.
func valueRight(kind string, id int, v []byte, keysOnly bool) bool {
	switch {
	case keysOnly:
		return v == nil
	case kind == "stable":
		return string(v) == fmt.Sprintf("s%d", id)
	default:
		return strings.HasPrefix(string(v), fmt.Sprintf("c%d/", id))
	}
}

func showKeys(es []store.Entry) string {
	var b strings.Builder
	for i, e := range es {
		if i == 12 {
			b.WriteString("...")
			break
		}
		fmt.Fprintf(&b, "%v=%q ", e.Key, e.Value)
	}
	return b.String()
}

func clip(xs []int) []int {
	if len(xs) > 12 {
		return xs[:12]
	}
	return xs
}

// scanAll runs a scan to its end, returning its entries or its error.
func scanAll(seq func(func(store.Entry, error) bool)) ([]store.Entry, error) {
	var out []store.Entry
	for e, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// concReads are the reads and scans, each checked against the model.
var concReads = []concOp{
	{"Get", func(c *concRun, r *rand.Rand) error {
		i := r.IntN(concStable)
		v, err := c.s.Get(ctx, stableKey(i))
		if err != nil || string(v) != fmt.Sprintf("s%d", i) {
			return fmt.Errorf("Get(%v) = %q, %v", stableKey(i), v, err)
		}
		i = r.IntN(concChurn)
		v, err = c.s.Get(ctx, churnKey(i))
		if (err != nil && !errors.Is(err, store.ErrNotFound)) || (err == nil && !valueRight("churn", i, v, false)) {
			return fmt.Errorf("Get(%v) = %q, %v", churnKey(i), v, err)
		}
		return nil
	}},
	{"Scan", func(c *concRun, r *rand.Rand) error {
		rev, keysOnly := r.IntN(2) == 0, r.IntN(2) == 0
		opts := store.ScanOptions{Reverse: rev, KeysOnly: keysOnly}
		pat := term.Tuple(atomStable, concAny, concAny)
		want := ids(0, concStable, rev, nil)
		if g := r.IntN(concGroups + 1); g < concGroups {
			pat = term.Tuple(atomStable, concAny, term.Int(int64(g)))
			want = ids(0, concStable, rev, func(i int) bool { return i%concGroups == g })
		}
		if r.IntN(3) == 0 {
			opts.Limit = 1 + r.IntN(40)
			want = want[:min(opts.Limit, len(want))]
		}
		got, err := scanAll(c.s.Scan(ctx, pat, opts))
		if err != nil {
			return fmt.Errorf("Scan(%v): %v", pat, err)
		}
		return sawStable(fmt.Sprintf("Scan(%v, %+v)", pat, opts), got, want, keysOnly)
	}},
	{"ScanRange", func(c *concRun, r *rand.Rand) error {
		a := r.IntN(concStable)
		b := a + r.IntN(concStable-a)
		rev := r.IntN(2) == 0
		from, to := term.Tuple(atomStable, term.Int(int64(a)), concAny), term.Tuple(atomStable, term.Int(int64(b)), concAny)
		got, err := scanAll(c.s.ScanRange(ctx, from, to, store.ScanOptions{Reverse: rev}))
		if err != nil {
			return fmt.Errorf("ScanRange(%v, %v): %v", from, to, err)
		}
		return sawStable(fmt.Sprintf("ScanRange(%v, %v, reverse %v)", from, to, rev), got, ids(a, b+1, rev, nil), false)
	}},
	{"ScanAll", func(c *concRun, r *rand.Rand) error {
		// Everything: the stable keys exactly, the churn keys in order
		// with right values, the foreign keys reported, nothing else.
		rev := r.IntN(2) == 0
		var bad atomic.Int64
		got, err := scanAll(c.s.Scan(ctx, concAny, store.ScanOptions{Reverse: rev, OnBadKey: func([]byte, error) { bad.Add(1) }}))
		if err != nil {
			return fmt.Errorf("Scan('_'): %v", err)
		}
		var stable []store.Entry
		for i, e := range got {
			kind, id, ok := keyID(e.Key)
			if !ok || !valueRight(kind, id, e.Value, false) {
				return fmt.Errorf("Scan('_') yielded %v=%q", e.Key, e.Value)
			}
			if i > 0 && (term.Compare(got[i-1].Key, e.Key) < 0) == rev {
				return fmt.Errorf("Scan('_', reverse %v): %v after %v", rev, e.Key, got[i-1].Key)
			}
			if kind == "stable" {
				stable = append(stable, e)
			}
		}
		if n := bad.Load(); n != int64(len(concForeign)) {
			return fmt.Errorf("Scan('_') reported %d bad keys, want %d", n, len(concForeign))
		}
		return sawStable("Scan('_') of the stable keys", stable, ids(0, concStable, rev, nil), false)
	}},
	{"Select", func(c *concRun, r *rand.Rand) error {
		// A guard on the scan's leading variable, in pages of a random
		// size resumed by tokens.
		n := r.IntN(concStable + 1)
		spec, err := matchspec.Parse(fmt.Sprintf(`[{{stable,'$1','_'},[{'<','$1',%d}],['$1']}]`, n))
		if err != nil {
			return err
		}
		rev := r.IntN(2) == 0
		opts := store.SelectOptions{Reverse: rev, Limit: []int{0, 7, 50}[r.IntN(3)]}
		var got []int
		for {
			rows, last := 0, ""
			for row, err := range c.s.Select(ctx, spec, opts) {
				if err != nil {
					return fmt.Errorf("Select(%v): %v", spec, err)
				}
				_, id, _ := keyID(row.Key)
				if !row.Result.Term.IsInt64() || int(row.Result.Term.Int64()) != id || string(row.Value) != fmt.Sprintf("s%d", id) {
					return fmt.Errorf("Select(%v): row %v=%q gives %v", spec, row.Key, row.Value, row.Result.Term)
				}
				got = append(got, id)
				rows, last = rows+1, row.Continuation()
			}
			if opts.Limit == 0 || rows < opts.Limit {
				break
			}
			opts.After = last
		}
		if want := ids(0, n, rev, nil); !slices.Equal(got, want) {
			return fmt.Errorf("Select(%v, reverse %v, pages of %d) = %d rows %v, want %d", spec, rev, opts.Limit, len(got), clip(got), len(want))
		}
		return nil
	}},
	{"SelectByIndex", func(c *concRun, r *rand.Rand) error {
		// A head the planner answers from conc_grp.
		g := r.IntN(concGroups)
		spec, err := matchspec.Parse(fmt.Sprintf(`[{{stable,'_',%d},[],['$_']}]`, g))
		if err != nil {
			return err
		}
		var st store.SelectStats
		var got []store.Entry
		for row, err := range c.s.Select(ctx, spec, store.SelectOptions{Stats: &st}) {
			if err != nil {
				return fmt.Errorf("Select(%v): %v", spec, err)
			}
			got = append(got, store.Entry{Key: row.Key, Value: row.Value})
		}
		if st.Index != concGrp.name {
			return fmt.Errorf("Select(%v) read %q, want the index %s", spec, st.Index, concGrp.name)
		}
		return sawStable(fmt.Sprintf("Select(%v)", spec), got, ids(0, concStable, false, func(i int) bool { return i%concGroups == g }), false)
	}},
	{"SelectByIndexRange", func(c *concRun, r *rand.Rand) error {
		// Guards that bound conc_grp's variable: the planner reads that
		// index's range of groups and sorts the keys; a page (with a
		// Limit) races the plan against it and may end on either, and
		// pages resume by tokens.
		lo := r.IntN(concGroups)
		hi := lo + 1 + r.IntN(concGroups-lo)
		spec, err := matchspec.Parse(fmt.Sprintf(`[{{stable,'_','$1'},[{'>=','$1',%d},{'<','$1',%d}],['$_']}]`, lo, hi))
		if err != nil {
			return err
		}
		rev := r.IntN(2) == 0
		opts := store.SelectOptions{Reverse: rev, Limit: []int{0, 7, 50}[r.IntN(3)]}
		var got []store.Entry
		for {
			var st store.SelectStats
			opts.Stats = &st
			rows, last := 0, ""
			for row, err := range c.s.Select(ctx, spec, opts) {
				if err != nil {
					return fmt.Errorf("Select(%v): %v", spec, err)
				}
				got = append(got, store.Entry{Key: row.Key, Value: row.Value})
				rows, last = rows+1, row.Continuation()
			}
			if st.Index != concGrp.name && (opts.Limit == 0 || st.Index != "") {
				return fmt.Errorf("Select(%v) read %q, want the index %s", spec, st.Index, concGrp.name)
			}
			if opts.Limit == 0 || rows < opts.Limit {
				break
			}
			opts.After = last
		}
		want := ids(0, concStable, rev, func(i int) bool { return i%concGroups >= lo && i%concGroups < hi })
		return sawStable(fmt.Sprintf("Select(%v, reverse %v, pages of %d)", spec, rev, opts.Limit), got, want, false)
	}},
	{"IndexScan", func(c *concRun, r *rand.Rand) error {
		// conc_grp: one group, all of them, a range of groups, or all
		// in pages.
		rev, keysOnly := r.IntN(2) == 0, r.IntN(2) == 0
		opts := store.IndexScanOptions{Reverse: rev, KeysOnly: keysOnly}
		lo, hi := 0, concGroups-1
		var seq func(func(store.IndexEntry, error) bool)
		what := ""
		switch k := r.IntN(4); k {
		case 0:
			lo = r.IntN(concGroups)
			hi = lo
			seq, what = c.s.IndexScan(ctx, concGrp.name, term.Int(int64(lo)), opts), fmt.Sprint("IndexScan ", lo)
		case 1:
			seq, what = c.s.IndexScan(ctx, concGrp.name, concAny, opts), "IndexScan '_'"
		case 2:
			lo = r.IntN(concGroups)
			hi = lo + r.IntN(concGroups-lo)
			r := store.ValueRange{From: term.Int(int64(lo)), Before: term.Int(int64(hi + 1))}
			seq, what = c.s.IndexScanRange(ctx, concGrp.name, r, opts), fmt.Sprint("IndexScanRange ", lo, hi+1)
		default:
			opts.Limit = 1 + r.IntN(60)
			seq, what = nil, fmt.Sprint("IndexScan '_' in pages of ", opts.Limit)
		}
		var got []store.IndexEntry
		var err error
		if seq != nil {
			got, err = collectIndexErr(seq)
		} else {
			for {
				page, perr := collectIndexErr(c.s.IndexScan(ctx, concGrp.name, concAny, opts))
				got = append(got, page...)
				if err = perr; err != nil || len(page) < opts.Limit {
					break
				}
				opts.After = page[len(page)-1].Continuation()
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		// Index order: by group, then by key.
		var want []int
		for g := lo; g <= hi; g++ {
			want = append(want, ids(0, concStable, false, func(i int) bool { return i%concGroups == g })...)
		}
		if rev {
			slices.Reverse(want)
		}
		return sawIndex(what, got, want, func(id int) int { return id % concGroups }, keysOnly)
	}},
	{"IndexScanChurn", func(c *concRun, r *rand.Rand) error {
		rev := r.IntN(2) == 0
		got, err := collectIndexErr(c.s.IndexScan(ctx, concChurnIx.name, concAny, store.IndexScanOptions{Reverse: rev}))
		if err != nil {
			return fmt.Errorf("IndexScan %s: %v", concChurnIx.name, err)
		}
		for i, e := range got {
			kind, id, ok := keyID(e.Key)
			if !ok || kind != "churn" || !e.IndexValue.IsInt64() || int(e.IndexValue.Int64()) != id || !valueRight(kind, id, e.Value, false) {
				return fmt.Errorf("IndexScan %s yielded %v@%v=%q", concChurnIx.name, e.Key, e.IndexValue, e.Value)
			}
			if i > 0 && (term.Compare(got[i-1].Key, e.Key) < 0) == rev {
				return fmt.Errorf("IndexScan %s: %v after %v", concChurnIx.name, e.Key, got[i-1].Key)
			}
		}
		return nil
	}},
	{"IndexScanCycled", func(c *concRun, r *rand.Rand) error {
		// The index being created and dropped: refused at the start,
		// or ended by ErrNoIndex if dropped during the scan (after
		// entries that must be right as far as they go), or complete.
		got, err := collectIndexErr(c.s.IndexScan(ctx, concCyc.name, concAny, store.IndexScanOptions{KeysOnly: true}))
		switch {
		case err == nil:
			return sawIndex("IndexScan "+concCyc.name, got, ids(0, concStable, false, nil), func(id int) int { return id }, true)
		case errors.Is(err, store.ErrIndexBuilding) && len(got) == 0, errors.Is(err, store.ErrNoIndex):
			for i, e := range got {
				kind, id, ok := keyID(e.Key)
				if !ok || kind != "stable" || !e.IndexValue.IsInt64() || int(e.IndexValue.Int64()) != id || (i > 0 && term.Compare(got[i-1].Key, e.Key) >= 0) {
					return fmt.Errorf("IndexScan %s ended by %v yielded %s", concCyc.name, err, showEntries(got[:min(len(got), 12)]))
				}
			}
			return errRefused
		}
		return fmt.Errorf("IndexScan %s: %d entries, then %v", concCyc.name, len(got), err)
	}},
}

// sawIndex checks index entries against the stable keys want, in that
// order, with index values value(id).
func sawIndex(what string, got []store.IndexEntry, want []int, value func(int) int, keysOnly bool) error {
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		kind, id, isKey := keyID(got[i].Key)
		ok = isKey && kind == "stable" && id == want[i] && got[i].IndexValue.IsInt64() &&
			int(got[i].IndexValue.Int64()) == value(id) && valueRight(kind, id, got[i].Value, keysOnly)
	}
	if !ok {
		return fmt.Errorf("%s: %d entries %s, want %d: %v", what, len(got), showEntries(got[:min(len(got), 12)]), len(want), clip(want))
	}
	return nil
}

// concWrites put and delete churn keys, singly and in batches.
var concWrites = []concOp{
	{"Put", func(c *concRun, r *rand.Rand) error {
		i := r.IntN(concChurn)
		return c.s.Put(ctx, churnKey(i), fmt.Appendf(nil, "c%d/%d", i, c.seq.Add(1)))
	}},
	{"Delete", func(c *concRun, r *rand.Rand) error {
		return c.s.Delete(ctx, churnKey(r.IntN(concChurn)))
	}},
	{"Batch", func(c *concRun, r *rand.Rand) error {
		b := c.s.NewBatch()
		defer b.Close()
		for range 2 + r.IntN(8) {
			i := r.IntN(concChurn)
			if r.IntN(3) == 0 {
				b.Delete(churnKey(i))
			} else {
				b.Put(churnKey(i), fmt.Appendf(nil, "c%d/%d", i, c.seq.Add(1)))
			}
		}
		return c.s.Apply(ctx, b)
	}},
}

// checkData runs Check: the foreign keys counted, nothing else wrong.
func (c *concRun) checkData(fix bool) error {
	res, err := c.s.Check(ctx, store.CheckOptions{Fix: fix})
	if err != nil {
		return fmt.Errorf("Check(fix %v): %v", fix, err)
	}
	if res.Foreign != int64(len(concForeign)) || res.NonCanonical != 0 || res.Fixed != 0 || res.Conflicts != 0 ||
		res.Keys < int64(concStable+len(concForeign)) || res.Keys > int64(concStable+concChurn+len(concForeign)) {
		return fmt.Errorf("Check(fix %v) = %+v; want %d foreign keys, %d to %d keys", fix, res, len(concForeign), concStable+len(concForeign), concStable+concChurn+len(concForeign))
	}
	return nil
}

// checkIdx runs CheckIndexes. It reads each difference again, at one
// moment, before it counts, so writers racing it cause no finding: any
// finding on a lasting index is wrong. Findings on the index being
// created and dropped are counted but allowed: a check that read the
// definitions before a drop began meets entries going, one that read
// them before a create meets entries of an index it does not know.
func (c *concRun) checkIdx(fix bool) error {
	var wrong []string
	res, err := c.s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: fix, OnProblem: func(p store.IndexProblem) {
		if p.Index == concCyc.name {
			c.cycled.Add(1)
			return
		}
		wrong = append(wrong, fmt.Sprintf("%s %s %v %x", p.Kind, p.Index, p.Key, p.Raw))
	}})
	if err != nil {
		return fmt.Errorf("CheckIndexes(fix %v): %v", fix, err)
	}
	if len(wrong) > 0 || res.Indexes < 2 {
		return fmt.Errorf("CheckIndexes(fix %v) = %+v: %s", fix, res, strings.Join(wrong, "; "))
	}
	return nil
}

// concChecks are the maintenance calls that change nothing (or, with
// Fix, only what is wrong), run beside everything.
var concChecks = []concOp{
	{"Check", func(c *concRun, r *rand.Rand) error { return c.checkData(r.IntN(2) == 0) }},
	{"CheckIndexes", func(c *concRun, r *rand.Rand) error { return c.checkIdx(false) }},
	{"Sync", func(c *concRun, r *rand.Rand) error { return c.s.Sync(ctx) }},
	{"Indexes", func(c *concRun, r *rand.Rand) error {
		list, err := c.s.Indexes(ctx)
		if err != nil {
			return err
		}
		ready := 0
		for _, ix := range list {
			if (ix.Name == concGrp.name || ix.Name == concChurnIx.name) && ix.State == store.IndexReady {
				ready++
			}
		}
		if ready != 2 {
			return fmt.Errorf("Indexes() = %v, want %s and %s ready", list, concGrp.name, concChurnIx.name)
		}
		return nil
	}},
}

// concIndexCycle creates the cycled index, checks it whole, drops it,
// and checks the indexes with Fix. One goroutine runs it: CheckIndexes
// with Fix would take a build in progress for one a stopped process
// left and finish it.
var concIndexCycle = []concOp{
	{"CreateDropIndex", func(c *concRun, r *rand.Rand) error {
		// A round that failed half way left the index: drop it first, so
		// that one failure is counted once.
		if err := c.s.DropIndex(ctx, concCyc.name, nil); err != nil && !errors.Is(err, store.ErrNoIndex) {
			return fmt.Errorf("DropIndex of a leftover: %v", err)
		}
		if err := c.s.CreateIndex(ctx, concCyc.name, concCyc.pattern, &store.BuildOptions{Step: 1 + r.IntN(64)}); err != nil {
			return fmt.Errorf("CreateIndex: %v", err)
		}
		got, err := collectIndexErr(c.s.IndexScan(ctx, concCyc.name, concAny, store.IndexScanOptions{}))
		if err != nil {
			return fmt.Errorf("IndexScan after CreateIndex: %v", err)
		}
		if err := sawIndex("IndexScan after CreateIndex", got, ids(0, concStable, false, nil), func(id int) int { return id }, false); err != nil {
			return err
		}
		// Ready for a while, for the readers' scans of it.
		time.Sleep(time.Duration(r.IntN(40)) * time.Millisecond)
		if err := c.s.DropIndex(ctx, concCyc.name, &store.BuildOptions{Step: 1 + r.IntN(64)}); err != nil {
			return fmt.Errorf("DropIndex: %v", err)
		}
		return nil
	}},
	{"CheckIndexesFix", func(c *concRun, r *rand.Rand) error { return c.checkIdx(true) }},
}
