package etcdkv_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// TestIndexes checks what only a store shared by processes can get
// wrong: two Stores on one cluster (two processes, as far as the index
// definitions go) and a leader killed in the middle of a load.
func TestIndexes(t *testing.T) {
	t.Parallel()
	c := etcdcluster.Start(t, etcdcluster.Options{})
	t.Run("TwoStores", func(t *testing.T) { testIndexTwoStores(t, c) })
	t.Run("LeaderKilled", func(t *testing.T) { testIndexLeaderKilled(t, c) })
}

var byLoadID = term.Tuple(term.Atom("load"), term.Atom("$1"))

// checkIndex fails the test unless CheckIndexes finds nothing and the
// index holds as many keys as a scan of the data finds.
func checkIndex(t *testing.T, s *store.Store, name string, pattern term.Term) int {
	t.Helper()
	r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{OnProblem: func(p store.IndexProblem) {
		t.Errorf("%s in %s: %v", p.Kind, p.Index, p.Key)
	}})
	if err != nil || !r.Clean() {
		t.Fatalf("CheckIndexes = %+v, %v", r, err)
	}
	data, entries := 0, 0
	for _, err := range s.Scan(ctx, pattern, store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		data++
	}
	for _, err := range s.IndexScan(ctx, name, term.Atom("_"), store.IndexScanOptions{KeysOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		entries++
	}
	if data != entries {
		t.Fatalf("index %s holds %d keys, the data %d", name, entries, data)
	}
	return data
}

// testIndexTwoStores: a Store that loaded the definitions before another
// created an index must still write the new index's entries: its commit
// is conditional on the definitions it used, fails, and is retried with
// the new ones.
func testIndexTwoStores(t *testing.T, c *etcdcluster.Cluster) {
	opts := etcdkv.Options{Prefix: []byte("index-two/")}
	akv := openT(t, c, opts)
	a := store.New(akv, nil)
	b := store.New(openT(t, c, opts), nil)
	if err := b.Put(ctx, loadKey(-1), []byte("b")); err != nil { // b has read the (empty) definitions
		t.Fatal(err)
	}
	rev, err := akv.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CreateIndex(ctx, "by_id", byLoadID, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := b.Put(ctx, loadKey(i), []byte("b")); err != nil {
			t.Fatal(err)
		}
	}
	// A watch of every key sees the data, never the index entries.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	seen := 0
	for ev, err := range akv.Watch(wctx, term.Atom("_"), etcdkv.WatchOptions{FromRevision: rev + 1, OnBadKey: func(k []byte, err error) {
		t.Errorf("watch of '_' reported key %x: %v", k, err)
	}}) {
		if err != nil {
			t.Fatal(err)
		}
		if !term.Equal(ev.Key.Elems()[0], term.Atom("load")) {
			t.Errorf("watch of '_' yielded %v", ev.Key)
		}
		if seen++; seen == 20 {
			break
		}
	}
	if n := checkIndex(t, a, "by_id", term.Tuple(term.Atom("load"), term.Atom("_"))); n != 21 {
		t.Errorf("%d keys, want 21", n)
	}
	// And the other way: a drop by a is seen by b's next write.
	if err := a.DropIndex(ctx, "by_id", nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, loadKey(3)); err != nil {
		t.Fatal(err)
	}
	if list, err := b.Indexes(ctx); err != nil || len(list) != 0 {
		t.Errorf("b's indexes after a's drop: %v, %v", list, err)
	}
	if r, err := b.CheckIndexes(ctx, store.IndexCheckOptions{}); err != nil || !r.Clean() || r.Entries != 0 {
		t.Errorf("CheckIndexes after the drop = %+v, %v", r, err)
	}
}

// testIndexLeaderKilled loads keys, with overwrites and deletes, into a
// store with an index, while a second index is built beside the load;
// the leader is killed a third of the way in. The loader retries what
// was not acknowledged, as a client must. Afterwards data and both
// indexes agree and CheckIndexes finds nothing.
func testIndexLeaderKilled(t *testing.T, c *etcdcluster.Cluster) {
	kv := openT(t, c, etcdkv.Options{Prefix: []byte("index-faults/"), Timeout: faultTimeout, PageSize: 500})
	s := store.New(storetest.Checked(t, kv), nil)
	if err := s.CreateIndex(ctx, "by_id", byLoadID, nil); err != nil {
		t.Fatal(err)
	}
	const batches, size = 150, 20
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var acked sync.WaitGroup
	progress := make(chan int, batches)
	loadDone := make(chan error, 1)
	retries := 0
	acked.Add(1)
	go func() {
		defer acked.Done()
		for i := range batches {
			deadline := time.Now().Add(15 * time.Second)
			for {
				b := s.NewBatch()
				for j := range size {
					id := i*size + j
					switch {
					case j%7 == 6 && i > 0:
						b.Delete(loadKey(id - size)) // a key of the batch before
					case j%5 == 4 && i > 0:
						b.Put(loadKey(id-size), []byte("again")) // an overwrite
					default:
						b.Put(loadKey(id), []byte(fmt.Sprint("v", i)))
					}
				}
				err := s.Apply(ctx, b)
				if err == nil {
					break
				}
				if !errors.Is(err, etcdkv.ErrUnavailable) || time.Now().After(deadline) {
					loadDone <- err
					return
				}
				retries++
			}
			progress <- i
		}
		loadDone <- nil
	}()
	// A second index, built beside the load, through the kill.
	buildDone := make(chan error, 1)
	var builtAt time.Time // written before buildDone, read after
	go func() {
		for {
			err := s.CreateIndex(ctx, "by_id2", term.Tuple(term.Atom("load"), term.Atom("$1")), &store.BuildOptions{Step: 10})
			if errors.Is(err, etcdkv.ErrUnavailable) {
				// The definition may be written with the build cut short:
				// drop and start again, as an operator would.
				time.Sleep(100 * time.Millisecond)
				if derr := s.DropIndex(ctx, "by_id2", nil); derr != nil && !errors.Is(derr, store.ErrNoIndex) {
					if !errors.Is(derr, etcdkv.ErrUnavailable) {
						builtAt = time.Now()
						buildDone <- derr
						return
					}
				}
				continue
			}
			builtAt = time.Now()
			buildDone <- err
			return
		}
	}()
	for i := range batches {
		if <-progress; i == batches/3 {
			break
		}
	}
	leader := c.Leader()
	c.Stop(leader)
	killedAt := time.Now()
	t.Logf("killed the leader, m%d, a third of the way into the load", leader)
	if err := <-loadDone; err != nil {
		t.Fatalf("load failed with one member down: %v", err)
	}
	if err := <-buildDone; err != nil {
		t.Fatalf("index build failed with one member down: %v", err)
	}
	t.Logf("the second index was built %v after the kill", builtAt.Sub(killedAt).Round(time.Millisecond))
	acked.Wait()
	t.Logf("load done, %d batch retries", retries)
	all := term.Tuple(term.Atom("load"), term.Atom("_"))
	n := checkIndex(t, s, "by_id", all)
	checkIndex(t, s, "by_id2", all)
	c.Restart(leader)
	if err := c.WaitReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if m := checkIndex(t, s, "by_id", all); m != n {
		t.Errorf("%d keys after the restart, %d before", m, n)
	}
	t.Logf("%d keys, both indexes consistent with them", n)
}
