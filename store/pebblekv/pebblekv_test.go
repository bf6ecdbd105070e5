package pebblekv_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

var ctx = context.Background()

func TestPebbleConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.KV {
		kv, err := pebblekv.Open(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return kv
	})
}

func mustParse(t *testing.T, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return x
}

func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := mustParse(t, "{user, 1, <<\"ann\">>}"), mustParse(t, "{user, 2, <<\"bob\">>}")
	if err := s.Put(ctx, k1, []byte("one")); err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	b.Put(k2, []byte("two"))
	b.Put(mustParse(t, "{user, 3}"), []byte("three"))
	b.Delete(mustParse(t, "{user, 3}"))
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, store.ErrClosed) {
		t.Errorf("second Close = %v, want ErrClosed", err)
	}
	if _, err := s.Get(ctx, k1); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
	for range s.Scan(ctx, term.Atom("_"), store.ScanOptions{}) {
		break // yields ErrClosed, must not panic
	}

	s, err = pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for e, err := range s.Scan(ctx, mustParse(t, "{user, '_', '_'}"), store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Key.String()+"="+string(e.Value))
	}
	want := []string{k1.String() + "=one", k2.String() + "=two"}
	if !slices.Equal(got, want) {
		t.Errorf("after reopen: %q, want %q", got, want)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Backend != "pebble" || st.DiskBytes == 0 {
		t.Errorf("Stats = %+v, %v", st, err)
	}
}

// TestBulkNoWAL checks that a store written without a WAL is flushed by
// Close, so nothing is lost.
func TestBulkNoWAL(t *testing.T) {
	dir := t.TempDir()
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{NoSync: true}, Pebble: pebblekv.Options{DisableWAL: true, MemTableSize: 8 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	for i := range 5000 {
		b.Put(term.Tuple(term.Atom("n"), term.Int(int64(i))), []byte("x"))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	for _, err := range s.Scan(ctx, mustParse(t, "{n, '_'}"), store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 5000 {
		t.Errorf("%d keys after reopen, want 5000", n)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.KeysEstimate != 5000 {
		t.Errorf("KeysEstimate = %d, want 5000", st.KeysEstimate)
	}
}

func TestOpenErrors(t *testing.T) {
	tmp := t.TempDir()

	_, err := pebblestore.Open(ctx, filepath.Join(tmp, "no", "such", "dir"), nil)
	if !errors.Is(err, store.ErrNoStore) {
		t.Errorf("Open under a missing parent: %v, want ErrNoStore", err)
	}
	if _, statErr := os.Stat(filepath.Join(tmp, "no")); statErr == nil {
		t.Error("Open created missing parent directories")
	}

	_, err = pebblestore.Open(ctx, filepath.Join(tmp, "absent"), &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if !errors.Is(err, store.ErrNoStore) {
		t.Errorf("Open(MustExist) of a missing dir: %v, want ErrNoStore", err)
	}
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	_, err = pebblestore.Open(ctx, empty, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if !errors.Is(err, store.ErrNoStore) {
		t.Errorf("Open(MustExist) of an empty dir: %v, want ErrNoStore", err)
	}

	file := filepath.Join(tmp, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := pebblestore.Open(ctx, file, nil); !errors.Is(err, store.ErrNoStore) {
		t.Errorf("Open(a file): %v, want ErrNoStore", err)
	}

	dir := filepath.Join(tmp, "db")
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pebblestore.Open(ctx, dir, nil)
	var pe *fs.PathError
	if !errors.Is(err, store.ErrLocked) || !errors.As(err, &pe) || pe.Path != dir {
		t.Errorf("Open of an open store: %v, want ErrLocked naming %s", err, dir)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = pebblestore.Open(ctx, dir, nil) // the lock is released by Close
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	s.Close()
}

// TestForeignKeyThroughPebble writes a key that is no sext encoding with
// Pebble itself, as another program would, and scans past it.
func TestForeignKeyThroughPebble(t *testing.T) {
	dir := t.TempDir()
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s.Put(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte("v"))
	}
	s.Close()

	db, err := pebble.Open(dir, &pebble.Options{Logger: silent{}})
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := sext.Encode(term.Tuple(term.Atom("k"), term.Int(1)))
	foreign := append(enc[:len(enc):len(enc)], 0xEE) // sorts between {k,1} and {k,2}
	if err := db.Set(foreign, []byte("?"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err = pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var bad [][]byte
	var keys []string
	for e, err := range s.Scan(ctx, mustParse(t, "{k, '_'}"), store.ScanOptions{OnBadKey: func(k []byte, err error) {
		if !errors.Is(err, sext.ErrTrailing) {
			t.Errorf("OnBadKey error %v, want ErrTrailing", err)
		}
		bad = append(bad, k)
	}}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, e.Key.String())
	}
	if !slices.Equal(keys, []string{"{k,0}", "{k,1}", "{k,2}"}) || len(bad) != 1 || string(bad[0]) != string(foreign) {
		t.Errorf("scan = %q, bad keys %x; want three keys and %x", keys, bad, foreign)
	}
}

type silent struct{}

func (silent) Infof(string, ...any)      {}
func (silent) Errorf(f string, a ...any) { panic("pebble: " + fmt.Sprintf(f, a...)) }
func (silent) Fatalf(f string, a ...any) { panic("pebble: " + fmt.Sprintf(f, a...)) }
