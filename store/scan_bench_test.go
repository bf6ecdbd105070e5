package store_test

import (
	"context"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

var bctx = context.Background()

// benchStore is a store of 100,000 keys {k, I} with 16-byte values.
func benchStore(b *testing.B) *store.Store {
	s, err := pebblestore.Open(ctx, b.TempDir(), &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		b.Fatal(err)
	}
	bt := s.NewBatch()
	for i := range 100000 {
		bt.Put(term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte("0123456789abcdef"))
	}
	if err := s.Apply(bctx, bt); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkStoreScan(b *testing.B) {
	s := benchStore(b)
	defer s.Close()
	p := term.Tuple(term.Atom("k"), term.Atom("_"))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range s.Scan(bctx, p, store.ScanOptions{}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 100000 {
			b.Fatal(n)
		}
	}
}

func BenchmarkStoreGet(b *testing.B) {
	s := benchStore(b)
	defer s.Close()
	k := term.Tuple(term.Atom("k"), term.Int(4242))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Get(bctx, k); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreScanReportNonCanonical is BenchmarkStoreScan with
// OnNonCanonical set: the price of re-encoding every key.
func BenchmarkStoreScanReportNonCanonical(b *testing.B) {
	s := benchStore(b)
	defer s.Close()
	p := term.Tuple(term.Atom("k"), term.Atom("_"))
	odd := 0
	opts := store.ScanOptions{OnNonCanonical: func([]byte, term.Term) { odd++ }}
	b.ResetTimer()
	for b.Loop() {
		for _, err := range s.Scan(bctx, p, opts) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if odd != 0 {
		b.Fatal(odd)
	}
}
