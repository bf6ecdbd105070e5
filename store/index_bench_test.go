package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// benchOrder is a demo-shaped key: {order, Cust, #Desc<Time>, Id}.
func benchOrder(r *rand.Rand, id int) term.Term {
	return term.Tuple(term.Atom("order"), term.Int(1+r.Int64N(1000)), term.Desc(term.Int(1735689600+r.Int64N(365*86400))), term.Int(int64(id)))
}

// benchOrders opens a store, closed when b ends, holding n orders drawn
// from seed, written 10,000 to a batch.
func benchOrders(b *testing.B, seed uint64, n int) *store.Store {
	ctx := context.Background()
	s, err := pebblestore.Open(context.Background(), b.TempDir(), &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	r := rand.New(rand.NewPCG(seed, seed+1))
	batch := s.NewBatch()
	for id := range n {
		batch.Put(benchOrder(r, id), []byte("123.45"))
		if batch.Len() == 10000 {
			if err := s.Apply(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = s.NewBatch()
		}
	}
	if err := s.Apply(ctx, batch); err != nil {
		b.Fatal(err)
	}
	return s
}

var benchByID = term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("$1"))

// BenchmarkApplyIndexed is the price of one index on writes: batches of
// 1,000 demo-shaped orders, without and with an index on the order id.
func BenchmarkApplyIndexed(b *testing.B) {
	for _, indexed := range []bool{false, true} {
		b.Run(fmt.Sprintf("indexes=%d", map[bool]int{false: 0, true: 1}[indexed]), func(b *testing.B) {
			ctx := context.Background()
			s, err := pebblestore.Open(context.Background(), b.TempDir(), &pebblestore.Options{Store: store.Options{NoSync: true}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if indexed {
				if err := s.CreateIndex(ctx, "order_id", benchByID, nil); err != nil {
					b.Fatal(err)
				}
			}
			r := rand.New(rand.NewPCG(1, 2))
			id := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				batch := s.NewBatch()
				for range 1000 {
					batch.Put(benchOrder(r, id), []byte("123.45"))
					id++
				}
				if err := s.Apply(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

// BenchmarkOrderByID compares the two ways of finding one order by its
// id among 100,000: the full scan that query 5 of the demo must do, and
// the index look-up.
func BenchmarkOrderByID(b *testing.B) {
	ctx := context.Background()
	const n = 100000
	s := benchOrders(b, 3, n)
	if err := s.CreateIndex(ctx, "order_id", benchByID, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			p := term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Int(int64(i*7919%n)))
			found := 0
			for _, err := range s.Scan(ctx, p, store.ScanOptions{}) {
				if err != nil {
					b.Fatal(err)
				}
				found++
			}
			if found != 1 {
				b.Fatalf("found %d", found)
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			found := 0
			for _, err := range s.IndexScan(ctx, "order_id", term.Int(int64(i*7919%n)), store.IndexScanOptions{}) {
				if err != nil {
					b.Fatal(err)
				}
				found++
			}
			if found != 1 {
				b.Fatalf("found %d", found)
			}
		}
	})
}

// BenchmarkCreateIndex builds an index over 100,000 stored orders.
func BenchmarkCreateIndex(b *testing.B) {
	ctx := context.Background()
	const n = 100000
	s := benchOrders(b, 5, n)
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprint("ix", i)
		if err := s.CreateIndex(ctx, name, benchByID, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s.DropIndex(ctx, name, nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "keys/s")
}
