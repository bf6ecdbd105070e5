package main

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/term"
)

// The demo's order book (sext demo): 1,000,000 keys {order, CustomerId,
// #Desc<Timestamp>, OrderId}, drawn as the demo draws them, loaded once
// per process into a Pebble store in a temporary directory.
const (
	ordersN        = 1_000_000
	ordersPerCust  = 100
	ordersBatch    = 20000
	ordersYear     = 1735689600 // 2025-01-01T00:00:00Z
	ordersYearSecs = 365 * 24 * 3600
)

var (
	ordersOnce  sync.Once
	ordersStore *store.Store
	ordersKV    store.KV // under ordersStore, for raw iteration
	ordersDir   string
	ordersErr   error
)

func orderStore(b *testing.B) (*store.Store, store.KV) {
	ordersOnce.Do(func() {
		if ordersDir, ordersErr = os.MkdirTemp("", "sext-bench-orders-"); ordersErr != nil {
			return
		}
		kv, err := pebblekv.Open(ordersDir, &pebblekv.Options{DisableWAL: true, MemTableSize: 64 << 20})
		if err != nil {
			ordersErr = err
			return
		}
		s := store.New(kv, &store.Options{NoSync: true})
		custs := int64(ordersN / ordersPerCust)
		var val []byte
		for first := 0; first < ordersN && err == nil; first += ordersBatch {
			r := rand.New(rand.NewPCG(uint64(first), 0x5E47)) // the demo's seeds
			batch := s.NewBatch()
			for id := first; id < min(first+ordersBatch, ordersN); id++ {
				cust := 1 + r.Int64N(custs)
				ts := ordersYear + r.Int64N(ordersYearSecs)
				cents := 100 + r.Int64N(50000)
				val = strconv.AppendFloat(val[:0], float64(cents)/100, 'f', 2, 64)
				k := term.Tuple(term.Atom("order"), term.Int(cust), term.Desc(term.Int(ts)), term.Int(int64(id)))
				if err = batch.Put(k, val); err != nil {
					break
				}
			}
			if err == nil {
				err = s.Apply(context.Background(), batch)
			}
			batch.Close()
		}
		ordersStore, ordersKV, ordersErr = s, kv, err
	})
	if ordersErr != nil {
		b.Fatal(ordersErr)
	}
	return ordersStore, ordersKV
}

// BenchmarkPebbleOrders reads the same 1,000,000 keys five ways in one
// run: op=raw iterates them and touches each key's bytes; op=view reads
// each key's OrderId with a sext.View; op=compiled filters them with the
// compiled pattern {order,'_','_',500000}; op=decode+match decodes each
// and Matches it (what Scan did before the Matcher); op=scan is
// store.Scan of the pattern, the demo's query 5. One op is one pass over
// all the keys; ns/key is the time of one key.
//
//	go test -run '^$' -bench PebbleOrders -count 6 ./bench > p.txt
//	benchstat -col /op p.txt
func BenchmarkPebbleOrders(b *testing.B) {
	s, kv := orderStore(b)
	pattern := term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Int(ordersN/2))
	lower, upper, err := sext.PrefixRange(pattern)
	if err != nil {
		b.Fatal(err)
	}
	m, err := sext.CompileMatch(pattern)
	if err != nil {
		b.Fatal(err)
	}
	// each runs f on every key of the range and checks the count.
	each := func(b *testing.B, want int, f func(k []byte) (bool, error)) {
		b.ReportAllocs()
		c0 := cputime.Process()
		for range b.N {
			it, err := kv.NewIter(context.Background(), lower, upper, false)
			if err != nil {
				b.Fatal(err)
			}
			keys, hits := 0, 0
			for it.Next() {
				ok, err := f(it.Key())
				if err != nil {
					b.Fatal(err)
				}
				keys++
				if ok {
					hits++
				}
			}
			if err := it.Close(); err != nil {
				b.Fatal(err)
			}
			if keys != ordersN || hits != want {
				b.Fatalf("%d keys, %d hits; want %d and %d", keys, hits, ordersN, want)
			}
		}
		perKey(b, c0)
	}
	b.Run("op=raw", func(b *testing.B) {
		var sum byte
		each(b, ordersN, func(k []byte) (bool, error) { sum += k[len(k)-1]; return true, nil })
		sinkBytes = []byte{sum}
	})
	b.Run("op=view", func(b *testing.B) {
		each(b, 1, func(k []byte) (bool, error) {
			e, err := sext.NewView(k).Elem(3)
			if err != nil {
				return false, err
			}
			id, err := e.Int64()
			return id == ordersN/2, err
		})
	})
	b.Run("op=compiled", func(b *testing.B) { each(b, 1, m.Matches) })
	b.Run("op=decode+match", func(b *testing.B) {
		each(b, 1, func(k []byte) (bool, error) {
			t, err := sext.Decode(k)
			if err != nil {
				return false, err
			}
			_, ok := sext.Match(pattern, t)
			return ok, nil
		})
	})
	b.Run("op=scan", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cputime.Process()
		for range b.N {
			n := 0
			for e, err := range s.Scan(context.Background(), pattern, store.ScanOptions{}) {
				if err != nil {
					b.Fatal(err)
				}
				n++
				sinkTerm = e.Key
			}
			if n != 1 {
				b.Fatalf("Scan found %d keys", n)
			}
		}
		perKey(b, c0)
	})
}

// perKey reports the wall and CPU time of one key; the process's CPU time
// since c0 counts Pebble's background work too, but not time the machine
// gave to other processes.
func perKey(b *testing.B, c0 time.Duration) {
	keys := float64(b.N) * ordersN
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/keys, "ns/key")
	if cpu := cputime.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/keys, "cpu-ns/key")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if ordersStore != nil {
		ordersStore.Close()
	}
	if ordersDir != "" {
		os.RemoveAll(ordersDir)
	}
	closeUsers()
	os.Exit(code)
}
