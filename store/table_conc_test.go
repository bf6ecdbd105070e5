package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/term"
)

// tbConcurrent runs writers (one goroutine each, on the stores given in
// turn: on etcd, stores that stand for processes of their own) that write
// and delete overlapping keys of table m, beside a reader selecting and
// describing, while an index is built on field a and, once the writers
// are done, a unique one on field b is tried. Afterwards the count is the
// number of objects, CheckTables is clean, and the index on a gives every
// object its entry.
func tbConcurrent(t *testing.T, stores []*store.Store, writers, writes int) {
	ctx := context.Background()
	s0 := stores[0]
	if err := s0.CreateTable(ctx, tbDef); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers+3)
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for range writes {
				b := s.NewTableBatch()
				for range 1 + r.IntN(3) {
					k := r.Int64N(40)
					if r.IntN(3) == 0 {
						b.Delete("m", term.Int(k))
					} else {
						b.Write("m", tbWrite{k: k, a: r.Int64N(5), b: r.Int64N(1000)}.obj())
					}
				}
				if err := s.ApplyTableBatch(ctx, b); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	rg.Go(func() {
		spec := matchspec.MustParse(`[{{m,'$1','_','_'},[{'<','$1',20}],['$_']}]`)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, err := range s0.SelectTable(ctx, "m", spec, store.SelectOptions{}) {
				if err != nil {
					errs <- fmt.Errorf("reader: %w", err)
					return
				}
			}
			if _, err := stores[len(stores)-1].DescribeTable(ctx, "m"); err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			if _, err := s0.CheckTables(ctx, store.TableCheckOptions{}); err != nil {
				errs <- fmt.Errorf("check: %w", err)
				return
			}
		}
	})
	if err := stores[len(stores)-1].CreateTableIndex(ctx, "m", "a", false, &store.BuildOptions{Step: 5}); err != nil {
		t.Fatalf("building beside writers: %v", err)
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// b holds 1,000 values over 40 keys: unique or not, both ends are fine.
	if err := s0.CreateTableIndex(ctx, "m", "b", true, nil); err != nil && !errors.Is(err, store.ErrUnique) {
		t.Fatal(err)
	}
	r, err := s0.CheckTables(ctx, store.TableCheckOptions{})
	if err != nil || !r.Clean() {
		t.Fatalf("CheckTables after the writers: %+v, %v", r, err)
	}
	info, err := s0.DescribeTable(ctx, "m")
	if err != nil || info.Count != r.Objects {
		t.Fatalf("count %d, %v; the table holds %d objects", info.Count, err, r.Objects)
	}
	n := 0
	for a := range 5 {
		for _, err := range s0.SelectTable(ctx, "m", matchspec.MustParse(fmt.Sprintf(`[{{m,'_',a%d,'_'},[],['$_']}]`, a)), store.SelectOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if int64(n) != info.Count {
		t.Fatalf("the index on a gives %d objects of %d", n, info.Count)
	}
	t.Logf("%d objects after %d writers' %d batches; %d entries", info.Count, writers, writes, r.Entries)
}

// TestTableConcurrentPebble runs tbConcurrent on one Pebble store, whose
// table writers take turns.
func TestTableConcurrentPebble(t *testing.T) {
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tbConcurrent(t, []*store.Store{s}, 4, testsize.Pick(300, 2000))
}

// TestTableEtcd runs, on etcd, the model property (fewer steps than on
// Pebble: each is many round trips; 3 seeds in a quick run, 25 at
// testsize's full size) on the model cluster, and
// tbConcurrent with two stores on one prefix, as two processes would be,
// whose writes meet only in etcd's transactions, on the three-member
// race cluster.
func TestTableEtcd(t *testing.T) {
	t.Parallel() // beside TestMigrateSuiteEtcd: each waits on etcd
	open := func(c *etcdcluster.Cluster, prefix string) *store.Store {
		kv, err := etcdkv.Open(etcdkv.Options{Endpoints: c.Endpoints(), Prefix: []byte(prefix)})
		if err != nil {
			t.Fatal(err)
		}
		s := store.New(kv, nil)
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("Model", func(t *testing.T) {
		ctx := context.Background()
		c := modelCluster(t)
		for seed := range uint64(testsize.Pick(3, 25)) {
			s := open(c, fmt.Sprintf("table/model/%d/", seed))
			if err := s.CreateTable(ctx, tbDef); err != nil {
				t.Fatal(err)
			}
			tbCheck(t, s, tbSteps(rand.New(rand.NewPCG(seed, 28)), 25))
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		c := raceCluster(t)
		tbConcurrent(t, []*store.Store{open(c, "table/conc/"), open(c, "table/conc/")}, 4, testsize.Pick(40, 150))
	})
}
