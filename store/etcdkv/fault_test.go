package etcdkv_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// Fault test sizes: enough batches that the kill lands mid-load (half
// as many in a quick run as at testsize's full size).
const (
	faultBatchSize = 20
	faultTimeout   = 2 * time.Second
)

var faultBatches = testsize.Pick(150, 300)

func loadKey(i int) term.Term { return term.Tuple(term.Atom("load"), term.Int(int64(i))) }

// TestFaults kills the leader of a three-member cluster in the middle of
// a load while scans and a watch run: all three carry on, and every
// acknowledged write is there afterwards. Then it kills a second member:
// with no quorum, calls fail within the timeout with ErrUnavailable. Then
// it restarts both: every acknowledged write is still there.
func TestFaults(t *testing.T) {
	t.Parallel()
	c := etcdcluster.Start(t, etcdcluster.Options{})
	kv := openT(t, c, etcdkv.Options{Prefix: []byte("faults/"), Timeout: faultTimeout, PageSize: 500})
	s := store.New(storetest.Checked(t, kv), nil)
	pattern := term.Tuple(term.Atom("load"), term.Atom("_"))
	rev0, err := kv.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }() // no goroutine outlives the test

	// The watcher resumes from its last revision whenever its watch ends,
	// as a worker would.
	var (
		mu         sync.Mutex
		watched    = map[int64]bool{}
		watchFails int
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := rev0
		for ctx.Err() == nil {
			for ev, err := range kv.Watch(ctx, pattern, etcdkv.WatchOptions{FromRevision: last + 1}) {
				if err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						watchFails++
						mu.Unlock()
						time.Sleep(100 * time.Millisecond)
					}
					break
				}
				id := ev.Key.Elems()[1].Int64()
				mu.Lock()
				watched[id] = true
				mu.Unlock()
				last = ev.Revision
			}
		}
	}()

	// The loader retries a batch until it is acknowledged; only then does
	// it count.
	var acked atomic.Int64 // batches acknowledged, in order
	var loadRetries atomic.Int64
	loadDone := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range faultBatches {
			deadline := time.Now().Add(15 * time.Second)
			for ctx.Err() == nil {
				b := s.NewBatch()
				for j := range faultBatchSize {
					b.Put(loadKey(i*faultBatchSize+j), []byte("v"))
				}
				err := s.Apply(ctx, b)
				if err == nil {
					break
				}
				if !errors.Is(err, etcdkv.ErrUnavailable) || time.Now().After(deadline) {
					loadDone <- err
					return
				}
				loadRetries.Add(1)
			}
			acked.Add(1)
		}
		loadDone <- nil
	}()

	// The scanner checks, scan after scan, that it sees at least every
	// key acknowledged before the scan began (reads are linearizable).
	var scansOK, scansFailed, scansAfterKill atomic.Int64
	var killed atomic.Bool
	scanStop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-scanStop:
				return
			case <-ctx.Done():
				return
			default:
			}
			before := acked.Load() * faultBatchSize
			n := int64(0)
			var err error
			for _, e := range s.Scan(ctx, pattern, store.ScanOptions{KeysOnly: true}) {
				if e != nil {
					err = e
					break
				}
				n++
			}
			switch {
			case err != nil:
				scansFailed.Add(1)
			case n < before:
				t.Errorf("scan saw %d keys, but %d were acknowledged before it began", n, before)
				return
			default:
				scansOK.Add(1)
				if killed.Load() {
					scansAfterKill.Add(1)
				}
			}
		}
	}()

	// Kill the leader a third of the way in.
	for acked.Load() < int64(faultBatches/3) {
		select {
		case err := <-loadDone:
			t.Fatalf("load ended early: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	leader := c.Leader()
	c.Stop(leader)
	killed.Store(true)
	killedAt := time.Now()
	t.Logf("killed the leader, m%d, after %d of %d batches", leader, acked.Load(), faultBatches)
	if err := <-loadDone; err != nil {
		t.Fatalf("load failed with one member down: %v", err)
	}
	t.Logf("load finished %v after the kill, %d batch retries", time.Since(killedAt).Round(time.Millisecond), loadRetries.Load())
	// Let the scanner see the degraded cluster a little longer.
	for scansAfterKill.Load() < 3 && time.Since(killedAt) < 20*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	close(scanStop)
	if scansAfterKill.Load() < 3 {
		t.Errorf("only %d scans succeeded with one member down", scansAfterKill.Load())
	}
	t.Logf("scans: %d succeeded (%d after the kill), %d failed", scansOK.Load(), scansAfterKill.Load(), scansFailed.Load())

	total := faultBatches * faultBatchSize
	// unacked is a write that failed without quorum: it may or may not
	// have taken effect (the member left may still commit it once the
	// others are back), so it is allowed but not required.
	unacked := int64(-1)
	checkAll := func(when string) {
		t.Helper()
		seen := map[int64]bool{}
		for e, err := range s.Scan(ctx, pattern, store.ScanOptions{}) {
			if err != nil {
				t.Fatalf("%s: scan: %v", when, err)
			}
			id := e.Key.Elems()[1].Int64()
			if (id < 0 || id >= int64(total)) && id != unacked {
				t.Errorf("%s: key %v was never written", when, e.Key)
			}
			seen[id] = true
		}
		for id := range int64(total) {
			if !seen[id] {
				t.Fatalf("%s: acknowledged key %v is missing (%d keys found)", when, loadKey(int(id)), len(seen))
			}
		}
	}
	checkAll("one member down")

	// The watch catches up with every acknowledged write.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n, fails := len(watched), watchFails
		mu.Unlock()
		if n == total {
			t.Logf("watch saw all %d writes (%d restarts)", n, fails)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch saw %d of %d writes (%d restarts)", n, total, fails)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A second member down: no quorum. Calls fail within the timeout,
	// with ErrUnavailable, instead of hanging. Each call waits out its
	// own bound, so they run side by side: one wait instead of four.
	second := (leader + 1) % 3
	c.Stop(second)
	t.Logf("killed m%d too: no quorum", second)
	var calls sync.WaitGroup
	bound := faultTimeout + time.Second
	timedFrom := func(what string, start time.Time, err error) {
		d := time.Since(start)
		if !errors.Is(err, etcdkv.ErrUnavailable) || d > bound {
			t.Errorf("%s without quorum: %v after %v; want ErrUnavailable within %v", what, err, d, bound)
			return
		}
		t.Logf("%s without quorum failed after %v: %v", what, d.Round(time.Millisecond), err)
	}
	timed := func(what string, f func() error) {
		calls.Add(1)
		go func() {
			defer calls.Done()
			start := time.Now()
			timedFrom(what, start, f())
		}()
	}
	timed("Put", func() error { return s.Put(ctx, loadKey(int(unacked)), nil) })
	timed("Get", func() error { _, err := s.Get(ctx, loadKey(1)); return err })
	timed("Scan", func() error {
		for _, err := range s.Scan(ctx, pattern, store.ScanOptions{}) {
			if err != nil {
				return err
			}
		}
		return nil
	})
	// A watch needs a leader too: once the member left has said it has
	// none (the watcher above sees its watch end), a watch fails rather
	// than wait for changes that cannot come.
	mu.Lock()
	failsBefore := watchFails
	mu.Unlock()
	var watchCheck sync.WaitGroup
	watchCheck.Add(1)
	go func() {
		defer watchCheck.Done()
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			fails := watchFails
			mu.Unlock()
			if fails > failsBefore {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the watcher's watch still runs 15s after the quorum was lost")
				return
			}
		}
		wctx, wcancel := context.WithTimeout(ctx, bound)
		defer wcancel()
		start := time.Now()
		var werr error
		for _, err := range kv.Watch(wctx, pattern, etcdkv.WatchOptions{}) {
			if err != nil {
				werr = err
				break
			}
		}
		timedFrom("Watch", start, werr)
	}()

	calls.Wait()

	// The caller's context bounds a call as well as the KV's timeout: a
	// deadline shorter than the timeout ends the call at that deadline,
	// and a cancellation ends it at once, each with its own error. (After
	// the calls above: by then the client has left its connection to the
	// member just killed, which fails a call at once.)
	const short, slack = 300 * time.Millisecond, 400 * time.Millisecond
	calls.Add(1)
	go func() {
		defer calls.Done()
		dctx, dcancel := context.WithTimeout(ctx, short)
		defer dcancel()
		start := time.Now()
		_, err := s.Get(dctx, loadKey(1))
		if d := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, etcdkv.ErrUnavailable) || d > short+slack {
			t.Errorf("Get with a %v deadline without quorum: %v after %v; want DeadlineExceeded and ErrUnavailable by %v", short, err, d, short+slack)
		}
	}()
	for what, call := range map[string]func(context.Context) error{
		"Put": func(c context.Context) error { return s.Put(c, loadKey(int(unacked)), nil) },
		"Scan": func(c context.Context) error {
			for _, err := range s.Scan(c, pattern, store.ScanOptions{}) {
				return err
			}
			return nil
		},
	} {
		calls.Add(1)
		go func() {
			defer calls.Done()
			cctx, ccancel := context.WithCancel(ctx)
			defer ccancel()
			time.AfterFunc(short, ccancel)
			start := time.Now()
			err := call(cctx)
			if d := time.Since(start); !errors.Is(err, context.Canceled) || errors.Is(err, etcdkv.ErrUnavailable) || d > short+slack {
				t.Errorf("%s cancelled after %v without quorum: %v after %v; want Canceled by %v", what, short, err, d, short+slack)
			}
		}()
	}
	calls.Wait()
	watchCheck.Wait()

	// Both back: every acknowledged write is there.
	c.Restart(leader)
	c.Restart(second)
	if err := c.WaitReady(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	checkAll("after the restart")
	if err := s.Put(ctx, loadKey(total), []byte("after")); err != nil {
		t.Errorf("Put after the restart: %v", err)
	}
}
