package pebblekv_test

import (
	"github.com/erlsext/sext/internal/tmpfs"

	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
)

// smallDisk is a tmpfs of size for the test (tmpfs.Mount).
func smallDisk(t *testing.T, size string) string { return tmpfs.Mount(t, size) }

// growDisk gives the tmpfs on dir more room, as freeing space would.
func growDisk(t *testing.T, dir, size string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size="+size); err != nil {
		t.Fatalf("growing the tmpfs on %s to %s: %v", dir, size, err)
	}
}

// TestRealDiskFull loads keys into a store on a 2 MiB tmpfs, syncing
// every batch, until the disk is full. Pebble panicked there ("no space
// left on device", re-panicked past the store), and every later open
// spun in pebble.Open, logging each retry and leaving empty tables. Now
// the write that meets the full disk returns ENOSPC, reads go on, the
// store reopens read-only with every synced key while the disk is full,
// and for writing once the disk has room, with every synced key.
func TestRealDiskFull(t *testing.T) {
	mnt := smallDisk(t, "2m")
	lines := logLines(t)
	dir := filepath.Join(mnt, "s")
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		t.Fatal(err)
	}
	synced, n := 0, 0
	var werr error
	within(t, 30*time.Second, "loading a full disk", func() {
		for werr == nil {
			b := s.NewBatch()
			for range 100 {
				b.Put(key(n), bytes.Repeat([]byte{'v'}, 100))
				n++
			}
			if werr = s.Apply(ctx, b); werr == nil {
				if werr = s.Sync(ctx); werr == nil {
					synced = n
				}
			}
		}
	})
	t.Logf("%d keys synced before: %v", synced, werr)
	if !isNoSpace(werr) || synced == 0 {
		t.Fatalf("loading a full disk: %v after %d keys synced, want ErrWritesStopped and ENOSPC after some", werr, synced)
	}
	checkKeys(t, s, synced)
	within(t, 10*time.Second, "Close on a full disk", func() { s.Close() })

	for _, opts := range []*pebblestore.Options{nil, {Store: store.Options{NoSync: true}}} {
		within(t, 10*time.Second, "Open on a full disk", func() { s, err = pebblestore.Open(ctx, dir, opts) })
		if err != nil {
			t.Fatalf("Open on a full disk: %v, want a read-only store", err)
		}
		checkKeys(t, s, synced)
		if err := s.Put(ctx, key(0), []byte("x")); !isNoSpace(err) {
			t.Errorf("Put on a full disk: %v, want ENOSPC", err)
		}
		within(t, 10*time.Second, "Close on a full disk", func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close of the store opened read-only: %v, want nil: it took no writes", err)
			}
		})
	}
	if empty := emptyTables(t, dir); empty > 1 {
		t.Errorf("%d empty tables left on the full disk", empty)
	}

	growDisk(t, mnt, "64m")
	s, err = pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatalf("Open once the disk has room: %v", err)
	}
	checkKeys(t, s, synced)
	if err := s.Put(ctx, key(0), []byte("x")); err != nil {
		t.Errorf("Put once the disk has room: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if l := lines(); len(l) != 0 {
		t.Errorf("logged %d lines, want none: %q", len(l), l[:min(len(l), 5)])
	}
}

func emptyTables(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, f := range files(t, dir) {
		if name, size, _ := strings.Cut(f, " "); strings.HasSuffix(name, ".sst") && size == "0" {
			n++
		}
	}
	return n
}
