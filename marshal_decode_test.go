package sext

import (
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/erlsext/sext/term"
	"github.com/google/go-cmp/cmp"
)

func TestKeepsNoTerm(t *testing.T) {
	type rec struct {
		Next *rec
		Tags []string
	}
	type withAny struct {
		A int
		X any
	}
	type withTerm struct{ T map[string]term.Term }
	for _, c := range []struct {
		v    any
		want bool
	}{
		{int64(0), true}, {"", true}, {[]byte(nil), true}, {big.Int{}, true},
		{rec{}, true}, {map[string][]int{}, true}, {[3]float64{}, true},
		{withAny{}, false}, {withTerm{}, false}, {term.Term{}, false},
		{[]any{}, false}, {struct{ P **term.Term }{}, false},
	} {
		if got := keepsNoTerm(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("keepsNoTerm(%T) = %v, want %v", c.v, got, c.want)
		}
	}
}

// Unmarshal builds its term in a pooled arena when the value keeps none of
// it: later decodes, which reuse that arena, leave the value as it was;
// a value that does keep terms gets terms of their own.
func TestUnmarshalOwnsWhatItKeeps(t *testing.T) {
	type row struct {
		Name  string
		Blob  []byte
		Big   *big.Int
		Parts [][]byte
		Any   any
		T     term.Term
	}
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	want := row{Name: "alice", Blob: []byte("blob"), Big: huge, Parts: [][]byte{[]byte("p1"), []byte("p2")},
		Any: term.Tuple(term.Binary([]byte("any")), term.BigInt(huge)), T: term.List(term.Binary([]byte("t")))}
	b, err := Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	type noTerms struct {
		Name  string
		Blob  []byte
		Big   *big.Int
		Parts [][]byte
		Any   []int // not used: a type without terms
		T     []int
	}
	var got row
	if err := Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// The same bytes into a type that keeps no terms takes the arena path.
	bNo, err := Marshal(noTerms{Name: "bob", Blob: []byte("b2"), Big: huge, Parts: [][]byte{[]byte("q")}})
	if err != nil {
		t.Fatal(err)
	}
	var no noTerms
	if err := Unmarshal(bNo, &no); err != nil {
		t.Fatal(err)
	}
	other, _ := Encode(term.Tuple(term.Binary(make([]byte, 64)), term.BigInt(new(big.Int).Lsh(huge, 5)),
		term.List(term.Binary([]byte("zzzzzzzzzzzz")), term.Binary([]byte("yyyy"))), term.List(), term.List(), term.List()))
	for range 50 {
		var junk noTerms
		Unmarshal(other, &junk)
		Decode(other)
	}
	eq := cmp.Options{cmp.Comparer(func(a, b *big.Int) bool { return a.Cmp(b) == 0 }), cmp.Comparer(term.Equal)}
	if d := cmp.Diff(want, got, eq); d != "" {
		t.Errorf("value with terms changed after later decodes (-want +got):\n%s", d)
	}
	wantNo := noTerms{Name: "bob", Blob: []byte("b2"), Big: huge, Parts: [][]byte{[]byte("q")}}
	if d := cmp.Diff(wantNo, no, eq); d != "" {
		t.Errorf("value without terms changed after later decodes (-want +got):\n%s", d)
	}
}

// UnmarshalTerm takes terms built in code, which no input bounds, and
// decoding into a recursive Go type recurses: past MaxDepthCeiling it
// fails with ErrDepth rather than overflow the stack.
func TestUnmarshalTermDepth(t *testing.T) {
	type node struct {
		Next *node
	}
	chain := func(n int) term.Term {
		x := term.Atom("undefined")
		for range n {
			x = term.Tuple(x)
		}
		return x
	}
	var v node
	if err := UnmarshalTerm(chain(MaxDepthCeiling), &v); err != nil {
		t.Fatalf("at the ceiling: %v", err)
	}
	if err := UnmarshalTerm(chain(2_000_000), &v); !errors.Is(err, ErrDepth) {
		t.Fatalf("2,000,000 deep: %v, want ErrDepth", err)
	}
}
