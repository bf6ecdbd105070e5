package pebblekv_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// fill writes n keys {k, I} with 100-byte values to the store in dir and
// flushes them into tables.
func fill(t *testing.T, dir string, n int) {
	t.Helper()
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(kv, &store.Options{NoSync: true})
	b := s.NewBatch()
	for i := range n {
		b.Put(term.Tuple(term.Atom("k"), term.Int(int64(i))), bytes.Repeat([]byte{byte('a' + i%26)}, 100))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := kv.DB().Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// files lists the names and sizes of the files in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d", e.Name(), fi.Size()))
	}
	return out
}

func largest(t *testing.T, dir, suffix string) string {
	t.Helper()
	var best string
	var size int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), suffix) && fi.Size() > size {
			best, size = filepath.Join(dir, e.Name()), fi.Size()
		}
	}
	if best == "" {
		t.Fatalf("no %s file in %s: %v", suffix, dir, files(t, dir))
	}
	return best
}

// TestCorruptTableIsAnError flips 64 bytes in the middle of a table and
// scans it: Pebble's default would end the process from inside the scan
// (its DataCorruption handler calls Fatalf); the store must return an
// error wrapping ErrCorrupt that names the table, and let the caller's
// deferred functions run.
func TestCorruptTableIsAnError(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 20000)
	sst := largest(t, dir, ".sst")
	data, err := os.ReadFile(sst)
	if err != nil {
		t.Fatal(err)
	}
	mid := len(data) / 2
	for i := mid; i < mid+64; i++ {
		data[i] ^= 0xFF
	}
	if err := os.WriteFile(sst, data, 0o644); err != nil {
		t.Fatal(err)
	}

	deferred := false
	scanErr := func() (err error) {
		defer func() { deferred = true }()
		s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
		if err != nil {
			return err
		}
		defer s.Close()
		n := 0
		for _, err := range s.Scan(ctx, term.Tuple(term.Atom("k"), term.Atom("_")), store.ScanOptions{}) {
			if err != nil {
				return err
			}
			n++
		}
		return fmt.Errorf("scanned %d keys without an error", n)
	}()
	if !deferred {
		t.Error("the caller's deferred function did not run")
	}
	var ce *store.CorruptError
	if !errors.Is(scanErr, store.ErrCorrupt) || !errors.As(scanErr, &ce) {
		t.Fatalf("scan of a corrupt table: %v, want an error wrapping ErrCorrupt", scanErr)
	}
	if filepath.Base(ce.Path) != filepath.Base(sst) {
		t.Errorf("CorruptError.Path = %q, want the table %s", ce.Path, sst)
	}
	if !strings.Contains(scanErr.Error(), filepath.Base(sst)) {
		t.Errorf("message %q does not name the table", scanErr)
	}

	// A point read of a key in the damaged block fails the same way, and
	// the store still closes.
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatal(err)
	}
	var getErr error
	for i := range 20000 {
		if _, err := s.Get(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i)))); err != nil {
			getErr = err
			break
		}
	}
	if !errors.Is(getErr, store.ErrCorrupt) {
		t.Errorf("Get over the corrupt table: %v, want ErrCorrupt", getErr)
	}
	if err := s.Close(); err != nil && !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("Close: %v", err)
	}
}

// TestMarkerRemovedIsRefused removes the manifest marker: Pebble would
// see no store, create an empty one and delete every table as obsolete.
// Open must refuse, create nothing and delete nothing, whether or not it
// may create a store.
func TestMarkerRemovedIsRefused(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 5000)
	ents, _ := os.ReadDir(dir)
	removed := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "marker.manifest.") {
			os.Remove(filepath.Join(dir, e.Name()))
			removed++
		}
	}
	if removed != 1 {
		t.Fatalf("removed %d manifest markers, want 1: %v", removed, files(t, dir))
	}
	before := files(t, dir)
	for _, opts := range []*pebblestore.Options{nil, {Pebble: pebblekv.Options{MustExist: true}}} {
		s, err := pebblestore.Open(ctx, dir, opts)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%+v) of a store without its marker succeeded", opts)
		}
		if !errors.Is(err, store.ErrCorrupt) || errors.Is(err, store.ErrNoStore) {
			t.Errorf("Open(%+v): %v, want ErrCorrupt and not ErrNoStore", opts, err)
		}
		if !strings.Contains(err.Error(), "no manifest marker") {
			t.Errorf("Open: %v does not say what is missing", err)
		}
	}
	// LOCK is created by the lock taken before the check; nothing else
	// may change.
	after := slices.DeleteFunc(files(t, dir), func(s string) bool { return strings.HasPrefix(s, "LOCK ") })
	before = slices.DeleteFunc(before, func(s string) bool { return strings.HasPrefix(s, "LOCK ") })
	if !slices.Equal(before, after) {
		t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
	}
}

// TestTornLogIsReported writes 1,000 synced keys, takes the directory as
// a crash would leave it (copied while the store is open: the keys are
// only in the log), cuts the log in half and opens the copy. Pebble
// replays what is left without a word; the store must say so, keep it on
// record for a later open and a check, and clear it when asked.
func TestTornLogIsReported(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := s.Put(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte("synced")); err != nil {
			t.Fatal(err)
		}
	}
	copyDir(t, dir, crashed)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	log := largest(t, crashed, ".log")
	fi, _ := os.Stat(log)
	if err := os.Truncate(log, fi.Size()/2); err != nil {
		t.Fatal(err)
	}

	s, err = pebblestore.Open(ctx, crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := s.Warnings()
	var ce *store.CorruptError
	if len(ws) != 1 || !errors.Is(ws[0], store.ErrTornLog) || !errors.Is(ws[0], store.ErrCorrupt) || !errors.As(ws[0], &ce) {
		t.Fatalf("Warnings after opening a torn log = %v, want one ErrTornLog", ws)
	}
	if filepath.Base(ce.Path) != filepath.Base(log) || ce.Offset <= 0 || ce.Offset > fi.Size()/2 {
		t.Errorf("torn log reported as %s at %d, want %s before offset %d", ce.Path, ce.Offset, log, fi.Size()/2)
	}
	n := 0
	for _, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 || n >= 1000 {
		t.Errorf("%d keys after the torn log, want some but not all of 1000", n)
	}
	s.Close()

	// The log has been replayed and is gone; the note is what remains.
	s, err = pebblestore.Open(ctx, crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Check(ctx, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || r.Clean() || r.Keys != int64(n) {
		t.Errorf("Check after reopening = %+v, want the torn log and %d keys", r, n)
	}
	if r, err = s.Check(ctx, store.CheckOptions{Fix: true}); err != nil || len(r.Warnings) != 1 {
		t.Errorf("Check(Fix) = %+v, %v; want the torn log reported once more", r, err)
	}
	if ws := s.Warnings(); len(ws) != 0 {
		t.Errorf("Warnings after Check(Fix) = %v, want none", ws)
	}
	s.Close()
	s, err = pebblestore.Open(ctx, crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ws := s.Warnings(); len(ws) != 0 {
		t.Errorf("Warnings after clearing and reopening = %v, want none", ws)
	}
}

// TestCleanLogIsNotReported: a store closed normally, or whose log was
// copied whole, opens without a warning.
func TestCleanLogIsNotReported(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		s.Put(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte("synced"))
	}
	copyDir(t, dir, crashed)
	s.Close()
	for _, d := range []string{dir, crashed} {
		s, err := pebblestore.Open(ctx, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ws := s.Warnings(); len(ws) != 0 {
			t.Errorf("%s: Warnings = %v, want none", d, ws)
		}
		s.Close()
	}
}

// copyDir copies the files of an open store, but its lock, as a crash
// would leave them on disk.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "LOCK" || e.IsDir() {
			continue
		}
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
}

// TestRecycledLogIsNotTorn: a kill right after Pebble started a new log
// in a recycled file leaves that file holding an older log's records,
// none of its own. Pebble's reader calls it an unexpected end at offset
// 0, and the store reported it torn, with check failing until --fix;
// nothing was written to it, so nothing was lost, and there is nothing
// to report. A log whose first record of its own is cut short still is.
func TestRecycledLogIsNotTorn(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := s.Put(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte("synced")); err != nil {
			t.Fatal(err)
		}
	}
	copyDir(t, dir, crashed)
	s.Close()
	log := largest(t, crashed, ".log")
	var num int
	if _, err := fmt.Sscanf(filepath.Base(log), "%06d.log", &num); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	recycled := filepath.Join(crashed, fmt.Sprintf("%06d.log", num+1))
	if err := os.WriteFile(recycled, data, 0o644); err != nil {
		t.Fatal(err)
	}

	s, err = pebblestore.Open(ctx, crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ws := s.Warnings(); len(ws) != 0 {
		t.Errorf("Warnings with a recycled, unwritten log = %v, want none", ws)
	}
	r, err := s.Check(ctx, store.CheckOptions{})
	if err != nil || !r.Clean() || r.Keys != 100 {
		t.Errorf("Check = %+v, %v; want 100 keys, clean", r, err)
	}
	s.Close()

	// A log whose first record, its own, is cut short is still torn,
	// at offset 0.
	dir, crashed = t.TempDir(), t.TempDir()
	s, err = pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	for i := range 1000 {
		b.Put(term.Tuple(term.Atom("k"), term.Int(int64(i))), bytes.Repeat([]byte("v"), 100))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	copyDir(t, dir, crashed)
	s.Close()
	log = largest(t, crashed, ".log")
	fi, _ := os.Stat(log)
	os.Truncate(log, fi.Size()/2)
	s, err = pebblestore.Open(ctx, crashed, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ce *store.CorruptError
	if ws := s.Warnings(); len(ws) != 1 || !errors.As(ws[0], &ce) || ce.Offset != 0 || !errors.Is(ws[0], store.ErrTornLog) {
		t.Errorf("Warnings with a log cut inside its first record = %v, want it torn at offset 0", ws)
	}
}
