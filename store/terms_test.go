package store_test

import (
	"errors"
	"math"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

func TestTermValues(t *testing.T) {
	s, err := openChecked(t, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k1, k2 := parseT(t, "{user, 1}"), parseT(t, "{user, 2}")
	v1, v2 := parseT(t, `#{name => <<"ann">>, tags => [a, b]}`), parseT(t, "{1.5, -7, 'é'}")
	if err := s.PutTerm(ctx, k1, v1); err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	if err := b.PutTerm(k2, v2); err != nil {
		t.Fatal(err)
	}
	if err := b.PutTerm(k2, term.Desc(v2)); !errors.Is(err, etf.ErrUnencodable) {
		t.Fatalf("Batch.PutTerm of a Desc: %v", err)
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatalf("Apply after a refused PutTerm: %v", err)
	}
	got, err := s.GetTerm(ctx, k1)
	if err != nil || !term.Equal(got, v1) {
		t.Fatalf("GetTerm = %v, %v", got, err)
	}
	raw, _ := s.Get(ctx, k1)
	if want, _ := etf.Encode(v1); string(raw) != string(want) {
		t.Fatalf("stored %v, want term_to_binary's %v", raw, want)
	}
	n := 0
	for e, err := range s.Scan(ctx, parseT(t, "{user, '_'}"), store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.ValueTerm()
		if want := []term.Term{v1, v2}[n]; err != nil || !term.Equal(v, want) {
			t.Fatalf("entry %d: %v, %v", n, v, err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d entries", n)
	}
	if _, err := s.GetTerm(ctx, parseT(t, "nope")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetTerm of a missing key: %v", err)
	}
	s.Put(ctx, k1, []byte("not etf"))
	if _, err := s.GetTerm(ctx, k1); !errors.Is(err, etf.ErrVersion) {
		t.Fatalf("GetTerm of a raw value: %v", err)
	}
	if err := s.PutTerm(ctx, k1, term.Float(math.NaN())); !errors.Is(err, etf.ErrUnencodable) {
		t.Fatalf("PutTerm of NaN: %v", err)
	}
}

func parseT(t *testing.T, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
