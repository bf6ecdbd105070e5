package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// FuzzIndexToken: any text as a continuation token is refused with a
// typed error or resumes inside the scan's range; none panics.
func FuzzIndexToken(f *testing.F) {
	s := fuzzStore(f)
	ctx := context.Background()
	var tok string
	for e, err := range s.IndexScan(ctx, "by_id", term.Atom("_"), store.IndexScanOptions{Limit: 3}) {
		if err != nil {
			f.Fatal(err)
		}
		tok = e.Continuation()
	}
	f.Add(tok)
	f.Add(tok[:len(tok)-3])
	f.Add("i1.")
	f.Add("i1.AQ")
	f.Add("s1.AQAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, tok string) {
		for _, err := range s.IndexScan(ctx, "by_id", term.Atom("_"), store.IndexScanOptions{After: tok, KeysOnly: true}) {
			if err != nil && !errors.Is(err, store.ErrToken) && !errors.Is(err, store.ErrTokenMismatch) {
				t.Fatalf("token %q: %v", tok, err)
			}
		}
	})
}

// FuzzIndexReserved: any key in the reserved range, written behind the
// store's back, is found by CheckIndexes and, unless it is no entry at
// all, repaired by Fix; the data and the index stay whole. A key under
// the tables' prefix is CheckTables' to find, and CheckIndexes leaves it.
func FuzzIndexReserved(f *testing.F) {
	s := fuzzStore(f)
	ctx := context.Background()
	entry, _ := sext.Encode(term.Tuple(term.Atom("index"), term.Binary([]byte("by_id")), term.Int(3), term.Tuple(term.Atom("o"), term.Int(1), term.Int(3))))
	f.Add(entry)                         // a real entry, again
	f.Add(entry[:len(entry)-1])          // cut short
	f.Add(append(bytes.Clone(entry), 0)) // a byte too many
	f.Add([]byte{})                      // the bare reserved byte
	f.Add([]byte("index_catalog"))       // not the catalog key
	stale, _ := sext.Encode(term.Tuple(term.Atom("index"), term.Binary([]byte("by_id")), term.Int(9), term.Tuple(term.Atom("o"), term.Int(1), term.Int(3))))
	f.Add(stale)
	gone, _ := sext.Encode(term.Tuple(term.Atom("index"), term.Binary([]byte("gone")), term.Int(1), term.Int(1)))
	f.Add(gone)
	f.Add([]byte("T0"))        // under the tables' prefix
	f.Add([]byte("T\x00\x00")) // beside the tables' catalog
	catalog, _ := sext.Encode(term.Atom("index_catalog"))
	f.Fuzz(func(t *testing.T, rest []byte) {
		if bytes.Equal(rest, catalog) || bytes.Equal(rest, []byte("T\x00")) {
			return // a catalog itself: overwriting it is not a fault of one entry
		}
		raw := append([]byte{0}, rest...)
		_, err := s.KV().Get(ctx, raw)
		existed := err == nil
		wb := s.KV().NewBatch()
		wb.Set(raw, []byte("junk"))
		if err := wb.Commit(ctx, false); err != nil {
			t.Fatal(err)
		}
		wb.Close()
		if bytes.HasPrefix(rest, []byte("T")) {
			tablesKey(t, s, raw, existed)
			return
		}
		r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: true})
		if err != nil {
			t.Fatal(err)
		}
		if !existed && r.Clean() {
			t.Fatalf("reserved key %x went unseen: %+v", raw, r)
		}
		r, err = s.CheckIndexes(ctx, store.IndexCheckOptions{})
		if err != nil || r.Missing+r.Orphans+r.Stale+r.Unfinished != 0 || r.Foreign > 1 {
			t.Fatalf("after Fix: %+v, %v", r, err)
		}
		// Take a foreign key away again, and let Fix restore an entry
		// that the fuzzed key overwrote or whose deletion it caused.
		if r.Foreign == 1 {
			wb := s.KV().NewBatch()
			wb.Delete(raw)
			wb.Commit(ctx, false)
			wb.Close()
		}
		if _, err := s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: true}); err != nil {
			t.Fatal(err)
		}
		if r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{}); err != nil || !r.Clean() || r.Entries != 20 {
			t.Fatalf("the index is not whole again: %+v, %v", r, err)
		}
	})
}

// tablesKey checks a key written under the tables' prefix of a store
// without tables: CheckIndexes leaves it, CheckTables reports it as
// foreign and leaves it too, and once it is gone both are clean again.
func tablesKey(t *testing.T, s *store.Store, raw []byte, existed bool) {
	ctx := context.Background()
	if r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: true}); err != nil || !r.Clean() || r.Entries != 20 {
		t.Fatalf("CheckIndexes beside %x under the tables' prefix: %+v, %v", raw, r, err)
	}
	r, err := s.CheckTables(ctx, store.TableCheckOptions{Fix: true})
	if err != nil || r.Foreign != 1 && !existed {
		t.Fatalf("CheckTables beside %x: %+v, %v", raw, r, err)
	}
	put(t, s.KV(), raw, nil, true)
	if r, err := s.CheckTables(ctx, store.TableCheckOptions{}); err != nil || !r.Clean() {
		t.Fatalf("CheckTables after %x went: %+v, %v", raw, r, err)
	}
}

// fuzzStore is a store with 20 keys and an index on them.
func fuzzStore(f *testing.F) *store.Store {
	s, err := pebblestore.Open(ctx, f.TempDir(), &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for i := range 20 {
		if err := s.Put(ctx, term.Tuple(term.Atom("o"), term.Int(int64(i%3)), term.Int(int64(i))), []byte("v")); err != nil {
			f.Fatal(err)
		}
	}
	if err := s.CreateIndex(ctx, "by_id", term.Tuple(term.Atom("o"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
		f.Fatal(err)
	}
	return s
}
