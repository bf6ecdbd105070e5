package pebblekv_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
)

// compactedStore makes a store whose current manifest ends in a
// compaction: two flushed tables of the same keys merged into a third
// and deleted. Cutting that last edit off leaves a manifest naming
// tables that are gone.
func compactedStore(t *testing.T, dir string) {
	t.Helper()
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := kv.DB()
	for round := range 2 {
		b := db.NewBatch()
		for i := range 2000 {
			b.Set(fmt.Appendf(nil, "\x10k%05d", i), fmt.Appendf(nil, "%d%s", round, strings.Repeat("v", 50)), nil)
		}
		if err := b.Commit(pebble.NoSync); err != nil {
			t.Fatal(err)
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
		t.Fatal(err)
	}
	if err := kv.Close(); err != nil {
		t.Fatal(err)
	}
}

// currentManifest returns the path of the manifest the marker names.
func currentManifest(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "marker.manifest.*"))
	if len(m) != 1 {
		t.Fatalf("manifest markers %v: %v", m, files(t, dir))
	}
	return filepath.Join(dir, m[0][strings.LastIndexByte(m[0], '.')+1:])
}

// TestDamagedManifestIsCorrupt: each damage to a store's manifest or to
// a table's size that makes Open fail makes it fail with ErrCorrupt,
// the error names the file or the store, and Open changes no file.
// Pebble reports these as plain errors (a missing file, "object size
// mismatch").
func TestDamagedManifestIsCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string) (names string)
	}{
		{"MANIFEST removed", func(t *testing.T, dir string) string {
			m := currentManifest(t, dir)
			if err := os.Remove(m); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(m)
		}},
		{"marker names a MANIFEST that is not there", func(t *testing.T, dir string) string {
			m, _ := filepath.Glob(filepath.Join(dir, "marker.manifest.*"))
			to := filepath.Join(dir, "marker.manifest.000099.MANIFEST-000099")
			if err := os.Rename(m[0], to); err != nil {
				t.Fatal(err)
			}
			return "MANIFEST-000099"
		}},
		{"MANIFEST cut short", func(t *testing.T, dir string) string {
			// Eight bytes off the end tear the compaction's edit, which
			// Pebble drops as a crash would leave it; the edits before
			// it name the two tables the compaction deleted.
			m := currentManifest(t, dir)
			fi, err := os.Stat(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(m, fi.Size()-8); err != nil {
				t.Fatal(err)
			}
			return "sstable"
		}},
		{"table cut to half", func(t *testing.T, dir string) string {
			sst := largest(t, dir, ".sst")
			fi, err := os.Stat(sst)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(sst, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(sst)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			compactedStore(t, dir)
			names := tc.damage(t, dir)
			before := slices.DeleteFunc(files(t, dir), func(s string) bool { return strings.HasPrefix(s, "LOCK ") })
			for _, opts := range []*pebblestore.Options{nil, {Pebble: pebblekv.Options{MustExist: true}}} {
				s, err := pebblestore.Open(ctx, dir, opts)
				if err == nil {
					s.Close()
					t.Fatalf("Open(%+v) of a damaged store succeeded", opts)
				}
				var ce *store.CorruptError
				if !errors.Is(err, store.ErrCorrupt) || !errors.As(err, &ce) || errors.Is(err, store.ErrNoStore) {
					t.Errorf("Open(%+v): %v, want a CorruptError and not ErrNoStore", opts, err)
				}
				if !strings.Contains(err.Error(), names) || strings.Contains(err.Error(), "\n") {
					t.Errorf("Open: %q, want one line naming %s", err, names)
				}
			}
			after := slices.DeleteFunc(files(t, dir), func(s string) bool { return strings.HasPrefix(s, "LOCK ") })
			if !slices.Equal(before, after) {
				t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}
