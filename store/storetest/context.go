package storetest

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// testContext checks the seam's promise about a context that is already
// done: Get and Commit fail with its error and a cursor yields nothing
// (NewIter fails, or Next returns false and Err reports it); and the
// batch that was refused wrote nothing.
func testContext(t *testing.T, open func(t *testing.T) store.KV) {
	s, kv := newStoreKV(t, open)
	key := term.Tuple(term.Atom("ctx"), term.Int(1))
	if err := s.Put(ctx, key, []byte("before")); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := kv.Get(done, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: %v, want context.Canceled", err)
	}
	wb := kv.NewBatch()
	enc := must(t, key)
	wb.Set(enc, []byte("after"))
	if err := wb.Commit(done, true); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a cancelled context: %v, want context.Canceled", err)
	}
	wb.Close()
	if v, err := kv.Get(ctx, enc); err != nil || string(v) != "before" {
		t.Errorf("after a refused Commit the key holds %q, %v; want before", v, err)
	}
	it, err := kv.NewIter(done, nil, nil, false)
	if err == nil {
		if it.Next() {
			t.Errorf("a cursor with a cancelled context yielded %q", it.Key())
		}
		err = it.Close()
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cursor with a cancelled context: %v, want context.Canceled", err)
	}
	var scanErr error
	for _, err := range s.Scan(done, term.Atom("_"), store.ScanOptions{}) {
		scanErr = err
		break
	}
	if !errors.Is(scanErr, context.Canceled) {
		t.Errorf("Scan with a cancelled context: first pair's error %v, want context.Canceled", scanErr)
	}
}

// CheckCancelled checks that a store over a backend honours a context
// cancelled before the call: Get, Put, Stats and Scan, and the backend's
// own calls in extra, fail with context.Canceled at once, without asking
// the backend (no ErrUnavailable), and the refused Put of key (to "no")
// leaves it as it was.
func CheckCancelled(t *testing.T, s *store.Store, key term.Term, extra map[string]func(context.Context) error) {
	t.Helper()
	done, cancel := context.WithCancel(ctx)
	cancel()
	calls := map[string]func(context.Context) error{
		"Get":   func(ctx context.Context) error { _, err := s.Get(ctx, key); return err },
		"Put":   func(ctx context.Context) error { return s.Put(ctx, key, []byte("no")) },
		"Stats": func(ctx context.Context) error { _, err := s.Stats(ctx); return err },
		"Scan": func(ctx context.Context) error {
			for _, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{}) {
				return err
			}
			return nil
		},
	}
	maps.Copy(calls, extra)
	for what, call := range calls {
		start := time.Now()
		err := call(done)
		if d := time.Since(start); !errors.Is(err, context.Canceled) || errors.Is(err, store.ErrUnavailable) || d > 100*time.Millisecond {
			t.Errorf("%s with a cancelled context: %v after %v; want context.Canceled at once", what, err, d)
		}
	}
	if v, err := s.Get(ctx, key); err != nil || string(v) == "no" {
		t.Errorf("Get(%s) = %q, %v: the cancelled Put wrote", key, v, err)
	}
}

// CheckScanCancel scans the whole store, keys only, cancels the scan's
// context after the first after keys and wants the scan to end with
// context.Canceled having yielded no more than most keys.
func CheckScanCancel(t *testing.T, s *store.Store, after, most int) {
	t.Helper()
	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	n := 0
	var scanErr error
	for _, err := range s.Scan(sctx, term.Atom("_"), store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			scanErr = err
			break
		}
		if n++; n == after {
			scancel()
		}
	}
	if !errors.Is(scanErr, context.Canceled) || n < after || n > most {
		t.Errorf("scan cancelled after %d keys: %d keys, %v; want context.Canceled by key %d", after, n, scanErr, most)
	}
}
