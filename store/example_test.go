package store_test

import (
	"context"
	"fmt"
	"math/big"
	"os"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// A write, and a scan by pattern, each call with the caller's context.
func ExampleStore_Scan() {
	s, done := tempStore()
	defer done()
	ctx := context.Background()

	for id, v := range []string{"tea", "cake", "jam"} {
		s.Put(ctx, term.Tuple(term.Atom("order"), term.Int(42), term.Int(int64(id))), []byte(v))
	}
	pattern := term.Tuple(term.Atom("order"), term.Int(42), term.Atom("_"))
	for e, err := range s.Scan(ctx, pattern, store.ScanOptions{Limit: 2}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(e.Key, string(e.Value))
	}
	// Output:
	// {order,42,0} tea
	// {order,42,1} cake
}

// Check finds a key another writer left in the pre-2013 bignum layout,
// which Get cannot reach, and with Fix rewrites it to its canonical
// bytes, value kept. The store is put on a backend opened by hand
// (New), whose raw byte keys the other writer uses.
func ExampleStore_Check() {
	dir, _ := os.MkdirTemp("", "store-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := store.New(kv, nil)
	defer s.Close()

	key := term.Tuple(term.Atom("big"), term.BigInt(new(big.Int).Lsh(big.NewInt(1), 80)))
	old, _ := sext.Options{Legacy: true}.Encode(key)
	wb := kv.NewBatch() // raw bytes, as the other writer wrote them
	wb.Set(old, []byte("kept"))
	wb.Commit(ctx, true)
	wb.Close()

	_, err = s.Get(ctx, key)
	fmt.Println("before:", err)
	r, _ := s.Check(ctx, store.CheckOptions{Fix: true})
	fmt.Printf("non-canonical %d, fixed %d\n", r.NonCanonical, r.Fixed)
	v, err := s.Get(ctx, key)
	fmt.Println("after:", string(v), err)
	// Output:
	// before: store: key not found: {big,1208925819614629174706176}
	// non-canonical 1, fixed 1
	// after: kept <nil>
}

// tempStore opens the embedded store in a new temporary directory;
// done closes it and removes the directory.
func tempStore() (s *store.Store, done func()) {
	dir, err := os.MkdirTemp("", "store-example-")
	if err != nil {
		panic(err)
	}
	if s, err = pebblestore.Open(ctx, dir, nil); err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	return s, func() { s.Close(); os.RemoveAll(dir) }
}
