package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// runMigrateSuite runs Migrate's tests that any backend must pass, in
// the manner of storetest.Run: the model property with crashes, on the
// KVs openModel returns, and a migration beside readers and writers, on
// openRace's. Each returns a new, empty KV each call.
func runMigrateSuite(t *testing.T, openModel, openRace func(t *testing.T) store.KV) {
	t.Run("Model", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			checkMigrateModel(rt, func() seam.KV { return storetest.Checked(t, openModel(t)) })
		})
	})
	t.Run("Concurrent", func(t *testing.T) { testMigrateConcurrent(t, openRace) })
}

// orderKey is {order, Cust, Time, Id} in the old layout, with #Desc<Time>
// in the new.
func orderKey(id int, desc bool) term.Term {
	ts := term.Int(int64(1700000000 + id*7%1000))
	if desc {
		ts = term.Desc(ts)
	}
	return term.Tuple(term.Atom("order"), term.Int(int64(id%13)), ts, term.Int(int64(id)))
}

// testMigrateConcurrent migrates orders to #Desc timestamps while
// readers scan, select and read the index, and writers write: one writer
// puts the new key of some orders before the migration reaches them
// (each a conflict, its old key left), one keeps overwriting the old key
// of others (each write must survive, in the old key or carried to the
// new). A third of the orders no writer touches: every reader sees each
// of them exactly once, in one layout or the other, with its value,
// since each step is one atomic write and each read one snapshot.
// Afterwards a second run moves nothing and finds as conflicts exactly
// the old keys left, and the index checks clean.
func testMigrateConcurrent(t *testing.T, open func(t *testing.T) store.KV) {
	ctx := context.Background()
	const n = 600
	slow := &crashKV{KV: storetest.Checked(t, open(t))}
	s := store.New(slow, nil)
	defer s.Close()
	if err := s.CreateIndex(ctx, "by_id", term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	for id := range n {
		b.Put(orderKey(id, false), []byte(fmt.Sprint("v", id)))
		if b.Len() == 50 {
			if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			b = s.NewBatch()
		}
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	spec := matchspec.MustParse(`[{{order,'$1','$2','$3'},[{is_integer,'$2'}],[{{order,'$1',#Desc<'$2'>,'$3'}}]}]`)
	// Slow commits widen each step's time between its reads and its
	// write, where a writer must not slip in unseen.
	slow.delay = 2 * time.Millisecond
	var done atomic.Bool
	var wg sync.WaitGroup
	var failures atomic.Int64
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	var reads atomic.Int64
	// seen checks one reader's view: the untouched orders (id%3 == 2)
	// exactly once each with their value, the others at least once.
	seen := func(what string, ids []int, values map[int]string) {
		count := make([]int, n)
		for _, id := range ids {
			count[id]++
		}
		for id, c := range count {
			if c == 0 || id%3 == 2 && c != 1 {
				fail("%s: order %d seen %d times", what, id, c)
				return
			}
			if v, ok := values[id]; ok && id%3 == 2 && v != fmt.Sprint("v", id) {
				fail("%s: order %d holds %q", what, id, v)
				return
			}
		}
		reads.Add(1)
	}
	idOf := func(k term.Term) int { return int(k.Elems()[3].Int64()) }
	readers := []func(){
		func() {
			var ids []int
			values := map[int]string{}
			for e, err := range s.Scan(ctx, term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("_")), store.ScanOptions{}) {
				if err != nil {
					fail("scan: %v", err)
					return
				}
				ids = append(ids, idOf(e.Key))
				values[idOf(e.Key)] = string(e.Value)
			}
			seen("scan", ids, values)
		},
		func() {
			var ids []int
			for e, err := range s.IndexScan(ctx, "by_id", term.Atom("_"), store.IndexScanOptions{KeysOnly: true}) {
				if err != nil {
					fail("index scan: %v", err)
					return
				}
				if idOf(e.Key) != int(e.IndexValue.Int64()) {
					fail("index scan: %v under %v", e.Key, e.IndexValue)
				}
				ids = append(ids, idOf(e.Key))
			}
			seen("index scan", ids, nil)
		},
		func() {
			var ids []int
			for row, err := range s.Select(ctx, matchspec.MustParse(`[{{order,'_','_','$1'},[],['$1']}]`), store.SelectOptions{}) {
				if err != nil {
					fail("select: %v", err)
					return
				}
				ids = append(ids, int(row.Result.Term.Int64()))
			}
			seen("select", ids, nil)
		},
	}
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				readers[i]()
			}
		}()
	}
	// Writers: new keys of ids%3 == 0, old keys of ids%3 == 1 overwritten.
	var mu sync.Mutex
	latest := map[int]string{} // the last value written to an order's old key
	wrote := map[int]string{}  // the last value written to an order's new key
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for k := 0; !done.Load(); k++ {
				id := 3*r.IntN(n/3) + w
				v := fmt.Sprintf("w%d.%d", id, k)
				mu.Lock() // the write and its record as one, so the last recorded is the last written
				err := s.Put(ctx, orderKey(id, w == 0), []byte(v))
				if w == 0 {
					wrote[id] = v
				} else {
					latest[id] = v
				}
				mu.Unlock()
				if err != nil {
					fail("put: %v", err)
					return
				}
			}
		}()
	}
	// After its first step the migration waits until a read begun after
	// that step has finished, so that one sees a half-migrated store
	// however loaded the machine (left to the scheduler, the 24 steps
	// could all end first): with each reader mid-read at most, that is
	// one more read finished than there are readers.
	readBeside, from, end := false, int64(0), time.Time{} // end: one minute in all, not one a step
	wait := func(store.MigrateResult) {
		if end.IsZero() {
			from, end = reads.Load()+int64(len(readers)), time.Now().Add(time.Minute)
		}
		for !readBeside && failures.Load() == 0 && time.Now().Before(end) {
			if readBeside = reads.Load() > from; !readBeside {
				time.Sleep(time.Millisecond)
			}
		}
	}
	res, err := s.Migrate(ctx, spec, store.MigrateOptions{Step: 25, Progress: wait})
	done.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Migrated == 0 || !res.Done {
		t.Fatalf("migration: %+v", res)
	}
	again, err := s.Migrate(ctx, spec, store.MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	oldLeft := 0
	final := map[string]string{}
	for e, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		final[e.Key.String()] = string(e.Value)
		if e.Key.Elems()[2].Kind() != term.KindDesc {
			oldLeft++
		}
	}
	if again.Migrated != 0 || again.Conflicts != int64(oldLeft) {
		t.Errorf("second run: %+v; %d old keys are left", again, oldLeft)
	}
	for id := range n {
		oldV, hasOld := final[orderKey(id, false).String()]
		newV, hasNew := final[orderKey(id, true).String()]
		switch {
		case !hasNew:
			t.Errorf("order %d has no new key (old: %v)", id, hasOld)
		case id%3 == 0 && wrote[id] != "" && newV != wrote[id]:
			t.Errorf("order %d: the new key holds %q, not the last written %q", id, newV, wrote[id])
		case id%3 == 1 && latest[id] != "" && oldV != latest[id] && newV != latest[id]:
			t.Errorf("order %d: the last value written, %q, is lost (old %q, new %q)", id, latest[id], oldV, newV)
		case id%3 == 2 && (hasOld || newV != fmt.Sprint("v", id)):
			t.Errorf("order %d: old key %v, new key holds %q", id, hasOld, newV)
		}
	}
	indexClean(t, s)
	if !readBeside {
		t.Errorf("no read finished during the migration")
	}
	t.Logf("migration of %d orders: %d moved, %d conflicts, %d steps; %d whole reads beside it, checked; %d old keys left as conflicts",
		n, res.Migrated, res.Conflicts, res.Steps, reads.Load(), oldLeft)
}

// TestMigrateSuitePebble runs the suite on Pebble.
func TestMigrateSuitePebble(t *testing.T) {
	open := func(t *testing.T) store.KV {
		kv, err := pebblekv.Open(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return kv
	}
	runMigrateSuite(t, open, open)
}

var migratePrefixes atomic.Int64

// TestMigrateSuiteEtcd runs the suite on etcd, the model on the model
// cluster and the rest on the three-member race cluster, both of which
// keep etcd's default of 128 operations a transaction, which the default
// step must fit, each store in a key prefix of its own.
func TestMigrateSuiteEtcd(t *testing.T) {
	t.Parallel() // beside TestTableEtcd: each waits on etcd
	opener := func(cluster func(*testing.T) *etcdcluster.Cluster) func(t *testing.T) store.KV {
		return func(t *testing.T) store.KV {
			kv, err := etcdkv.Open(etcdkv.Options{Endpoints: cluster(t).Endpoints(), Prefix: fmt.Appendf(nil, "migrate/%d/", migratePrefixes.Add(1))})
			if err != nil {
				t.Fatal(err)
			}
			return kv
		}
	}
	open := opener(raceCluster)
	runMigrateSuite(t, opener(modelCluster), open)
	t.Run("DefaultStep", func(t *testing.T) {
		ctx := context.Background()
		s := store.New(open(t), nil)
		defer s.Close()
		for _, ix := range []string{"{order,'$1','_','_'}", "{order,'_','_','$1'}"} {
			if err := s.CreateIndex(ctx, "by"+ix, mustTerm(t, ix), nil); err != nil {
				t.Fatal(err)
			}
		}
		for from := 0; from < 100; from += 40 { // 3 writes a key: 120 a transaction
			b := s.NewBatch()
			for id := from; id < min(from+40, 100); id++ {
				b.Put(orderKey(id, false), []byte("v"))
			}
			if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.Migrate(ctx, matchspec.MustParse(descSpec), store.MigrateOptions{})
		if err != nil || res.Migrated != 100 || res.Steps != 6 {
			t.Fatalf("%+v %v: want 100 keys moved in steps of 20 (2 writes and 2 an index, within 128)", res, err)
		}
		indexClean(t, s)
	})
}
