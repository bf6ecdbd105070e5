package store_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// TestCodec: the store encodes and decodes keys with Options.Codec. With
// UTF8Atoms a key holding an atom beyond Latin-1 is stored, read and
// scanned, which the default codec refuses; with Legacy the store writes
// legacy bignums, and Check counts them canonical, since they are what
// this store's codec writes.
func TestCodec(t *testing.T) {
	dir := t.TempDir()
	k := term.Tuple(term.Atom("café€"), term.Int(1))
	s, err := openChecked(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, k, []byte("x")); !errors.Is(err, sext.ErrUnencodable) {
		t.Errorf("Put of a UTF-8 atom with the default codec: %v, want ErrUnencodable", err)
	}
	s.Close()

	s, err = openChecked(t, dir, &store.Options{Codec: sext.Options{UTF8Atoms: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, k, []byte("x")); err != nil {
		t.Fatalf("Put with UTF8Atoms: %v", err)
	}
	if v, err := s.Get(ctx, k); err != nil || string(v) != "x" {
		t.Errorf("Get with UTF8Atoms: %q, %v", v, err)
	}
	n := 0
	for e, err := range s.Scan(ctx, term.Tuple(term.Atom("café€"), term.Atom("_")), store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if !term.Equal(e.Key, k) {
			t.Errorf("Scan with UTF8Atoms: %v, want %v", e.Key, k)
		}
		n++
	}
	if n != 1 {
		t.Errorf("Scan with UTF8Atoms: %d keys, want 1", n)
	}
	if c := s.Codec(); !c.UTF8Atoms {
		t.Errorf("Codec() = %+v, want UTF8Atoms", c)
	}
	s.Close()

	legacy := &store.Options{Codec: sext.Options{Legacy: true}}
	s, err = openChecked(t, t.TempDir(), legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bk := term.Tuple(term.Atom("big"), term.BigInt(new(big.Int).Lsh(big.NewInt(1), 70)))
	if err := s.Put(ctx, bk, []byte("v")); err != nil {
		t.Fatal(err)
	}
	want, _ := sext.Options{Legacy: true}.Encode(bk)
	if plain, _ := sext.Encode(bk); string(plain) == string(want) {
		t.Fatal("the legacy and current encodings of 2^70 are the same bytes; pick another number")
	}
	if v, err := s.KV().Get(ctx, want); err != nil || string(v) != "v" {
		t.Errorf("the store with Legacy did not write the legacy bytes: %q, %v", v, err)
	}
	if r, err := s.Check(ctx, store.CheckOptions{}); err != nil || !r.Clean() || r.Keys != 1 {
		t.Errorf("Check with Legacy = %+v, %v; want one key, clean", r, err)
	}
}
