// Package storetest is the conformance suite for backends of package
// store: anything that implements store.KV must pass Run. It checks the
// seam itself (bounds, directions, batches, copies) and then the term
// store on top of it: scans in term order, equal to a brute-force filter
// for random patterns, and foreign keys skipped; then every read and scan
// beside writers and every maintenance call, each answer checked against
// a model, for STORE_CONC_DURATION (2s at full size and 1s in a quick run
// by default; "60s" for a long run).
// Every KV it opens is wrapped with Checked, which fails the test on any
// misuse of the backend's cursors and batches.
//
// The suite runs at full size under CI (CI=true) or with
// SEXT_TEST_SIZE=full, and smaller elsewhere (SEXT_TEST_SIZE=quick, the
// default): a quarter of NumKeys, a third of RunSelect's default keys
// and specifications, fewer steps of the index model, half the time for
// the concurrency test and half the rounds of binary-prefix reads beside
// writers. Every check runs at either size.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.KV { return openMyBackend(t) })
//	}
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// ctx is the context of the suite's calls: a conformance test checks
// what a call does, not how it is cancelled (backends test that).
var ctx = context.Background()

// NumKeys is the number of random keys the ordering and pattern tests
// store at full size; a quick run stores a quarter of them.
const NumKeys = 10000

// numKeys is the number of keys this run's ordering and pattern tests
// store.
func numKeys() int { return testsize.Pick(NumKeys/4, NumKeys) }

// Run runs the suite. open must return a new, empty KV each time it is
// called; Run closes it and fails the test if Close reports an error (for
// Pebble, an iterator left open). Every KV open returns is wrapped with
// Checked, so a misuse of a cursor or a batch (a double Close, a use
// after Close, an iterator left open) fails the test too.
func Run(t *testing.T, open func(t *testing.T) store.KV) {
	open = checkedOpen(open)
	t.Run("KV", func(t *testing.T) { testKV(t, open) })
	t.Run("Store", func(t *testing.T) { testStore(t, open) })
	t.Run("Context", func(t *testing.T) { testContext(t, open) })
	t.Run("Index", func(t *testing.T) { testIndexes(t, open) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, open) })
}

// RunKV runs the suite's checks of the seam alone (bounds, directions,
// batches, copies), which Run runs first. A backend whose stores live in
// key prefixes of a shared keyspace runs it once more on a store with no
// prefix, so that raw keys such as "\x00" and "\xff\xff" and unbounded
// ranges meet the keyspace's own edges.
func RunKV(t *testing.T, open func(t *testing.T) store.KV) {
	testKV(t, checkedOpen(open))
}

// newStore wraps a fresh KV in a Store that is closed, and checked, when
// the test ends.
func newStore(t *testing.T, open func(t *testing.T) store.KV) *store.Store {
	s, _ := newStoreKV(t, open)
	return s
}

// newStoreKV is newStore, and the KV under the store, for tests that
// write raw bytes beside it as another program might.
func newStoreKV(t *testing.T, open func(t *testing.T) store.KV) (*store.Store, store.KV) {
	kv := open(t)
	s := store.New(kv, nil)
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return s, kv
}

func testKV(t *testing.T, open func(t *testing.T) store.KV) {
	kv := open(t)
	defer func() {
		if err := kv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	commit := func(set map[string]string, del ...string) {
		t.Helper()
		b := kv.NewBatch()
		defer b.Close()
		for _, k := range slices.Sorted(maps.Keys(set)) {
			if err := b.Set([]byte(k), []byte(set[k])); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range del {
			if err := b.Delete([]byte(k)); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := b.Count(), len(set)+len(del); got != want {
			t.Errorf("Count = %d, want %d", got, want)
		}
		if err := b.Commit(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	get := func(k string) (string, error) {
		t.Helper()
		v, err := kv.Get(ctx, []byte(k))
		return string(v), err
	}

	if _, err := get("missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(missing) error = %v, want ErrNotFound", err)
	}

	// Uncommitted and discarded batches leave nothing.
	b := kv.NewBatch()
	b.Set([]byte("x"), []byte("1"))
	if _, err := get("x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("uncommitted write visible: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := get("x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("discarded write visible: %v", err)
	}

	keys := map[string]string{"a": "1", "ab": "2", "b": "3", "b\x00": "4", "b\xff": "5", "c": "", "\xff\xff": "6", "\x00": "7"}
	commit(keys)
	for k, want := range keys {
		if v, err := get(k); err != nil || v != want {
			t.Errorf("Get(%q) = %q, %v; want %q", k, v, err, want)
		}
	}
	// Get returns a copy.
	v, _ := kv.Get(ctx, []byte("a"))
	v[0] = 'X'
	if v, _ := get("a"); v != "1" {
		t.Errorf("changing Get's result changed the store: %q", v)
	}

	commit(map[string]string{"a": "overwritten"}, "ab", "nothing-here")
	if v, _ := get("a"); v != "overwritten" {
		t.Errorf("Get(a) after overwrite = %q", v)
	}
	if _, err := get("ab"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(ab) after delete: %v", err)
	}

	all := []string{"\x00", "a", "b", "b\x00", "b\xff", "c", "\xff\xff"}
	for _, c := range []struct {
		lower, upper []byte
		want         []string
	}{
		{nil, nil, all},
		{[]byte("b"), nil, all[2:]},
		{nil, []byte("b"), all[:2]},
		{[]byte("b"), []byte("c"), all[2:5]},
		{[]byte("a\x00"), []byte("b\x00"), all[2:3]},
		{[]byte("bb"), []byte("bc"), nil},
		{[]byte("\xff\xff"), nil, all[6:]},
	} {
		for _, reverse := range []bool{false, true} {
			want := slices.Clone(c.want)
			if reverse {
				slices.Reverse(want)
			}
			got := iterKeys(t, kv, c.lower, c.upper, reverse)
			if !slices.Equal(got, want) {
				t.Errorf("NewIter(%q, %q, reverse=%v) = %q, want %q", c.lower, c.upper, reverse, got, want)
			}
		}
	}

	// Values come with their keys, and closing early is fine.
	it, err := kv.NewIter(ctx, []byte("c"), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !it.Next() || string(it.Key()) != "c" || len(it.Value()) != 0 {
		t.Errorf("first of [c, ∞) = %q %q", it.Key(), it.Value())
	}
	if !it.Next() || string(it.Key()) != "\xff\xff" || string(it.Value()) != "6" {
		t.Errorf("second of [c, ∞) = %q %q", it.Key(), it.Value())
	}
	if err := it.Close(); err != nil {
		t.Error(err)
	}
}

func iterKeys(t *testing.T, kv store.KV, lower, upper []byte, reverse bool) []string {
	t.Helper()
	it, err := kv.NewIter(ctx, lower, upper, reverse)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for it.Next() {
		out = append(out, string(it.Key()))
	}
	if err := it.Err(); err != nil {
		t.Error(err)
	}
	if err := it.Close(); err != nil {
		t.Error(err)
	}
	return out
}

// record is a stored key with its encoding and value.
type record struct {
	key   term.Term
	enc   []byte
	value []byte
}

// fill stores numKeys distinct random keys in batches and returns them
// in term order.
func fill(t *testing.T, s *store.Store, g *Gen) []record {
	seen := map[string]bool{}
	var recs []record
	l := newLoader(t, s, 1000)
	for n := numKeys(); len(recs) < n; {
		k := g.Key()
		enc, err := sext.Encode(k)
		if err != nil {
			t.Fatalf("Encode(%v): %v", k, err)
		}
		if seen[string(enc)] {
			continue
		}
		seen[string(enc)] = true
		v := fmt.Appendf(nil, "v%d", len(recs))
		recs = append(recs, record{k, enc, v})
		l.put(k, v)
	}
	l.done()
	slices.SortFunc(recs, func(a, b record) int { return term.Compare(a.key, b.key) })
	return recs
}

// loader writes keys in batches of at most per writes, each applied
// once full and the last by done.
type loader struct {
	t   *testing.T
	s   *store.Store
	b   *store.Batch
	per int
}

func newLoader(t *testing.T, s *store.Store, per int) *loader {
	return &loader{t: t, s: s, b: s.NewBatch(), per: per}
}

func (l *loader) put(k term.Term, v []byte) {
	l.t.Helper()
	if err := l.b.Put(k, v); err != nil {
		l.t.Fatal(err)
	}
	if l.b.Len() >= l.per {
		l.done()
		l.b = l.s.NewBatch()
	}
}

func (l *loader) done() {
	l.t.Helper()
	if err := l.s.Apply(ctx, l.b); err != nil {
		l.t.Fatal(err)
	}
}

// collect runs a scan to its end.
func collect(t *testing.T, seq func(func(store.Entry, error) bool)) []store.Entry {
	t.Helper()
	var out []store.Entry
	for e, err := range seq {
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		out = append(out, e)
	}
	return out
}

func testStore(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	g := NewGen(1)
	recs := fill(t, s, g)

	t.Run("Order", func(t *testing.T) {
		for i := 1; i < len(recs); i++ {
			if bytes.Compare(recs[i-1].enc, recs[i].enc) >= 0 {
				t.Fatalf("term order and byte order differ: %v then %v", recs[i-1].key, recs[i].key)
			}
		}
		for _, reverse := range []bool{false, true} {
			got := collect(t, s.Scan(ctx, term.Atom("_"), store.ScanOptions{Reverse: reverse}))
			if len(got) != len(recs) {
				t.Fatalf("full scan (reverse=%v) yielded %d entries, want %d", reverse, len(got), len(recs))
			}
			for i, e := range got {
				r := recs[i]
				if reverse {
					r = recs[len(recs)-1-i]
				}
				if !term.Equal(e.Key, r.key) || !bytes.Equal(e.Value, r.value) {
					t.Fatalf("full scan (reverse=%v) entry %d = %v %q, want %v %q", reverse, i, e.Key, e.Value, r.key, r.value)
				}
			}
		}
	})

	t.Run("Get", func(t *testing.T) {
		for i := 0; i < len(recs); i += 97 {
			v, err := s.Get(ctx, recs[i].key)
			if err != nil || !bytes.Equal(v, recs[i].value) {
				t.Errorf("Get(%v) = %q, %v; want %q", recs[i].key, v, err, recs[i].value)
			}
		}
	})

	t.Run("Patterns", func(t *testing.T) {
		g := NewGen(2)
		patterns := []term.Term{term.Atom("_"), term.Atom("$1"), term.Tuple(term.Atom("a"), term.Atom("_")),
			term.Tuple(term.Atom("$1"), term.Atom("$1")), term.Tuple(term.Atom("order"), term.Atom("$1"), term.Atom("$1"))}
		for range 150 {
			patterns = append(patterns, g.Pattern(recs[g.R.IntN(len(recs))].key))
		}
		for range 20 {
			patterns = append(patterns, g.Pattern(g.Key()))
		}
		for _, p := range patterns {
			var want []record
			for _, r := range recs {
				if _, ok := sext.Match(p, r.key); ok {
					want = append(want, r)
				}
			}
			limit := []int{0, 1, 3, 1 + g.R.IntN(50)}[g.R.IntN(4)]
			for _, reverse := range []bool{false, true} {
				w := slices.Clone(want)
				if reverse {
					slices.Reverse(w)
				}
				if limit > 0 && len(w) > limit {
					w = w[:limit]
				}
				got := collect(t, s.Scan(ctx, p, store.ScanOptions{Reverse: reverse, Limit: limit}))
				checkEntries(t, fmt.Sprintf("Scan(%v, reverse=%v, limit=%d)", p, reverse, limit), got, w)
				for _, e := range got {
					if bs, _ := sext.Match(p, e.Key); !slices.EqualFunc(bs, e.Bindings, func(a, b sext.Binding) bool {
						return a.Name == b.Name && term.Equal(a.Value, b.Value)
					}) {
						t.Errorf("Scan(%v): bindings of %v = %v, want %v", p, e.Key, e.Bindings, bs)
					}
				}
			}
		}
	})

	t.Run("Range", func(t *testing.T) {
		g := NewGen(3)
		for range 60 {
			from := g.Pattern(recs[g.R.IntN(len(recs))].key)
			to := g.Pattern(recs[g.R.IntN(len(recs))].key)
			lowerFrom, _, err := sext.PrefixRange(from)
			if err != nil {
				t.Fatal(err)
			}
			_, upperTo, err := sext.PrefixRange(to)
			if err != nil {
				t.Fatal(err)
			}
			var want []record
			for _, r := range recs {
				if bytes.Compare(r.enc, lowerFrom) >= 0 && (upperTo == nil || bytes.Compare(r.enc, upperTo) < 0) {
					want = append(want, r)
				}
			}
			// In term order: every key from the first that matches from
			// to the last that matches to is in the range.
			first, last := -1, -1
			for i, r := range recs {
				if _, ok := sext.Match(from, r.key); ok && first < 0 {
					first = i
				}
				if _, ok := sext.Match(to, r.key); ok {
					last = i
				}
			}
			if first >= 0 && last >= first {
				inRange := make(map[string]bool, len(want))
				for _, r := range want {
					inRange[string(r.enc)] = true
				}
				for _, r := range recs[first : last+1] {
					if !inRange[string(r.enc)] {
						t.Fatalf("ScanRange(%v, %v) misses %v", from, to, r.key)
					}
				}
			}
			for _, reverse := range []bool{false, true} {
				w := slices.Clone(want)
				if reverse {
					slices.Reverse(w)
				}
				got := collect(t, s.ScanRange(ctx, from, to, store.ScanOptions{Reverse: reverse}))
				checkEntries(t, fmt.Sprintf("ScanRange(%v, %v, reverse=%v)", from, to, reverse), got, w)
			}
		}
	})

	t.Run("EarlyBreak", func(t *testing.T) {
		n := 0
		for _, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 5 {
				break
			}
		}
		// A panic in the loop body must close the iterator too; the
		// Store's Close at cleanup reports any iterator left open.
		func() {
			defer func() { recover() }()
			for range s.Scan(ctx, term.Atom("_"), store.ScanOptions{KeysOnly: true}) {
				panic("boom")
			}
		}()
	})

	t.Run("BadKeys", func(t *testing.T) { testBadKeys(t, open) })
	t.Run("Batches", func(t *testing.T) { testBatches(t, open) })
	t.Run("Check", func(t *testing.T) { testCheck(t, open) })
}

func checkEntries(t *testing.T, what string, got []store.Entry, want []record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s yielded %d entries, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !term.Equal(got[i].Key, want[i].key) || !bytes.Equal(got[i].Value, want[i].value) {
			t.Fatalf("%s entry %d = %v %q, want %v %q", what, i, got[i].Key, got[i].Value, want[i].key, want[i].value)
		}
	}
}

// testBadKeys writes keys that are not sext encodings straight through
// the seam, as another program sharing the store might.
func testBadKeys(t *testing.T, open func(t *testing.T) store.KV) {
	s, kv := newStoreKV(t, open)
	good := []term.Term{
		term.Tuple(term.Atom("a"), term.Int(1)),
		term.Tuple(term.Atom("a"), term.Int(2)),
		term.Tuple(term.Atom("b"), term.Int(1)),
	}
	for _, k := range good {
		if err := s.Put(ctx, k, []byte("ok")); err != nil {
			t.Fatal(err)
		}
	}
	enc, _ := sext.Encode(good[1])
	bad := [][]byte{
		{0x01},                       // no such tag (0x00 starts the store's reserved range)
		enc[:len(enc)-1],             // {a, 2} cut short: sorts inside {a, '_'}
		append(slices.Clone(enc), 0), // {a, 2} with a trailing byte
		{0x10, 0, 0, 0, 9},           // a tuple that promises 9 elements
		{0xff, 0xfe},
	}
	wb := kv.NewBatch()
	for _, k := range bad {
		if err := wb.Set(k, []byte("foreign")); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()

	slices.SortFunc(bad, bytes.Compare)
	for _, reverse := range []bool{false, true} {
		var reported [][]byte
		opts := store.ScanOptions{Reverse: reverse, OnBadKey: func(k []byte, err error) {
			if err == nil {
				t.Errorf("OnBadKey(%x) without an error", k)
			}
			reported = append(reported, k)
		}}
		got := collect(t, s.Scan(ctx, term.Atom("_"), opts))
		if len(got) != len(good) {
			t.Errorf("full scan with foreign keys yielded %d entries, want %d", len(got), len(good))
		}
		want := slices.Clone(bad)
		if reverse {
			slices.Reverse(want)
		}
		if !slices.EqualFunc(reported, want, bytes.Equal) {
			t.Errorf("reported bad keys %x, want %x", reported, want)
		}

		reported = nil
		got = collect(t, s.Scan(ctx, term.Tuple(term.Atom("a"), term.Atom("_")), opts))
		if len(got) != 2 || len(reported) != 2 {
			t.Errorf("Scan({a,'_'}) yielded %d entries and reported %x; want 2 and the two {a,2} look-alikes", len(got), reported)
		}
	}
	// Without OnBadKey they are skipped quietly.
	if got := collect(t, s.Scan(ctx, term.Atom("_"), store.ScanOptions{})); len(got) != len(good) {
		t.Errorf("full scan yielded %d entries, want %d", len(got), len(good))
	}
}

func testBatches(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	count := func() int { return len(collect(t, s.Scan(ctx, term.Atom("_"), store.ScanOptions{KeysOnly: true}))) }
	key := func(i int) term.Term { return term.Tuple(term.Atom("k"), term.Int(int64(i))) }

	// A batch spoiled by a key that cannot be encoded writes nothing.
	b := s.NewBatch()
	for i := range 100 {
		if err := b.Put(key(i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	nan := term.Tuple(term.Atom("k"), term.Float(math.NaN()))
	if err := b.Put(nan, nil); !errors.Is(err, sext.ErrUnencodable) {
		t.Fatalf("Put(NaN key) error = %v, want ErrUnencodable", err)
	}
	if err := b.Put(key(100), nil); err == nil {
		t.Error("Put after a failed Put succeeded")
	}
	if err := s.Apply(ctx, b); !errors.Is(err, sext.ErrUnencodable) {
		t.Errorf("Apply(spoiled batch) error = %v, want ErrUnencodable", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("spoiled batch left %d keys", n)
	}

	// A discarded batch writes nothing and cannot be applied.
	b = s.NewBatch()
	b.Put(key(1), []byte("v"))
	b.Close()
	if err := s.Apply(ctx, b); !errors.Is(err, store.ErrBatchClosed) {
		t.Errorf("Apply(discarded) error = %v, want ErrBatchClosed", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("discarded batch left %d keys", n)
	}

	// Nothing is visible before Apply; everything after.
	b = s.NewBatch()
	for i := range 50 {
		b.Put(key(i), []byte("v"))
	}
	b.Delete(key(7))
	if n := count(); n != 0 {
		t.Fatalf("unapplied batch visible: %d keys", n)
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 49 {
		t.Fatalf("after Apply: %d keys, want 49", n)
	}
	if err := s.Apply(ctx, b); !errors.Is(err, store.ErrBatchClosed) {
		t.Errorf("second Apply error = %v, want ErrBatchClosed", err)
	}
	if err := b.Put(key(99), nil); !errors.Is(err, store.ErrBatchClosed) {
		t.Errorf("Put after Apply error = %v, want ErrBatchClosed", err)
	}

	// Single writes.
	if err := s.Delete(ctx, key(8)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, key(8)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete error = %v, want ErrNotFound", err)
	}
	if err := s.Put(ctx, key(8), []byte("back")); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(ctx, key(8)); err != nil || string(v) != "back" {
		t.Errorf("Get = %q, %v", v, err)
	}
	if err := s.Put(ctx, nan, nil); !errors.Is(err, sext.ErrUnencodable) {
		t.Errorf("Put(NaN) error = %v", err)
	}
}
