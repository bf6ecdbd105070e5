package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// testContext checks the seam's promise about a context that is already
// done: Get and Commit fail with its error and a cursor yields nothing
// (NewIter fails, or Next returns false and Err reports it); and the
// batch that was refused wrote nothing.
func testContext(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	key := term.Tuple(term.Atom("ctx"), term.Int(1))
	if err := s.Put(ctx, key, []byte("before")); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	kv := s.KV()
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
