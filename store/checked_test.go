package store_test

import (
	"context"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// openChecked opens the Pebble store in dir as pebblestore.Open does, with its
// backend wrapped in storetest.Checked: the store's own tests then fail
// on any misuse of a cursor or a batch (a double Close, a use after
// Close, an iterator left open), as the conformance suite does.
func openChecked(t testing.TB, dir string, opts *store.Options) (*store.Store, error) {
	if opts == nil {
		opts = &store.Options{}
	}
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		return nil, err
	}
	return store.New(storetest.Checked(t, kv), opts), nil
}

// TestMaintenanceClosesCursorsOnce runs the store's maintenance calls
// over a checked backend, whole and cut short by a panic in a callback
// or a cancelled context: each must close every cursor it opened exactly
// once (storetest.Checked fails the test on a second Close, and on one
// left open when the store closes). CheckIndexes closed its three
// cursors twice; Check left its cursor open when a callback panicked.
func TestMaintenanceClosesCursorsOnce(t *testing.T) {
	boom := func(...any) { panic("boom") }
	for _, c := range []struct {
		name string
		run  func(ctx context.Context, s *store.Store) error
	}{
		{"CheckIndexes", func(ctx context.Context, s *store.Store) error {
			_, err := s.CheckIndexes(ctx, store.IndexCheckOptions{})
			return err
		}},
		{"CheckIndexes with Fix", func(ctx context.Context, s *store.Store) error {
			_, err := s.CheckIndexes(ctx, store.IndexCheckOptions{Fix: true})
			return err
		}},
		{"CheckIndexes, a panic in OnProblem", func(ctx context.Context, s *store.Store) error {
			_, err := s.CheckIndexes(ctx, store.IndexCheckOptions{OnProblem: func(store.IndexProblem) { boom() }})
			return err
		}},
		{"Check", func(ctx context.Context, s *store.Store) error {
			_, err := s.Check(ctx, store.CheckOptions{Fix: true})
			return err
		}},
		{"Check, a panic in OnForeign", func(ctx context.Context, s *store.Store) error {
			_, err := s.Check(ctx, store.CheckOptions{OnForeign: func([]byte, error) { boom() }})
			return err
		}},
		{"CreateIndex, cancelled during the build", func(ctx context.Context, s *store.Store) error {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			return s.CreateIndex(ctx, "by_n", term.Tuple(term.Atom("o"), term.Atom("$1")), &store.BuildOptions{Step: 3, Progress: func(int64) { cancel() }})
		}},
		{"DropIndex", func(ctx context.Context, s *store.Store) error {
			return s.DropIndex(ctx, "by_id", &store.BuildOptions{Step: 3})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				if err := s.Put(ctx, term.Tuple(term.Atom("o"), term.Int(int64(i))), []byte("v")); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.CreateIndex(ctx, "by_id", term.Tuple(term.Atom("o"), term.Atom("$1")), nil); err != nil {
				t.Fatal(err)
			}
			// A foreign key, a data key without its entry and an entry
			// without its data key, for the callbacks to meet.
			wb := s.KV().NewBatch()
			wb.Set([]byte{0x01, 0x02}, nil)
			wb.Set(must(t, term.Tuple(term.Atom("o"), term.Int(99))), nil)
			wb.Delete(must(t, term.Tuple(term.Atom("o"), term.Int(3))))
			if err := wb.Commit(ctx, true); err != nil {
				t.Fatal(err)
			}
			wb.Close()
			func() {
				defer func() { recover() }()
				c.run(ctx, s)
			}()
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
