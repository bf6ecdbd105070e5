package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

func testIndexes(t *testing.T, open func(t *testing.T) store.KV) {
	t.Run("Model", func(t *testing.T) { testIndexModel(t, open) })
	t.Run("BuildRace", func(t *testing.T) { testIndexBuildRace(t, open) })
	t.Run("Errors", func(t *testing.T) { testIndexErrors(t, open) })
}

// idxDef is an index the model knows.
type idxDef struct {
	name    string
	pattern term.Term
}

func orderKey(cust, id int) term.Term {
	return term.Tuple(term.Atom("order"), term.Int(int64(cust)), term.Int(int64(id)))
}

var (
	byID   = idxDef{"by_id", term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("$1"))}
	byBoth = idxDef{"by_both", term.Tuple(term.Atom("order"), term.Atom("$2"), term.Atom("$1"))}
	byTag  = idxDef{"by_tag", term.Tuple(term.Atom("item"), term.Tuple(term.Atom("$1"), term.Atom("_")))}
)

// modelEntries is what an index must yield over the model's data: the
// matching keys, ordered by the encoding of {Value, Key}.
func modelEntries(t *testing.T, d idxDef, data map[string]modelRec) []store.IndexEntry {
	t.Helper()
	var out []store.IndexEntry
	for _, r := range data {
		bs, ok := sext.Match(d.pattern, r.key)
		if !ok {
			continue
		}
		var v term.Term
		if v1, ok := bs.Get("$2"); ok {
			v0, _ := bs.Get("$1")
			v = term.Tuple(v0, v1)
		} else {
			v, _ = bs.Get("$1")
		}
		out = append(out, store.IndexEntry{Key: r.key, Value: []byte(r.value), IndexValue: v})
	}
	slices.SortFunc(out, func(a, b store.IndexEntry) int {
		return bytes.Compare(must(t, term.Tuple(a.IndexValue, a.Key)), must(t, term.Tuple(b.IndexValue, b.Key)))
	})
	return out
}

type modelRec struct {
	key   term.Term
	value string
}

func collectIndex(t *testing.T, seq func(func(store.IndexEntry, error) bool)) []store.IndexEntry {
	t.Helper()
	var out []store.IndexEntry
	for e, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func sameEntries(a, b []store.IndexEntry, values bool) bool {
	return slices.EqualFunc(a, b, func(x, y store.IndexEntry) bool {
		return term.Equal(x.Key, y.Key) && term.Equal(x.IndexValue, y.IndexValue) && (!values || bytes.Equal(x.Value, y.Value))
	})
}

func showEntries(es []store.IndexEntry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%v@%v=%s ", e.Key, e.IndexValue, e.Value)
	}
	return b.String()
}

// testIndexModel runs random puts, overwrites, deletes and batches
// against a map, creating and dropping indexes on the way; after every
// step each ready index yields exactly what the model's data gives, in
// index order, an exact look-up and a paged scan agree with it, and
// CheckIndexes finds nothing. 60 steps at full size, 25 in a quick run
// or with -short.
func testIndexModel(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 16))
	data := map[string]modelRec{}
	live := []idxDef{byID}
	if err := s.CreateIndex(ctx, byID.name, byID.pattern, nil); err != nil {
		t.Fatal(err)
	}
	randKey := func() term.Term {
		if r.IntN(5) == 0 {
			return term.Tuple(term.Atom("item"), term.Tuple(term.Atom(fmt.Sprint("t", r.IntN(3))), term.Int(int64(r.IntN(4)))))
		}
		return orderKey(r.IntN(4), r.IntN(8))
	}
	steps := testsize.Pick(25, 60)
	if testing.Short() {
		steps = 25
	}
	var log []string
	for step := range steps {
		var op string
		switch k := r.IntN(10); {
		case k < 4:
			key, v := randKey(), fmt.Sprint("v", step)
			op = fmt.Sprintf("put %v", key)
			if err := s.Put(ctx, key, []byte(v)); err != nil {
				t.Fatal(err)
			}
			data[key.String()] = modelRec{key, v}
		case k < 6:
			key := randKey()
			op = fmt.Sprintf("delete %v", key)
			if err := s.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			delete(data, key.String())
		case k < 9:
			b := s.NewBatch()
			n := 1 + r.IntN(6)
			op = fmt.Sprintf("batch of %d", n)
			pending := map[string]*modelRec{}
			for i := range n {
				key := randKey()
				if r.IntN(3) == 0 {
					if err := b.Delete(key); err != nil {
						t.Fatal(err)
					}
					pending[key.String()] = nil
				} else {
					v := fmt.Sprint("b", step, ".", i)
					if err := b.Put(key, []byte(v)); err != nil {
						t.Fatal(err)
					}
					pending[key.String()] = &modelRec{key, v}
				}
			}
			if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			for k, rec := range pending {
				if rec == nil {
					delete(data, k)
				} else {
					data[k] = *rec
				}
			}
		default:
			// Create or drop an index over the data there is.
			d := []idxDef{byBoth, byTag}[r.IntN(2)]
			if i := slices.IndexFunc(live, func(x idxDef) bool { return x.name == d.name }); i >= 0 {
				op = "drop " + d.name
				if err := s.DropIndex(ctx, d.name, &store.BuildOptions{Step: 3}); err != nil {
					t.Fatal(err)
				}
				live = slices.Delete(live, i, i+1)
				if _, err := collectIndexErr(s.IndexScan(ctx, d.name, term.Atom("_"), store.IndexScanOptions{})); !errors.Is(err, store.ErrNoIndex) {
					t.Fatalf("scan of a dropped index: %v, want ErrNoIndex", err)
				}
			} else {
				op = "create " + d.name
				if err := s.CreateIndex(ctx, d.name, d.pattern, &store.BuildOptions{Step: 3}); err != nil {
					t.Fatal(err)
				}
				live = append(live, d)
			}
		}
		log = append(log, op)
		for _, d := range live {
			want := modelEntries(t, d, data)
			got := collectIndex(t, s.IndexScan(ctx, d.name, term.Atom("_"), store.IndexScanOptions{}))
			if !sameEntries(got, want, true) {
				t.Fatalf("after %s: index %s yields\n%s\nwant\n%s", strings.Join(log, "; "), d.name, showEntries(got), showEntries(want))
			}
			rev := collectIndex(t, s.IndexScan(ctx, d.name, term.Atom("_"), store.IndexScanOptions{Reverse: true, KeysOnly: true}))
			if slices.Reverse(rev); !sameEntries(rev, want, false) {
				t.Fatalf("after %s: index %s in reverse yields %s", strings.Join(log, "; "), d.name, showEntries(rev))
			}
			if len(want) > 0 {
				// An exact look-up of one value.
				v := want[r.IntN(len(want))].IndexValue
				var exact []store.IndexEntry
				for _, e := range want {
					if term.Equal(e.IndexValue, v) {
						exact = append(exact, e)
					}
				}
				if got := collectIndex(t, s.IndexScan(ctx, d.name, v, store.IndexScanOptions{})); !sameEntries(got, exact, true) {
					t.Fatalf("after %s: look-up of %v in %s yields %s, want %s", strings.Join(log, "; "), v, d.name, showEntries(got), showEntries(exact))
				}
			}
		}
		res, err := s.CheckIndexes(ctx, store.IndexCheckOptions{OnProblem: func(p store.IndexProblem) {
			t.Errorf("after %s: CheckIndexes: %s in %q: %v", strings.Join(log, "; "), p.Kind, p.Index, p.Key)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Clean() || res.Indexes != len(live) {
			t.Fatalf("CheckIndexes = %+v, want clean with %d indexes", res, len(live))
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	// Paging with tokens, both directions, gives the whole index.
	for _, d := range live {
		want := modelEntries(t, d, data)
		for _, reverse := range []bool{false, true} {
			var got []store.IndexEntry
			after := ""
			for pages := 0; ; pages++ {
				page := collectIndex(t, s.IndexScan(ctx, d.name, term.Atom("_"), store.IndexScanOptions{Limit: 3, Reverse: reverse, After: after}))
				got = append(got, page...)
				if len(page) < 3 {
					break
				}
				after = page[len(page)-1].Continuation()
				if pages > len(want) {
					t.Fatal("paging does not end")
				}
			}
			if reverse {
				slices.Reverse(got)
			}
			if !sameEntries(got, want, true) {
				t.Errorf("index %s paged (reverse %v): %s, want %s", d.name, reverse, showEntries(got), showEntries(want))
			}
		}
	}
	// Everything data-facing skips the reserved range.
	n := 0
	for _, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{OnBadKey: func(k []byte, err error) { t.Errorf("full scan reported %x as foreign", k) }}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(data) {
		t.Errorf("full scan yields %d keys, want %d", n, len(data))
	}
	if res, err := s.Check(ctx, store.CheckOptions{}); err != nil || !res.Clean() || res.Keys != int64(len(data)) {
		t.Errorf("Check = %+v, %v; want clean with %d keys", res, err, len(data))
	}
}

func collectIndexErr(seq func(func(store.IndexEntry, error) bool)) ([]store.IndexEntry, error) {
	var out []store.IndexEntry
	for e, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// testIndexBuildRace builds an index over stored keys while a writer
// puts and deletes keys the build is reading; the index must come out
// exactly right.
func testIndexBuildRace(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	const n = 600
	b := s.NewBatch()
	for i := range n {
		if err := b.Put(orderKey(i%7, i), []byte("x")); err != nil {
			t.Fatal(err)
		}
		if b.Len() >= 100 {
			if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			b = s.NewBatch()
		}
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var werr error
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := r.IntN(n + 100)
			var err error
			if r.IntN(2) == 0 {
				err = s.Delete(ctx, orderKey(id%7, id))
			} else {
				err = s.Put(ctx, orderKey(id%7, id), []byte(fmt.Sprint("w", i)))
			}
			if err != nil {
				werr = err
				return
			}
		}
	}()
	err := s.CreateIndex(ctx, byID.name, byID.pattern, &store.BuildOptions{Step: 20})
	close(stop)
	wg.Wait()
	if err != nil || werr != nil {
		t.Fatalf("CreateIndex: %v; writer: %v", err, werr)
	}
	res, err := s.CheckIndexes(ctx, store.IndexCheckOptions{OnProblem: func(p store.IndexProblem) {
		t.Errorf("%s: %v", p.Kind, p.Key)
	}})
	if err != nil || !res.Clean() {
		t.Fatalf("CheckIndexes after a build beside a writer = %+v, %v", res, err)
	}
	var keys []term.Term
	for e, err := range s.Scan(ctx, term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_")), store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, e.Key)
	}
	got := collectIndex(t, s.IndexScan(ctx, byID.name, term.Atom("_"), store.IndexScanOptions{KeysOnly: true}))
	if len(got) != len(keys) {
		t.Fatalf("index holds %d keys, the data %d", len(got), len(keys))
	}
	t.Logf("%d keys indexed beside a writer", len(got))
}

// testIndexErrors: bad definitions, unknown names, a second index of a
// name, tokens of another scan; and check with Fix repairs an index
// that raw writes broke.
func testIndexErrors(t *testing.T, open func(t *testing.T) store.KV) {
	s, kv := newStoreKV(t, open)
	if err := s.CreateIndex(ctx, "none", term.Tuple(term.Atom("order"), term.Atom("_")), nil); !errors.Is(err, store.ErrIndexPattern) {
		t.Errorf("index without a variable: %v, want ErrIndexPattern", err)
	}
	if err := s.CreateIndex(ctx, "", byID.pattern, nil); !errors.Is(err, store.ErrIndexPattern) {
		t.Errorf("index without a name: %v, want ErrIndexPattern", err)
	}
	if err := s.DropIndex(ctx, "nope", nil); !errors.Is(err, store.ErrNoIndex) {
		t.Errorf("drop of an unknown index: %v, want ErrNoIndex", err)
	}
	if _, err := collectIndexErr(s.IndexScan(ctx, "nope", term.Atom("_"), store.IndexScanOptions{})); !errors.Is(err, store.ErrNoIndex) {
		t.Errorf("scan of an unknown index: %v, want ErrNoIndex", err)
	}
	for i := range 10 {
		if err := s.Put(ctx, orderKey(i%3, i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateIndex(ctx, byID.name, byID.pattern, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateIndex(ctx, byID.name, byBoth.pattern, nil); !errors.Is(err, store.ErrIndexExists) {
		t.Errorf("second index of a name: %v, want ErrIndexExists", err)
	}
	page := collectIndex(t, s.IndexScan(ctx, byID.name, term.Atom("_"), store.IndexScanOptions{Limit: 2}))
	tok := page[1].Continuation()
	if _, err := collectIndexErr(s.IndexScan(ctx, byID.name, term.Int(3), store.IndexScanOptions{After: tok})); !errors.Is(err, store.ErrTokenMismatch) {
		t.Errorf("token of another scan: %v, want ErrTokenMismatch", err)
	}
	if _, err := collectIndexErr(s.IndexScan(ctx, byID.name, term.Atom("_"), store.IndexScanOptions{After: tok, Reverse: true})); !errors.Is(err, store.ErrTokenMismatch) {
		t.Errorf("token of the other direction: %v, want ErrTokenMismatch", err)
	}
	if _, err := collectIndexErr(s.IndexScan(ctx, byID.name, term.Atom("_"), store.IndexScanOptions{After: tok[:len(tok)-2]})); !errors.Is(err, store.ErrToken) {
		t.Errorf("token cut short: %v, want ErrToken", err)
	}
	// Index ranges are half-open: 3 up to, not including, 6.
	for _, c := range []struct {
		r    store.ValueRange
		want int
	}{
		{store.ValueRange{From: term.Int(3), Before: term.Int(6)}, 3},
		{store.ValueRange{From: term.Int(3), Before: term.Int(3)}, 0},
		{store.ValueRange{From: term.Int(6), Before: term.Int(3)}, 0},
		{store.ValueRange{From: term.Int(8), Before: term.Atom("_")}, 0},  // '_' is below every value
		{store.ValueRange{From: term.Int(8), Before: term.Atom("a")}, 2},  // numbers sort below atoms
		{store.ValueRange{From: term.Atom("_"), Before: term.Int(2)}, 2},  // from the first value
		{store.ValueRange{From: term.Int(2), Before: term.Float(4.5)}, 3}, // 2, 3, 4
		{store.ValueRange{From: term.Float(2.5), Before: term.Int(4)}, 1}, // 3
	} {
		if got := collectIndex(t, s.IndexScanRange(ctx, byID.name, c.r, store.IndexScanOptions{KeysOnly: true})); len(got) != c.want {
			t.Errorf("IndexScanRange(%v) yields %d entries, want %d", c.r, len(got), c.want)
		}
	}

	// Break the index with raw writes: a data key without its entry,
	// an entry without data, a stale entry, a foreign reserved key.
	wb := kv.NewBatch()
	wb.Set(must(t, orderKey(9, 100)), []byte("raw")) // no entry
	wb.Delete(must(t, orderKey(1, 1)))               // its entry stays
	stale := append([]byte{0}, must(t, term.Tuple(term.Atom("index"), term.Binary([]byte(byID.name)), term.Int(99), orderKey(2, 2)))...)
	wb.Set(stale, nil)
	wb.Set([]byte{0, 1, 2}, nil)
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	res, err := s.CheckIndexes(ctx, store.IndexCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Missing != 1 || res.Orphans != 1 || res.Stale != 1 || res.Foreign != 1 || res.Clean() {
		t.Errorf("CheckIndexes = %+v, want one missing, orphan, stale and foreign", res)
	}
	res, err = s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: true})
	if err != nil || res.Fixed != 3 {
		t.Errorf("CheckIndexes with Fix = %+v, %v; want 3 fixed", res, err)
	}
	res, err = s.CheckIndexes(ctx, store.IndexCheckOptions{})
	if err != nil || res.Missing+res.Orphans+res.Stale != 0 || res.Foreign != 1 {
		t.Errorf("CheckIndexes after Fix = %+v, %v; want only the foreign key left", res, err)
	}
}
