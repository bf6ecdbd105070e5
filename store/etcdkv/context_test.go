package etcdkv_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/term"
)

// testContext checks that the caller's context reaches the cluster on a
// healthy cluster: a context cancelled before the call fails it at once,
// without an answer from the cluster, and a scan cancelled half-way
// stops at its next page with context.Canceled. (TestFaults checks
// deadlines and cancellation against a cluster that cannot answer.)
func testContext(t *testing.T, c *etcdcluster.Cluster) {
	kv := open(t, c, etcdkv.Options{Prefix: []byte("context/"), PageSize: 100})
	s := store.New(kv, nil)
	defer s.Close()
	key := func(i int) term.Term { return term.Tuple(term.Atom("c"), term.Int(int64(i))) }
	for i := 0; i < 1000; i += 100 {
		b := s.NewBatch()
		for j := i; j < i+100; j++ {
			b.Put(key(j), []byte("v"))
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	for what, call := range map[string]func() error{
		"Get":   func() error { _, err := s.Get(done, key(1)); return err },
		"Put":   func() error { return s.Put(done, key(1), []byte("no")) },
		"Stats": func() error { _, err := s.Stats(done); return err },
		"Scan": func() error {
			for _, err := range s.Scan(done, term.Atom("_"), store.ScanOptions{}) {
				return err
			}
			return nil
		},
	} {
		start := time.Now()
		err := call()
		if d := time.Since(start); !errors.Is(err, context.Canceled) || errors.Is(err, etcdkv.ErrUnavailable) || d > 100*time.Millisecond {
			t.Errorf("%s with a cancelled context: %v after %v; want context.Canceled at once", what, err, d)
		}
	}
	if v, err := s.Get(ctx, key(1)); err != nil || string(v) != "v" {
		t.Errorf("Get(key 1) = %q, %v: the cancelled Put wrote", v, err)
	}

	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	n := 0
	var scanErr error
	for _, err := range s.Scan(sctx, term.Atom("_"), store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			scanErr = err
			break
		}
		if n++; n == 150 {
			scancel()
		}
	}
	if !errors.Is(scanErr, context.Canceled) || n < 150 || n > 200 {
		t.Errorf("scan cancelled after 150 of 1000 keys (pages of 100): %d keys, %v; want Canceled by the end of the page", n, scanErr)
	}
}
