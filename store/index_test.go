package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// TestIndexKeyReused: a caller that builds each key in the same slice of
// elements (term.Tuple keeps it) and changes it after Put still gets the
// entries of the keys it put.
func TestIndexKeyReused(t *testing.T) {
	ctx := context.Background()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateIndex(ctx, "by_id", term.Tuple(term.Atom("o"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	elems := make([]term.Term, 2)
	b := s.NewBatch()
	for i := range 10 {
		elems[0], elems[1] = term.Atom("o"), term.Int(int64(i))
		if err := b.Put(term.Tuple(elems...), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	elems[1] = term.Int(99)
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{})
	if err != nil || !r.Clean() || r.Entries != 10 {
		t.Fatalf("CheckIndexes = %+v, %v; want 10 entries, clean", r, err)
	}
}

// TestIndexBadCatalog: a catalog another program overwrote makes writes
// fail with an error wrapping ErrCorrupt, rather than skip the indexes.
func TestIndexBadCatalog(t *testing.T) {
	ctx := context.Background()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wb := s.KV().NewBatch()
	wb.Set(append([]byte{0}, must(t, term.Atom("index_catalog"))...), []byte("garbage"))
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	if err := s.Put(ctx, term.Tuple(term.Atom("o"), term.Int(1)), nil); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Put with a garbage catalog: %v, want ErrCorrupt", err)
	}
	if _, err := s.Indexes(ctx); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Indexes with a garbage catalog: %v, want ErrCorrupt", err)
	}
}

func must(t *testing.T, x term.Term) []byte {
	t.Helper()
	b, err := sext.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
