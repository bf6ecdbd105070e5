package storetest

import (
	"bytes"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/storetest/seeds"
	"github.com/erlsext/sext/term"
)

// Seeds are keys as other writers leave them, for the check tests (see
// package seeds, which tests that need no more of the suite import).
type Seeds = seeds.Seeds

// NewSeeds builds the seed keys.
func NewSeeds(t testing.TB) Seeds { return seeds.New(t) }

// must is seeds.Must, under the short name the checks use.
var must = seeds.Must

// rawKeys returns every key of kv, as strings.
func rawKeys(t *testing.T, kv store.KV) map[string]string {
	t.Helper()
	it, err := kv.NewIter(ctx, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for it.Next() {
		out[string(it.Key())] = string(it.Value())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// testCheck seeds a store with canonical, foreign, legacy-bignum and
// unsorted-map keys, and a legacy key whose canonical bytes are stored
// too, then checks what scans report, what Check counts, and what Check
// with Fix rewrites.
func testCheck(t *testing.T, open func(t *testing.T) store.KV) {
	s, kv := newStoreKV(t, open)
	seeds := NewSeeds(t)
	conflictTerm := term.Tuple(term.Atom("big2"), term.BigInt(new(big.Int).Lsh(big.NewInt(3), 90)))
	conflictLegacy, err := (sext.Options{Legacy: true}).Encode(conflictTerm)
	if err != nil {
		t.Fatal(err)
	}
	wb := kv.NewBatch()
	raw := map[string]string{
		string(must(t, term.Tuple(term.Atom("k"), term.Int(1)))): "one",
		string(must(t, term.Tuple(term.Atom("k"), term.Int(2)))): "two",
		string(seeds.Foreign):         "foreign",
		string(seeds.Legacy):          "legacy",
		string(seeds.Unsorted):        "unsorted",
		string(conflictLegacy):        "conflict-old",
		string(must(t, conflictTerm)): "conflict-new",
	}
	for k, v := range raw {
		wb.Set([]byte(k), []byte(v))
	}
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()

	// A scan yields the non-canonical keys and reports them.
	var odd [][]byte
	var foreign int
	n := 0
	for _, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{
		OnBadKey:       func([]byte, error) { foreign++ },
		OnNonCanonical: func(k []byte, _ term.Term) { odd = append(odd, k) },
	}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	wantOdd := [][]byte{seeds.Legacy, conflictLegacy, seeds.Unsorted}
	slices.SortFunc(wantOdd, bytes.Compare)
	if n != 6 || foreign != 1 || !slices.EqualFunc(odd, wantOdd, bytes.Equal) {
		t.Errorf("scan: %d entries, %d foreign, non-canonical %x; want 6, 1, %x", n, foreign, odd, wantOdd)
	}

	// Check counts and changes nothing.
	var reported int
	r, err := s.Check(ctx, store.CheckOptions{OnNonCanonical: func(_ []byte, _ term.Term, fix error) {
		if fix != nil {
			t.Errorf("Check without Fix reported a fix error: %v", fix)
		}
		reported++
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := store.CheckResult{Keys: 7, Foreign: 1, NonCanonical: 3}
	if r.Keys != want.Keys || r.Foreign != want.Foreign || r.NonCanonical != want.NonCanonical || r.Fixed != 0 || r.Clean() || reported != 3 {
		t.Errorf("Check = %+v (%d reported), want %+v", r, reported, want)
	}
	if got := rawKeys(t, kv); !mapsEqual(got, raw) {
		t.Errorf("Check without Fix changed the store")
	}

	// Get does not reach a non-canonical key.
	if _, err := s.Get(ctx, seeds.LegacyTerm); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(legacy term) before the fix: %v, want ErrNotFound", err)
	}

	// Check with Fix rewrites the two it can and leaves the conflict.
	var conflicts int
	r, err = s.Check(ctx, store.CheckOptions{Fix: true, OnNonCanonical: func(k []byte, _ term.Term, fix error) {
		if errors.Is(fix, store.ErrConflict) {
			conflicts++
			if !bytes.Equal(k, conflictLegacy) {
				t.Errorf("conflict reported for %x, want %x", k, conflictLegacy)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Fixed != 2 || r.Conflicts != 1 || conflicts != 1 || r.NonCanonical != 3 {
		t.Errorf("Check(Fix) = %+v, want 2 fixed and 1 conflict of 3", r)
	}
	after := map[string]string{}
	for k, v := range raw {
		after[k] = v
	}
	delete(after, string(seeds.Legacy))
	delete(after, string(seeds.Unsorted))
	after[string(must(t, seeds.LegacyTerm))] = "legacy"
	after[string(must(t, seeds.UnsortedTerm))] = "unsorted"
	if got := rawKeys(t, kv); !mapsEqual(got, after) {
		t.Errorf("after Check(Fix) the store holds\n%q\nwant\n%q", got, after)
	}
	for x, v := range map[*term.Term]string{&seeds.LegacyTerm: "legacy", &seeds.UnsortedTerm: "unsorted", &conflictTerm: "conflict-new"} {
		if got, err := s.Get(ctx, *x); err != nil || string(got) != v {
			t.Errorf("Get(%v) after the fix = %q, %v; want %q", *x, got, err, v)
		}
	}

	// What is left: the foreign key and the conflict.
	r, err = s.Check(ctx, store.CheckOptions{})
	if err != nil || r.Keys != 7 || r.Foreign != 1 || r.NonCanonical != 1 {
		t.Errorf("Check after the fix = %+v, %v; want 7 keys, 1 foreign, 1 non-canonical", r, err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
