package storetest

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/seam"
)

// recorder is a testing.TB that keeps what Errorf reports instead of
// failing the test, so that a test can check the checker.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recorder) reports() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.msgs...)
}

// TestCheckedReportsMisuse: each breach of the seam's rules is reported
// once, with the words that name it, and not passed on to the backend;
// correct use is reported never.
func TestCheckedReportsMisuse(t *testing.T) {
	for _, c := range []struct {
		name string
		use  func(t *testing.T, kv store.KV)
		want string // "" for none
	}{
		{"iterator used as the seam says", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			for it.Next() {
				_, _ = it.Key(), it.Value()
			}
			_ = it.Err()
			it.Close()
		}, ""},
		{"batch used as the seam says", func(t *testing.T, kv store.KV) {
			wb := kv.NewBatch()
			wb.Set([]byte("b"), nil)
			wb.Delete([]byte("a"))
			_ = wb.Count()
			wb.Commit(ctx, false)
			wb.Close()
			kv.NewBatch().Close() // discarded
		}, ""},
		{"iterator closed twice", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			it.Close()
			it.Close()
		}, "Iter.Close twice"},
		{"Next after Close", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			it.Close()
			it.Next()
		}, "Iter.Next after Close"},
		{"Err after Close", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			it.Close()
			it.Err()
		}, "Iter.Err after Close"},
		{"Key before Next", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			defer it.Close()
			it.Key()
		}, "Iter.Key when the cursor is on no key"},
		{"Value past the end", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			defer it.Close()
			for it.Next() {
			}
			it.Value()
		}, "Iter.Value when the cursor is on no key"},
		{"iterator left open at KV.Close", func(t *testing.T, kv store.KV) {
			newIter(t, kv)
		}, "iterator was still open when the KV was closed"},
		{"iterator used by two goroutines", func(t *testing.T, kv store.KV) {
			it := newIter(t, kv)
			defer it.Close()
			ci := it.(*checkedIter)
			ci.busy.Store(1) // as if another goroutine were inside Next
			it.Next()
			ci.busy.Store(0)
		}, "while another goroutine is using the iterator"},
		{"batch closed twice", func(t *testing.T, kv store.KV) {
			wb := kv.NewBatch()
			wb.Close()
			wb.Close()
		}, "WriteBatch.Close twice"},
		{"Set after Close", func(t *testing.T, kv store.KV) {
			wb := kv.NewBatch()
			wb.Close()
			wb.Set([]byte("x"), nil)
		}, "WriteBatch.Set after Close"},
		{"Commit after Commit", func(t *testing.T, kv store.KV) {
			wb := kv.NewBatch()
			defer wb.Close()
			wb.Set([]byte("x"), nil)
			wb.Commit(ctx, false)
			wb.Commit(ctx, false)
		}, "WriteBatch.Commit after Commit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			kv := newChecked(t, rec)
			c.use(t, kv)
			if err := kv.Close(); err != nil && c.want == "" {
				t.Errorf("Close: %v", err)
			}
			got := rec.reports()
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("correct use reported: %q", got)
			case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
				t.Errorf("reports %q, want one with %q", got, c.want)
			}
		})
	}
}

// TestCheckedSpoilsKeptKeys: a key or value kept past the next Next (or
// Close) no longer holds what it did, so that a caller that keeps one
// without copying fails; and the backend's own bytes are untouched.
func TestCheckedSpoilsKeptKeys(t *testing.T) {
	rec := &recorder{TB: t}
	kv := newChecked(t, rec)
	defer kv.Close()
	it := newIter(t, kv)
	if !it.Next() {
		t.Fatal("no first key")
	}
	k, v := it.Key(), it.Value()
	if string(k) != "a" || string(v) != "1" {
		t.Fatalf("first pair %q %q", k, v)
	}
	it.Next()
	if bytes.Equal(k, []byte("a")) || bytes.Equal(v, []byte("1")) {
		t.Errorf("key and value kept past Next still read %q %q", k, v)
	}
	it.Close()
	if got, err := kv.Get(ctx, []byte("a")); err != nil || string(got) != "1" {
		t.Errorf("the backend's value became %q, %v", got, err)
	}
	if r := rec.reports(); len(r) > 0 {
		t.Errorf("reports %q", r)
	}
}

// newChecked opens a Pebble KV holding a=1, b=2, checked against rec.
func newChecked(t *testing.T, rec *recorder) store.KV {
	raw, err := pebblekv.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	wb := raw.NewBatch()
	wb.Set([]byte("a"), []byte("1"))
	wb.Set([]byte("b"), []byte("2"))
	if err := wb.Commit(ctx, false); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	return Checked(rec, raw)
}

func newIter(t *testing.T, kv seam.KV) seam.Iter {
	t.Helper()
	it, err := kv.NewIter(ctx, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return it
}
