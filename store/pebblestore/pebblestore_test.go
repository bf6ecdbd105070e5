package pebblestore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

var ctx = context.Background()

// TestOpen: Open passes each half of its options to its side (the
// engine's MustExist, the store's codec), a Store it returns owns the
// engine (Close releases the directory's lock), and its errors wrap the
// store's sentinels.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := pebblestore.Open(ctx, filepath.Join(dir, "absent"), &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}}); !errors.Is(err, store.ErrNoStore) {
		t.Fatalf("Open(absent, MustExist) = %v, want ErrNoStore", err)
	}
	codec := sext.Options{UTF8Atoms: true}
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{Codec: codec}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Codec(); got != codec {
		t.Errorf("Codec() = %+v, want %+v", got, codec)
	}
	key := term.Tuple(term.Atom("k"), term.Int(1))
	if err := s.Put(ctx, key, []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, err := pebblestore.Open(ctx, dir, nil); !errors.Is(err, store.ErrLocked) {
		t.Errorf("a second Open of an open store = %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer s.Close()
	if v, err := s.Get(ctx, key); err != nil || string(v) != "v" {
		t.Errorf("Get after reopening = %q, %v; want \"v\"", v, err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := pebblestore.Open(done, t.TempDir(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context = %v, want context.Canceled", err)
	}
}
