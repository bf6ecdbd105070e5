package store_test

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// FuzzClassify feeds hostile key bytes to the check a scan and Check
// make of every key: it never panics, a foreign key is never canonical,
// and the canonical bytes Check would rewrite a key to are canonical
// themselves and decode to the same term, so a fix is final and loses
// nothing.
func FuzzClassify(f *testing.F) {
	seeds := storetest.NewSeeds(f)
	for _, k := range [][]byte{seeds.Foreign, seeds.Legacy, seeds.Unsorted, {}, {0x83}} {
		f.Add(k, false)
	}
	good, _ := sext.Encode(term.Tuple(term.Atom("k"), term.Int(1)))
	f.Add(good, true)
	f.Fuzz(func(t *testing.T, k []byte, utf8 bool) {
		codec := sext.Options{UTF8Atoms: utf8, MaxDepth: 200}
		x, canon, ok, err := store.Classify(codec, nil, k)
		if err != nil {
			if ok {
				t.Fatalf("foreign key %x classified canonical", k)
			}
			return
		}
		if ok != bytes.Equal(canon, k) {
			t.Fatalf("key %x: canonical=%v but canonical bytes %x", k, ok, canon)
		}
		if canon == nil {
			return // decodes, does not encode: left alone
		}
		y, again, ok2, err := store.Classify(codec, nil, canon)
		if err != nil || !ok2 || !bytes.Equal(again, canon) {
			t.Fatalf("key %x: its canonical bytes %x are not canonical: %v", k, canon, err)
		}
		if !term.Equal(x, y) {
			t.Fatalf("key %x decodes to %v, its canonical bytes to %v", k, x, y)
		}
	})
}

// TestClassifySeeds pins what classify says of the seed keys.
func TestClassifySeeds(t *testing.T) {
	seeds := storetest.NewSeeds(t)
	good, _ := sext.Encode(seeds.LegacyTerm)
	for _, c := range []struct {
		name           string
		key            []byte
		canonical, bad bool
	}{
		{"foreign", seeds.Foreign, false, true},
		{"legacy bignum", seeds.Legacy, false, false},
		{"unsorted map", seeds.Unsorted, false, false},
		{"canonical", good, true, false},
	} {
		_, _, ok, err := store.Classify(sext.Options{}, nil, c.key)
		if ok != c.canonical || (err != nil) != c.bad {
			t.Errorf("%s: canonical %v, error %v; want %v, error %v", c.name, ok, err, c.canonical, c.bad)
		}
	}
}
