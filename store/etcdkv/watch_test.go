package etcdkv_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// watched runs a watch in the background and hands its events over.
type watched struct {
	events chan etcdkv.Event
	errc   chan error
	bad    chan []byte
	cancel context.CancelFunc
}

func startWatch(t *testing.T, kv *etcdkv.KV, pattern term.Term, from int64) *watched {
	ctx, cancel := context.WithCancel(context.Background())
	w := &watched{events: make(chan etcdkv.Event, 1000), errc: make(chan error, 1), bad: make(chan []byte, 100), cancel: cancel}
	done := make(chan struct{})
	go func() {
		defer close(done)
		opts := etcdkv.WatchOptions{FromRevision: from, OnBadKey: func(k []byte, err error) { w.bad <- k }}
		for ev, err := range kv.Watch(ctx, pattern, opts) {
			if err != nil {
				w.errc <- err
				return
			}
			w.events <- ev
		}
	}()
	// No goroutine outlives the test.
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// next returns the next n events, failing after a few seconds.
func (w *watched) next(t *testing.T, n int) []etcdkv.Event {
	t.Helper()
	var out []etcdkv.Event
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case ev := <-w.events:
			out = append(out, ev)
		case err := <-w.errc:
			t.Fatalf("watch ended after %d of %d events: %v", len(out), n, err)
		case <-timeout:
			t.Fatalf("watch gave %d of %d events in 10s: %v", len(out), n, describe(out))
		}
	}
	return out
}

// quiet checks that no further event comes for a moment.
func (w *watched) quiet(t *testing.T) {
	t.Helper()
	select {
	case ev := <-w.events:
		t.Errorf("unexpected event %s", describe([]etcdkv.Event{ev}))
	case <-time.After(300 * time.Millisecond):
	}
}

func describe(evs []etcdkv.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, fmt.Sprintf("%v %v %q", ev.Kind, ev.Key, ev.Value))
	}
	return out
}

// testWatchJobs is the use case: a registry of jobs keyed
// {job, Queue, State, Id}; a worker watches {job, q1, ready, '_'} and
// sees exactly the ready jobs of q1, and can resume from a revision.
func testWatchJobs(t *testing.T, c *etcdcluster.Cluster) {
	kv := openT(t, c, etcdkv.Options{Prefix: []byte("jobs/")})
	s := store.New(storetest.Checked(t, kv), nil)
	job := func(q, state string, id int) term.Term {
		return term.Tuple(term.Atom("job"), term.Atom(q), term.Atom(state), term.Int(int64(id)))
	}
	put := func(k term.Term) {
		t.Helper()
		if err := s.Put(ctx, k, []byte(k.String())); err != nil {
			t.Fatal(err)
		}
	}
	// A job already there before the worker starts.
	put(job("q1", "ready", 0))

	pattern := mustParse(t, "{job, q1, ready, '_'}")
	rev, err := kv.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// List, then watch from just after the list's revision: nothing is
	// missed between the two.
	var listed []string
	for e, err := range s.Scan(ctx, pattern, store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, keyString(e.Key))
	}
	if !slices.Equal(listed, []string{"{job,q1,ready,0}"}) {
		t.Errorf("listed %v", listed)
	}
	w := startWatch(t, kv, pattern, rev+1)

	put(job("q1", "ready", 1))
	// Another queue, another state, an atom that starts like q1, another
	// arity: none of them match.
	put(job("q2", "ready", 2))
	put(job("q1", "running", 3))
	put(job("q10", "ready", 4))
	put(term.Tuple(term.Atom("job"), term.Atom("q1"), term.Atom("ready"), term.Int(5), term.Int(0)))
	put(job("q1", "ready", 6))
	// A key in the watched range that is not a sext encoding: reported,
	// skipped, and the watch goes on.
	lower, _, err := sext.PrefixRange(pattern)
	if err != nil {
		t.Fatal(err)
	}
	putRaw(t, kv, append(slices.Clone(lower), 0xEE, 0xEE))
	// A worker takes job 1: ready to running in one batch, one revision.
	b := s.NewBatch()
	b.Delete(job("q1", "ready", 1))
	b.Put(job("q1", "running", 1), nil)
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	put(job("q1", "ready", 7))

	got := w.next(t, 4)
	want := []string{"put {job,q1,ready,1}", "put {job,q1,ready,6}", "delete {job,q1,ready,1}", "put {job,q1,ready,7}"}
	var gotS []string
	for _, ev := range got {
		gotS = append(gotS, fmt.Sprintf("%v %v", ev.Kind, ev.Key))
	}
	if !slices.Equal(gotS, want) {
		t.Fatalf("watch saw %v, want %v", gotS, want)
	}
	w.quiet(t)
	select {
	case k := <-w.bad:
		if !slices.Equal(k, append(slices.Clone(lower), 0xEE, 0xEE)) {
			t.Errorf("bad key reported: %x", k)
		}
	default:
		t.Error("the foreign key was not reported")
	}
	if string(got[0].Value) != "{job,q1,ready,1}" || got[2].Value != nil {
		t.Errorf("values: put %q, delete %q", got[0].Value, got[2].Value)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Revision <= got[i-1].Revision {
			t.Errorf("revisions not increasing: %d then %d", got[i-1].Revision, got[i].Revision)
		}
	}

	// Bindings, as Scan gives them.
	wb := startWatch(t, kv, mustParse(t, "{job, '$1', ready, '$2'}"), got[3].Revision)
	if ev := wb.next(t, 1)[0]; len(ev.Bindings) != 2 || ev.Bindings[0].Value.String() != "q1" || ev.Bindings[1].Value.String() != "7" {
		t.Errorf("bindings %v", ev.Bindings)
	}

	// A worker that stopped after the second event resumes from the
	// revision after it, and sees the rest, then live changes.
	w2 := startWatch(t, kv, pattern, got[1].Revision+1)
	rest := w2.next(t, 2)
	if !term.Equal(rest[0].Key, got[2].Key) || rest[0].Kind != etcdkv.Delete || rest[1].Revision != got[3].Revision {
		t.Errorf("resumed watch saw %v, want %v", describe(rest), describe(got[2:]))
	}
	put(job("q1", "ready", 8))
	put(job("q2", "ready", 9))
	if ev := w2.next(t, 1)[0]; ev.Key.String() != "{job,q1,ready,8}" {
		t.Errorf("live after resume: %v", ev.Key)
	}
	if ev := w.next(t, 1)[0]; ev.Key.String() != "{job,q1,ready,8}" {
		t.Errorf("first watch, live: %v", ev.Key)
	}
	w2.quiet(t)

	// Breaking out of the loop ends the watch.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := 0
	for _, err := range kv.Watch(ctx, pattern, etcdkv.WatchOptions{FromRevision: rev + 1}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}

	// History the cluster has compacted away cannot be replayed.
	cur, err := kv.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Client().Compact(ctx, cur); err != nil {
		t.Fatal(err)
	}
	for _, err := range kv.Watch(ctx, pattern, etcdkv.WatchOptions{FromRevision: rev}) {
		if !errors.Is(err, etcdkv.ErrCompacted) {
			t.Errorf("watch from a compacted revision: %v, want ErrCompacted", err)
		}
		break
	}
}
