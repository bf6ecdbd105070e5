package store_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/term"
)

// BenchmarkMigrateVsLoad measures, in one run, the CPU time of loading
// MIGRATE_KEYS orders {order, Cust, Time, Id} (1,000,000 unless set)
// into a Pebble store with one index (on the id), 10,000 keys a batch,
// and of migrating all of them to {order, Cust, #Desc<Time>, Id} in
// Migrate's default steps; the target is a migration within 3 times the
// load. Both phases write without syncing each batch (Options.NoSync)
// and end with a Sync, then wait for the engine's background work
// (flushes, compactions) to settle, so that each pays for the compaction
// it causes. Run it with -benchtime 1x: each iteration loads a new
// store.
func BenchmarkMigrateVsLoad(b *testing.B) {
	n := 1000000
	if v := os.Getenv("MIGRATE_KEYS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	spec := matchspec.MustParse(`[{{order,'$1','$2','$3'},[{is_integer,'$2'}],[{{order,'$1',#Desc<'$2'>,'$3'}}]}]`)
	var loadCPU, migCPU, loadWall, migWall time.Duration
	for range b.N {
		kv, err := pebblekv.Open(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		s := store.New(kv, &store.Options{NoSync: true})
		if err := s.CreateIndex(ctx, "by_id", term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
			b.Fatal(err)
		}
		c0, w0 := cputime.Process(), time.Now()
		batch := s.NewBatch()
		for id := range n {
			k := term.Tuple(term.Atom("order"), term.Int(int64(1+id*7919%1000)), term.Int(int64(1735689600+id*104729%31536000)), term.Int(int64(id)))
			batch.Put(k, []byte("123.45"))
			if batch.Len() == 10000 || id == n-1 {
				if err := s.Apply(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = s.NewBatch()
			}
		}
		batch.Close()
		if err := s.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		settle()
		c1, w1 := cputime.Process(), time.Now()
		res, err := s.Migrate(ctx, spec, store.MigrateOptions{Samples: -1})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		settle()
		c2, w2 := cputime.Process(), time.Now()
		if res.Migrated != int64(n) || res.Conflicts != 0 {
			b.Fatalf("migrated %d of %d keys: %+v", res.Migrated, n, res)
		}
		loadCPU, migCPU = loadCPU+c1-c0, migCPU+c2-c1
		loadWall, migWall = loadWall+w1.Sub(w0), migWall+w2.Sub(w1)
		s.Close()
	}
	runs := float64(b.N)
	b.ReportMetric(float64(n), "keys")
	b.ReportMetric(loadCPU.Seconds()/runs, "load-cpu-s")
	b.ReportMetric(migCPU.Seconds()/runs, "migrate-cpu-s")
	b.ReportMetric(loadWall.Seconds()/runs, "load-wall-s")
	b.ReportMetric(migWall.Seconds()/runs, "migrate-wall-s")
	b.ReportMetric(migCPU.Seconds()/loadCPU.Seconds(), "cpu-ratio")
}

// settle waits, up to a minute, until the process uses less than a tenth
// of a core over a quarter of a second: until the store's background
// flushes and compactions are done.
func settle() {
	for range 240 {
		c := cputime.Process()
		time.Sleep(250 * time.Millisecond)
		if cputime.Process()-c < 25*time.Millisecond {
			return
		}
	}
}
