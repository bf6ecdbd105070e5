// Package seeds builds keys as other writers leave them in a store, for
// tests of the store's checks: a foreign key, a legacy bignum and a map
// with its entries unsorted. It is apart from package storetest, whose
// generators bring in rapid, so that the command's tests, which start
// the test binary as the command hundreds of times, do not pay rapid's
// start-up each time.
package seeds

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/erlsext/sext"
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

// New builds the seed keys.
func New(t testing.TB) Seeds {
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
	whole := Must(t, s.UnsortedTerm)
	m := Must(t, term.Map(term.MapEntry{Key: a, Value: term.Int(1)}, term.MapEntry{Key: b, Value: term.Int(2)}))
	if !bytes.HasSuffix(whole, m) {
		t.Fatalf("a tuple's encoding does not end with its last element's")
	}
	// The map's header ([17, 1] and a 32-bit size), then b's entry before
	// a's: what the reference writes for a map in hash order.
	entryA := append(Must(t, a), Must(t, term.Int(1))...)
	if !bytes.Equal(m[6:6+len(entryA)], entryA) {
		t.Fatalf("map layout is not [17, 1], Size:32, entries: % x", m)
	}
	unsorted := append(bytes.Clone(m[:6]), m[6+len(entryA):]...)
	unsorted = append(unsorted, entryA...)
	s.Unsorted = append(bytes.Clone(whole[:len(whole)-len(m)]), unsorted...)
	return s
}

// Must returns the encoding of x, failing t if it has none.
func Must(t testing.TB, x term.Term) []byte {
	t.Helper()
	b, err := sext.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
