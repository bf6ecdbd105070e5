package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// The table benchmarks share one store of SEXT_TABLE_BENCH_N objects
// (1,000,000 by default), made once a run:
//
//	{order, {Cust, Seq}, Cust2, Status, Cents}
//
// keyed by {Cust, Seq}: customers of 1,000 orders each. Cust2 and Copy
// hold the same number, drawn from 100,000, so that one look-up can be
// asked of an index (cust2 has one) and of a full scan (copy has none),
// with the same rows.

func tbBenchN() int {
	if n, err := strconv.Atoi(os.Getenv("SEXT_TABLE_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

func tbBenchObject(r *rand.Rand, i int) term.Term {
	c2 := r.Int64N(100_000)
	return term.Tuple(term.Atom("order"), term.Tuple(term.Int(int64(i/1000)), term.Int(int64(i%1000))),
		term.Int(c2), term.Int(c2), term.Atom("open"), term.Int(r.Int64N(100_000)))
}

var tbBench struct {
	once sync.Once
	s    *store.Store
	err  error
}

// tbBenchStore returns the shared store, making it on first use. It is
// left for the process's end: the benchmarks run one after another.
func tbBenchStore(b *testing.B) *store.Store {
	tbBench.once.Do(func() {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "sext-table-bench-")
		if err != nil {
			tbBench.err = err
			return
		}
		s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{NoSync: true}})
		if err != nil {
			tbBench.err = err
			return
		}
		tbBench.s = s
		def := store.TableDef{Name: "orders", Record: "order", Attributes: []string{"key", "cust2", "copy", "status", "cents"}}
		if tbBench.err = s.CreateTable(ctx, def); tbBench.err != nil {
			return
		}
		if tbBench.err = s.CreateTableIndex(ctx, "orders", "cust2", false, nil); tbBench.err != nil {
			return
		}
		r := rand.New(rand.NewPCG(1, 28))
		batch := s.NewTableBatch()
		for i := range tbBenchN() {
			batch.Write("orders", tbBenchObject(r, i))
			if batch.Len() == 1000 {
				if tbBench.err = s.ApplyTableBatch(ctx, batch); tbBench.err != nil {
					return
				}
				batch = s.NewTableBatch()
			}
		}
		tbBench.err = s.ApplyTableBatch(ctx, batch)
	})
	if tbBench.err != nil {
		b.Fatal(tbBench.err)
	}
	return tbBench.s
}

// BenchmarkTableSelect: selects on the shared table, with the keys they
// read (keys/op) and the rows they make (rows/op): a head that fixes the
// key's first element (one customer's 1,000 orders, amounts over a
// guard), and one look-up of cust2 through its index against the same
// look-up of copy, which has no index and reads every object.
func BenchmarkTableSelect(b *testing.B) {
	ctx := context.Background()
	s := tbBenchStore(b)
	for _, c := range []struct{ name, spec string }{
		{"key-head", `[{{order,{%d,'_'},'_','_','_','$1'},[{'>','$1',90000}],['$_']}]`},
		{"index", `[{{order,'_',%d,'_','_','_'},[],['$_']}]`},
		{"full-scan", `[{{order,'_','_',%d,'_','_'},[],['$_']}]`},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(2, 2))
			var keys, rows int64
			b.ReportAllocs()
			for b.Loop() {
				v := r.Int64N(max(1, int64(tbBenchN()/1000)))
				if c.name != "key-head" {
					v = r.Int64N(100_000)
				}
				var st store.SelectStats
				for _, err := range s.SelectTable(ctx, "orders", matchspec.MustParse(fmt.Sprintf(c.spec, v)), store.SelectOptions{Stats: &st}) {
					if err != nil {
						b.Fatal(err)
					}
				}
				keys += st.KeysRead
				rows += st.Rows
			}
			b.ReportMetric(float64(keys)/float64(b.N), "keys/op")
			b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
		})
	}
}

// BenchmarkTableInfo: DescribeTable of the shared table, its exact count
// read from one key.
func BenchmarkTableInfo(b *testing.B) {
	ctx := context.Background()
	s := tbBenchStore(b)
	var n int64
	for b.Loop() {
		info, err := s.DescribeTable(ctx, "orders")
		if err != nil {
			b.Fatal(err)
		}
		n = info.Count
	}
	if n != int64(tbBenchN()) {
		b.Fatalf("count %d, want %d", n, tbBenchN())
	}
}

// BenchmarkTableWrite: the cost of writing SEXT_TABLE_BENCH_N objects,
// three ways in each iteration, each into a fresh store: as a table with
// an index on cust2 and its count (table), as a table with its count and
// no index (noindex), and as what the table stores written as plain keys
// and values, with neither (plain: the same key bytes' term and the same
// term_to_binary value through Store.Batch). All three write in batches
// of one size (batch=1000, and batch=10000, what sext db load writes by
// default), none waits for the disk (Options.NoSync), and each load ends
// by flushing its memory tables and waiting for the engine's background
// work to settle, so that it pays for the flushes and compactions it
// causes. The figures are the process's CPU time an object, steadier
// than the wall clock on a shared machine, and the ratios of table and
// noindex to plain, each taken within one iteration (ns/op is the
// iteration's wall time, settling included); the bound is table
// at most 2.5 times plain. Run it with -benchtime 1x and -count.
func BenchmarkTableWrite(b *testing.B) {
	n := tbBenchN()
	for _, size := range []int{1000, 10000} {
		b.Run(fmt.Sprint("batch=", size), func(b *testing.B) {
			var cpu [3]time.Duration
			var ratio, nratio float64
			for b.Loop() {
				var c [3]time.Duration
				for mode := range c {
					c[mode] = tbWriteLoad(b, mode, n, size)
					cpu[mode] += c[mode]
				}
				ratio += float64(c[2]) / float64(c[0])
				nratio += float64(c[1]) / float64(c[0])
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*n) }
			b.ReportMetric(per(cpu[0]), "plain-cpu-ns/obj")
			b.ReportMetric(per(cpu[1]), "noindex-cpu-ns/obj")
			b.ReportMetric(per(cpu[2]), "table-cpu-ns/obj")
			b.ReportMetric(nratio/float64(b.N), "noindex/plain")
			b.ReportMetric(ratio/float64(b.N), "table/plain")
		})
	}
}

// tbWriteLoad writes n objects into a fresh store in batches of size,
// as plain keys and values (mode 0), a table without index (1) or a
// table with an index on cust2 (2), and returns the CPU time the process
// spent, the engine's settling after the load included.
func tbWriteLoad(b *testing.B, mode, n, size int) time.Duration {
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, b.TempDir(), &pebblestore.Options{Store: store.Options{NoSync: true}, Pebble: pebblekv.Options{MemTableSize: 64 << 20}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	def := store.TableDef{Name: "orders", Record: "order", Attributes: []string{"key", "cust2", "copy", "status", "cents"}}
	if mode > 0 {
		if err := s.CreateTable(ctx, def); err != nil {
			b.Fatal(err)
		}
	}
	if mode == 2 {
		if err := s.CreateTableIndex(ctx, "orders", "cust2", false, nil); err != nil {
			b.Fatal(err)
		}
	}
	settle()
	r := rand.New(rand.NewPCG(1, 28))
	start := cputime.Process()
	if mode > 0 {
		batch := s.NewTableBatch()
		for i := range n {
			batch.Write("orders", tbBenchObject(r, i))
			if batch.Len() == size || i == n-1 {
				if err := s.ApplyTableBatch(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = s.NewTableBatch()
			}
		}
	} else {
		batch := s.NewBatch()
		for i := range n {
			obj := tbBenchObject(r, i)
			el := append([]term.Term(nil), obj.Elems()...)
			key := el[1]
			el[1] = term.List()
			v, err := etf.Encode(term.Tuple(el...))
			if err != nil {
				b.Fatal(err)
			}
			batch.Put(key, v)
			if batch.Len() == size || i == n-1 {
				if err := s.Apply(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = s.NewBatch()
			}
		}
	}
	// What is still in the memory tables is flushed, so that each load
	// pays for putting all of its bytes into tables: the table's, twice
	// the keys, would otherwise leave more of them for after the clock.
	if err := s.KV().(*pebblekv.KV).DB().Flush(); err != nil {
		b.Fatal(err)
	}
	settle()
	spent := cputime.Process() - start
	if mode > 0 {
		if info, err := s.DescribeTable(ctx, "orders"); err != nil || info.Count != int64(n) {
			b.Fatalf("after the load: count %d, %v; want %d", info.Count, err, n)
		}
	}
	return spent
}
