package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// hookKV calls its hooks before NewIter and after Get, so that a test
// can put a writer's commit at an exact point of a reader's work.
type hookKV struct {
	store.KV
	onIter func(lower []byte)
	onGet  func(key []byte, err error)
}

func (h *hookKV) NewIter(ctx context.Context, lower, upper []byte, reverse bool) (store.Iter, error) {
	h.onIter(lower)
	return h.KV.NewIter(ctx, lower, upper, reverse)
}

func (h *hookKV) Get(ctx context.Context, key []byte) ([]byte, error) {
	v, err := h.KV.Get(ctx, key)
	h.onGet(key, err)
	return v, err
}

// TestCheckIndexesRereadsAtOneMoment: CheckIndexes reads a difference
// again before it counts it, and the two readings (the entry absent, the
// key present) must be of one moment. Here a key is deleted, with its
// entry, between the check's read of the data and its read of the index,
// and put back, with its entry, between the second reading's two Gets:
// the store was consistent throughout, so the check must find nothing.
// Two separate Gets reported a missing entry.
func TestCheckIndexesRereadsAtOneMoment(t *testing.T) {
	ctx := context.Background()
	s0, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	h := &hookKV{KV: s0.KV(), onIter: func([]byte) {}, onGet: func([]byte, error) {}}
	s := store.New(h, &store.Options{NoSync: true})
	defer s.Close()
	key := term.Tuple(term.Atom("o"), term.Int(5))
	for i := range 10 {
		if err := s.Put(ctx, term.Tuple(term.Atom("o"), term.Int(int64(i))), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateIndex(ctx, "by_id", term.Tuple(term.Atom("o"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	entry := append([]byte{0}, must(t, term.Tuple(term.Atom("index"), term.Binary([]byte("by_id")), term.Int(5), key))...)

	deleted, putBack := false, make(chan error, 1)
	h.onIter = func(lower []byte) {
		// The index's entries are read after the data: delete the key
		// (and its entry) in between.
		if !deleted && len(lower) > 1 && bytes.HasPrefix(entry, lower) {
			deleted = true
			if err := s.Delete(ctx, key); err != nil {
				t.Error(err)
			}
		}
	}
	started := false
	h.onGet = func(k []byte, err error) {
		// The entry read again, absent: put the key back, with its
		// entry, before the key is read again, unless the check holds
		// writers off meanwhile (then the put waits for it).
		if deleted && !started && bytes.Equal(k, entry) && errors.Is(err, store.ErrNotFound) {
			started = true
			go func() { putBack <- s.Put(ctx, key, []byte("back")) }()
			select {
			case err := <-putBack:
				putBack <- err
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	res, err := s.CheckIndexes(ctx, store.IndexCheckOptions{OnProblem: func(p store.IndexProblem) {
		t.Errorf("CheckIndexes found %s %v, but the store was consistent throughout", p.Kind, p.Key)
	}})
	if !deleted || !started {
		t.Fatalf("the hooks did not run (deleted %v, put back %v)", deleted, started)
	}
	if err := <-putBack; err != nil {
		t.Fatal(err)
	}
	if err != nil || !res.Clean() {
		t.Errorf("CheckIndexes = %+v, %v; want clean", res, err)
	}
	if res, err := s.CheckIndexes(ctx, store.IndexCheckOptions{}); err != nil || !res.Clean() || res.Keys != 10 {
		t.Errorf("CheckIndexes afterwards = %+v, %v; want clean, 10 keys", res, err)
	}
}

// TestCheckIndexesFixBesideCreateIndex: an index created after
// CheckIndexes read the definitions has entries the check takes for
// those of an index no longer defined. With Fix it must not delete them
// (its repairs depend on the definitions it read): the new index stays
// whole. The check deleted all ten.
func TestCheckIndexesFixBesideCreateIndex(t *testing.T) {
	ctx := context.Background()
	s0, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	h := &hookKV{KV: s0.KV(), onIter: func([]byte) {}, onGet: func([]byte, error) {}}
	s := store.New(h, &store.Options{NoSync: true})
	defer s.Close()
	for i := range 10 {
		if err := s.Put(ctx, term.Tuple(term.Atom("o"), term.Int(int64(i))), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateIndex(ctx, "first", term.Tuple(term.Atom("o"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	created := false
	h.onIter = func(lower []byte) {
		// The first cursor over the reserved range outside the indexes
		// the check knows: create the second index now.
		if !created && bytes.Equal(lower, []byte{0}) {
			created = true
			if err := s.CreateIndex(ctx, "late", term.Tuple(term.Atom("o"), term.Atom("$1")), nil); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: true}); err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Fatal("the hook did not run")
	}
	n := 0
	for _, err := range s.IndexScan(ctx, "late", term.Atom("_"), store.IndexScanOptions{KeysOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 10 {
		t.Errorf("the index created beside CheckIndexes with Fix holds %d entries, want 10", n)
	}
	if res, err := s.CheckIndexes(ctx, store.IndexCheckOptions{}); err != nil || !res.Clean() {
		t.Errorf("CheckIndexes afterwards = %+v, %v; want clean", res, err)
	}
}

// TestIndexReadsBesideDropIndex: a scan of an index, or a select that
// reads one, that found the index ready and then read its entries while
// DropIndex deleted them must not end as if it had read them all: it
// ends with ErrNoIndex. (Both ended quietly with no rows.)
func TestIndexReadsBesideDropIndex(t *testing.T) {
	spec, err := matchspec.Parse(`[{{o,'_',3},[],['$_']}]`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		read func(ctx context.Context, s *store.Store) (int, error)
	}{
		{"IndexScan", func(ctx context.Context, s *store.Store) (int, error) {
			n := 0
			for _, err := range s.IndexScan(ctx, "by_g", term.Atom("_"), store.IndexScanOptions{}) {
				if err != nil {
					return n, err
				}
				n++
			}
			return n, nil
		}},
		{"Select by the index", func(ctx context.Context, s *store.Store) (int, error) {
			n := 0
			var st store.SelectStats
			for _, err := range s.Select(ctx, spec, store.SelectOptions{Stats: &st}) {
				if err != nil {
					return n, err
				}
				n++
			}
			if st.Index != "by_g" {
				t.Errorf("the select read %q, want the index", st.Index)
			}
			return n, nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s0, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			h := &hookKV{KV: s0.KV(), onIter: func([]byte) {}, onGet: func([]byte, error) {}}
			s := store.New(h, &store.Options{NoSync: true})
			defer s.Close()
			for i := range 20 {
				if err := s.Put(ctx, term.Tuple(term.Atom("o"), term.Int(int64(i)), term.Int(int64(i%4))), []byte("v")); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.CreateIndex(ctx, "by_g", term.Tuple(term.Atom("o"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
				t.Fatal(err)
			}
			dropped := false
			h.onIter = func(lower []byte) {
				// The read's cursor over the entries: drop the index
				// just before it opens.
				if !dropped && len(lower) > 0 && lower[0] == 0 {
					dropped = true
					if err := s.DropIndex(ctx, "by_g", nil); err != nil {
						t.Error(err)
					}
				}
			}
			n, err := c.read(ctx, s)
			if !dropped {
				t.Fatal("the hook did not run")
			}
			if !errors.Is(err, store.ErrNoIndex) {
				t.Errorf("a read of an index dropped under it: %d rows, %v; want ErrNoIndex", n, err)
			}
		})
	}
}
