package storetest

import (
	"bytes"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// Seeds are keys as other writers leave them, for the check tests: a
// foreign key, a legacy bignum and a map with its entries unsorted, each
// written as raw bytes, with the term they decode to.
type Seeds struct {
	Foreign      []byte
	Legacy       []byte    // {big, 2^80} with the bignum in the pre-2013 layout
	LegacyTerm   term.Term // what Legacy decodes to
	Unsorted     []byte    // {m, #{a => 1, b => 2}} with b's entry first
	UnsortedTerm term.Term
}

// NewSeeds builds the seed keys.
func NewSeeds(t testing.TB) Seeds {
	t.Helper()
	var s Seeds
	s.Foreign = []byte("plain text key")
	n := new(big.Int).Lsh(big.NewInt(1), 80)
	s.LegacyTerm = term.Tuple(term.Atom("big"), term.BigInt(n))
	var err error
	if s.Legacy, err = (sext.Options{Legacy: true}).Encode(s.LegacyTerm); err != nil {
		t.Fatal(err)
	}
	a, b := term.Atom("a"), term.Atom("b")
	s.UnsortedTerm = term.Tuple(term.Atom("m"), term.Map(term.MapEntry{Key: a, Value: term.Int(1)}, term.MapEntry{Key: b, Value: term.Int(2)}))
	whole := must(t, s.UnsortedTerm)
	m := must(t, term.Map(term.MapEntry{Key: a, Value: term.Int(1)}, term.MapEntry{Key: b, Value: term.Int(2)}))
	if !bytes.HasSuffix(whole, m) {
		t.Fatalf("a tuple's encoding does not end with its last element's")
	}
	// The map's header ([17, 1] and a 32-bit size), then b's entry before
	// a's: what the reference writes for a map in hash order.
	entryA := append(must(t, a), must(t, term.Int(1))...)
	if !bytes.Equal(m[6:6+len(entryA)], entryA) {
		t.Fatalf("map layout is not [17, 1], Size:32, entries: % x", m)
	}
	unsorted := append(bytes.Clone(m[:6]), m[6+len(entryA):]...)
	unsorted = append(unsorted, entryA...)
	s.Unsorted = append(bytes.Clone(whole[:len(whole)-len(m)]), unsorted...)
	return s
}

func must(t testing.TB, x term.Term) []byte {
	t.Helper()
	b, err := sext.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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
