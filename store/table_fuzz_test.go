package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/term"
)

// FuzzTableReserved: any key and value under the tables' prefix, written
// behind the store's back (a count, an object, an entry, or none of
// these), leave CheckTables, SelectTable, TableCount and a table write
// working: no panic and no error but a typed one. CheckTables with Fix
// leaves only what it reports and leaves (bad objects, a unique value
// held twice, foreign keys), and once the key holds what it held before,
// Fix makes the table whole again.
func FuzzTableReserved(f *testing.F) {
	ctx := context.Background()
	kv, err := pebblekv.Open(f.TempDir(), nil)
	if err != nil {
		f.Fatal(err)
	}
	s := store.New(kv, &store.Options{NoSync: true})
	f.Cleanup(func() { s.Close() })
	const objects = 10
	personTable(f, s, objects)
	// Seeds: every key the table holds (after 00 54), with its value and
	// with junk, and keys beside them.
	for _, kv := range kvItems(f, kv, []byte{0, 'T', 0, 0, 0, 1}, []byte{0, 'T', 0, 0, 0, 2}) {
		k, v := kv[0], kv[1]
		f.Add(k[2:], v)
		f.Add(k[2:], []byte("junk"))
		f.Add(append(bytes.Clone(k[2:]), 0), v)
		if k[6] == 2 { // an object: the same under a new key, so its email is held twice
			kb, _ := sext.Encode(term.Int(100))
			f.Add(append(bytes.Clone(k[2:7]), kb...), v)
		}
	}
	f.Add([]byte{0, 0, 0, 7, 2, 1}, []byte{})         // a table that is not
	f.Add([]byte{0, 0, 0, 1, 9}, []byte{})            // a part that is not
	f.Add([]byte{0, 0, 0, 1, 1}, []byte{0, 0, 0, 99}) // a count of 4 bytes
	spec := matchspec.MustParse("[{'_',[],['$_']}]")
	lo, hi := []byte{0, 'T'}, []byte{0, 'T' + 1}
	whole := kvItems(f, kv, lo, hi)
	f.Fuzz(func(t *testing.T, rest, val []byte) {
		// Each input starts from the whole table, whatever an input that
		// failed before it (as the fuzzer's minimizing does) left.
		wb := kv.NewBatch()
		for _, x := range kvItems(t, kv, lo, hi) {
			wb.Delete(x[0])
		}
		for _, x := range whole {
			wb.Set(x[0], x[1])
		}
		if err := wb.Commit(ctx, false); err != nil {
			t.Fatal(err)
		}
		wb.Close()
		raw := append([]byte{0, 'T'}, rest...)
		if len(rest) == 1 && rest[0] == 0 {
			return // the catalog itself: its damage is ErrCorrupt for every table call
		}
		old, err := kv.Get(ctx, raw)
		existed := err == nil
		put(t, kv, raw, val, false)
		r, err := s.CheckTables(ctx, store.TableCheckOptions{})
		if err != nil {
			t.Fatalf("CheckTables beside %x = %x: %v", raw, val, err)
		}
		if !existed && r.Clean() {
			t.Fatalf("%x went unseen: %+v", raw, r)
		}
		if _, err := s.TableCount(ctx, "person"); err != nil && !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("TableCount beside %x = %x: %v", raw, val, err)
		}
		for _, err := range s.SelectTable(ctx, "person", spec, store.SelectOptions{OnBadKey: func([]byte, error) {}}) {
			if err != nil && !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("SelectTable beside %x = %x: %v", raw, val, err)
			}
		}
		// A writer that rewrites an object as it was: it reads the old
		// object, its entries and the count, any of which may be damaged.
		b := s.NewTableBatch()
		b.Write("person", personObject(len(rest)%objects))
		if err := s.ApplyTableBatch(ctx, b); err != nil && !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, store.ErrUnique) {
			t.Fatalf("ApplyTableBatch beside %x = %x: %v", raw, val, err)
		}
		if _, err := s.CheckTables(ctx, store.TableCheckOptions{Fix: true}); err != nil {
			t.Fatalf("CheckTables with Fix beside %x = %x: %v", raw, val, err)
		}
		r, err = s.CheckTables(ctx, store.TableCheckOptions{})
		if err != nil || r.Counts+r.Missing+r.Stale+r.Unfinished != 0 {
			t.Fatalf("after Fix beside %x = %x: %+v, %v", raw, val, r, err)
		}
		// Put back what was there, and let Fix undo what it did beside
		// the fuzzed key.
		put(t, kv, raw, old, !existed)
		if _, err := s.CheckTables(ctx, store.TableCheckOptions{Fix: true}); err != nil {
			t.Fatal(err)
		}
		r, err = s.CheckTables(ctx, store.TableCheckOptions{})
		if n, _ := s.TableCount(ctx, "person"); err != nil || !r.Clean() || r.Objects != objects || n != objects {
			t.Fatalf("the table is not whole again after %x: %+v (count %d), %v", raw, r, n, err)
		}
	})
}

// personTable makes the table person {person, name, age, email} in s,
// with an index on age and a unique one on email, and writes the objects
// 0 to n-1 (personObject).
func personTable(tb testing.TB, s *store.Store, n int) {
	ctx := context.Background()
	if err := s.CreateTable(ctx, store.TableDef{Name: "person", Record: "person", Attributes: []string{"name", "age", "email"}}); err != nil {
		tb.Fatal(err)
	}
	for _, ix := range []struct {
		attr   string
		unique bool
	}{{"age", false}, {"email", true}} {
		if err := s.CreateTableIndex(ctx, "person", ix.attr, ix.unique, nil); err != nil {
			tb.Fatal(err)
		}
	}
	b := s.NewTableBatch()
	for i := range n {
		b.Write("person", personObject(i))
	}
	if err := s.ApplyTableBatch(ctx, b); err != nil {
		tb.Fatal(err)
	}
}

// personObject is personTable's object I: {person, I, I rem 3, <<"I@x">>}.
func personObject(i int) term.Term {
	return term.Tuple(term.Atom("person"), term.Int(int64(i)), term.Int(int64(i%3)), term.Binary(fmt.Appendf(nil, "%d@x", i)))
}

// put sets key to val, or deletes it, behind the store's back.
func put(t *testing.T, kv store.KV, key, val []byte, del bool) {
	wb := kv.NewBatch()
	defer wb.Close()
	if del {
		wb.Delete(key)
	} else {
		wb.Set(key, val)
	}
	if err := wb.Commit(context.Background(), false); err != nil {
		t.Fatal(err)
	}
}

// kvItems returns the keys and values stored from lo up to hi.
func kvItems(tb testing.TB, kv store.KV, lo, hi []byte) [][2][]byte {
	it, err := kv.NewIter(context.Background(), lo, hi, false)
	if err != nil {
		tb.Fatal(err)
	}
	defer it.Close()
	var out [][2][]byte
	for it.Next() {
		out = append(out, [2][]byte{bytes.Clone(it.Key()), bytes.Clone(it.Value())})
	}
	if err := it.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
