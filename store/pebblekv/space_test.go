package pebblekv_test

import (
	"bytes"
	"context"
	"errors"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// fullFS is a disk that fills when told: while full is set, creating a
// file whose name has one of the suffixes and writing or syncing any
// file fails with ENOSPC, and the disk reports no room; hang makes
// Create wait until it is cleared.
type fullFS struct {
	vfs.FS
	full     atomic.Bool
	suffixes []string // the files Create refuses when full; none: all
	hang     atomic.Bool
}

func (f *fullFS) refuses(name string) bool {
	if !f.full.Load() {
		return false
	}
	if len(f.suffixes) == 0 {
		return true
	}
	for _, s := range f.suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

func (f *fullFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	for f.hang.Load() {
		time.Sleep(time.Millisecond)
	}
	if f.refuses(name) {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ENOSPC}
	}
	file, err := f.FS.Create(name, cat)
	if err != nil {
		return nil, err
	}
	return &fullFile{File: file, fs: f, name: name}, nil
}

func (f *fullFS) GetDiskUsage(path string) (vfs.DiskUsage, error) {
	du, err := f.FS.GetDiskUsage(path)
	if f.full.Load() && len(f.suffixes) == 0 {
		du.AvailBytes = 0
	}
	return du, err
}

type fullFile struct {
	vfs.File
	fs   *fullFS
	name string
}

func (f *fullFile) enospc(op string) error {
	if f.fs.full.Load() && len(f.fs.suffixes) == 0 {
		return &os.PathError{Op: op, Path: f.name, Err: syscall.ENOSPC}
	}
	return nil
}

func (f *fullFile) Write(p []byte) (int, error) {
	if err := f.enospc("write"); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *fullFile) Sync() error {
	if err := f.enospc("sync"); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *fullFile) SyncData() error {
	if err := f.enospc("sync"); err != nil {
		return err
	}
	return f.File.SyncData()
}

// useFS makes the stores the test opens write through fs.
func useFS(t *testing.T, fs *fullFS) {
	fs.FS = vfs.Default
	pebblekv.SetTestFS(func(vfs.FS) vfs.FS { return fs })
	t.Cleanup(func() { pebblekv.SetTestFS(nil) })
}

// logLines captures the standard logger's lines for the test.
func logLines(t *testing.T) func() []string {
	var mu sync.Mutex
	var buf bytes.Buffer
	log.SetOutput(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}))
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return strings.FieldsFunc(buf.String(), func(r rune) bool { return r == '\n' })
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// within runs fn and fails the test if it takes longer than d: a store
// that waits forever on a full disk would hang the test instead.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) && errors.Is(err, pebblekv.ErrWritesStopped)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func key(i int) term.Term { return term.Tuple(term.Atom("k"), term.Int(int64(i))) }

// TestDiskFullStopsWrites fills the disk under a load that syncs every
// batch: the write that meets the full disk returns an error wrapping
// ErrWritesStopped and syscall.ENOSPC, and so does every later one,
// where Pebble panicked and then spun; reads go on; Close returns; the
// store opens read-only while the disk is full, with every synced key;
// and once there is room it opens for writing with every synced key.
// Nothing is logged.
func TestDiskFullStopsWrites(t *testing.T) {
	fs := &fullFS{}
	useFS(t, fs)
	lines := logLines(t)
	dir := t.TempDir()
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	synced, n := 0, 0
	var werr error
	within(t, 10*time.Second, "writing to a full disk", func() {
		for batch := 0; batch < 100; batch++ {
			if batch == 5 {
				fs.full.Store(true)
			}
			b := s.NewBatch()
			for range 100 {
				b.Put(key(n), bytes.Repeat([]byte{'v'}, 200))
				n++
			}
			if werr = s.Apply(ctx, b); werr != nil {
				return
			}
			if werr = s.Sync(ctx); werr != nil {
				return
			}
			synced = n
		}
	})
	if !isNoSpace(werr) {
		t.Fatalf("writing to a full disk: %v, want ErrWritesStopped and ENOSPC", werr)
	}
	if synced != 500 {
		t.Errorf("%d keys synced before the disk filled, want 500", synced)
	}
	within(t, 5*time.Second, "a write after the disk filled", func() {
		if err := s.Put(ctx, key(0), []byte("again")); !isNoSpace(err) {
			t.Errorf("Put after the disk filled: %v, want ErrWritesStopped and ENOSPC", err)
		}
	})
	if v, err := s.Get(ctx, key(synced-1)); err != nil || len(v) != 200 {
		t.Errorf("Get of a synced key after the disk filled: %q, %v", v, err)
	}
	within(t, 5*time.Second, "Close", func() {
		if err := s.Close(); !isNoSpace(err) {
			t.Errorf("Close after the disk filled: %v, want the error that stopped the writes", err)
		}
	})

	// Full: it opens read-only, with every synced key.
	within(t, 10*time.Second, "opening on a full disk", func() {
		s, err = pebblestore.Open(ctx, dir, nil)
	})
	if err != nil {
		t.Fatalf("Open on a full disk: %v, want a read-only store", err)
	}
	checkKeys(t, s, synced)
	if err := s.Put(ctx, key(0), []byte("x")); !isNoSpace(err) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Put to a store opened read-only on a full disk: %v, want ENOSPC saying why", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close of the store opened read-only: %v, want nil: it took no writes", err)
	}

	// Room again: it opens for writing, with every synced key.
	fs.full.Store(false)
	s, err = pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkKeys(t, s, synced)
	if err := s.Put(ctx, key(0), []byte("x")); err != nil {
		t.Errorf("Put once the disk has room: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if l := lines(); len(l) != 0 {
		t.Errorf("logged %d lines, want none: %q", len(l), l)
	}
}

// checkKeys checks that keys 0 to n-1 are in s.
func checkKeys(t *testing.T, s *store.Store, n int) {
	t.Helper()
	for i := range n {
		if _, err := s.Get(ctx, key(i)); err != nil {
			t.Fatalf("key %d of %d synced: %v", i, n, err)
		}
	}
}

// TestDiskFullDuringOpen: the disk has room when the open looks, but not
// for the tables Pebble writes from the logs before its Open returns,
// which it retried forever at full CPU, logging each try. OpenContext
// returns ENOSPC at once; the abandoned open waits a second between
// tries; and once there is room it ends, closes and unlocks the store,
// which then opens with every key.
func TestDiskFullDuringOpen(t *testing.T) {
	fs := &fullFS{suffixes: []string{".sst"}}
	useFS(t, fs)
	lines := logLines(t)
	dir := t.TempDir()
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	for i := range 2000 {
		b.Put(key(i), bytes.Repeat([]byte{'v'}, 100))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // the keys are in the log only
		t.Fatal(err)
	}

	fs.full.Store(true)
	start := time.Now()
	within(t, 5*time.Second, "Open on a disk without room for the tables", func() {
		_, err = pebblestore.Open(ctx, dir, nil)
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Open with no room for the tables: %v, want ENOSPC", err)
	}
	t.Logf("Open returned after %v: %v", time.Since(start).Round(time.Millisecond), err)
	// Watched for 2 s at testsize's full size, 1 s in a quick run: the
	// open that spun used the whole window's CPU.
	window := testsize.Pick(time.Second, 2*time.Second)
	cpu := cpuTime(t)
	time.Sleep(window)
	if used := cpuTime(t) - cpu; used > window/4 {
		t.Errorf("the abandoned open used %v of CPU in %v, want it idle between tries", used, window)
	} else {
		t.Logf("the abandoned open used %v of CPU in %v", used, window)
	}
	if _, err := pebblestore.Open(ctx, dir, nil); !errors.Is(err, store.ErrLocked) {
		t.Errorf("Open while the abandoned open holds the store: %v, want ErrLocked", err)
	}

	fs.full.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err = pebblestore.Open(ctx, dir, nil)
		if !errors.Is(err, store.ErrLocked) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Open once there is room: %v", err)
	}
	checkKeys(t, s, 2000)
	s.Close()
	if l := lines(); len(l) != 0 {
		t.Errorf("logged %d lines, want none: %q", len(l), l)
	}
}

// TestOpenContext: OpenContext returns ctx's error when ctx is done
// before the open, or while Pebble's open waits on a disk that does not
// answer, and the store opens once the abandoned open has ended.
func TestOpenContext(t *testing.T) {
	fs := &fullFS{}
	useFS(t, fs)
	dir := t.TempDir()
	fill(t, dir, 100)
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := pebblestore.Open(done, dir, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenContext(a cancelled ctx): %v, want context.Canceled", err)
	}
	if s, err := pebblestore.Open(ctx, dir, nil); err != nil {
		t.Fatalf("Open after a cancelled OpenContext: %v", err)
	} else {
		s.Close()
	}

	fs.hang.Store(true)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var err error
	within(t, 5*time.Second, "OpenContext on a disk that does not answer", func() {
		_, err = pebblestore.Open(short, dir, nil)
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("OpenContext on a disk that does not answer: %v, want context.DeadlineExceeded", err)
	}
	fs.hang.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	var s *store.Store
	for {
		s, err = pebblestore.Open(ctx, dir, nil)
		if !errors.Is(err, store.ErrLocked) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Open after the abandoned open: %v", err)
	}
	checkKeys(t, s, 100)
	s.Close()
}

// TestDiskFullWithoutWAL: with the log off a sync is a flush, and
// Pebble's Flush waits until a flush succeeds, which on a full disk is
// never. Sync returns ENOSPC instead, and Close returns.
func TestDiskFullWithoutWAL(t *testing.T) {
	fs := &fullFS{}
	useFS(t, fs)
	s, err := pebblestore.Open(ctx, t.TempDir(), &pebblestore.Options{Store: store.Options{NoSync: true}, Pebble: pebblekv.Options{DisableWAL: true}})
	if err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	for i := range 1000 {
		b.Put(key(i), bytes.Repeat([]byte{'v'}, 100))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	fs.full.Store(true)
	within(t, 5*time.Second, "Sync on a full disk without the log", func() {
		if err := s.Sync(ctx); !isNoSpace(err) {
			t.Errorf("Sync on a full disk without the log: %v, want ENOSPC", err)
		}
	})
	within(t, 5*time.Second, "Close on a full disk without the log", func() {
		if err := s.Close(); !isNoSpace(err) {
			t.Errorf("Close: %v, want the error that stopped the writes", err)
		}
	})
}

// TestDiskFullNewStore: on a full disk a store cannot be created (ENOSPC,
// saying so), and one that must exist and does not is ErrNoStore, not
// ENOSPC.
func TestDiskFullNewStore(t *testing.T) {
	fs := &fullFS{}
	useFS(t, fs)
	fs.full.Store(true)
	dir := t.TempDir()
	_, err := pebblestore.Open(ctx, dir, nil)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "create a store") {
		t.Errorf("creating a store on a full disk: %v, want ENOSPC saying so", err)
	}
	_, err = pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if !errors.Is(err, store.ErrNoStore) || errors.Is(err, syscall.ENOSPC) {
		t.Errorf("opening an absent store on a full disk: %v, want ErrNoStore", err)
	}
}
