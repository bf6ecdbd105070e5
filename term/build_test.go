package term_test

import (
	"math/big"
	"testing"

	"github.com/erlsext/sext/term"
)

// TestBuilders: the constructors that keep their memory give the terms
// the copying constructors give, and keep (not copy) what they are handed.
func TestBuilders(t *testing.T) {
	big2 := new(big.Int).Lsh(big.NewInt(3), 100)
	tests := []struct {
		name      string
		got, want term.Term
	}{
		{"BigWords zero", term.BigWords(nil, false), term.Int(0)},
		{"BigWords zero top words", term.BigWords([]big.Word{5, 0, 0}, true), term.Int(-5)},
		{"BigWords min int64", term.BigWords([]big.Word{1 << 63}, true), term.Int(-1 << 63)},
		{"BigWords 2^63", term.BigWords([]big.Word{1 << 63}, false), term.BigInt(new(big.Int).Lsh(big.NewInt(1), 63))},
		{"BigWords big", term.BigWords(append([]big.Word(nil), big2.Bits()...), true), term.BigInt(new(big.Int).Neg(big2))},
		{"MapPairs", term.MapPairs([]term.Term{term.Int(1), term.Atom("a"), term.Int(2), term.Atom("b")}),
			term.Map(term.MapEntry{Key: term.Int(1), Value: term.Atom("a")}, term.MapEntry{Key: term.Int(2), Value: term.Atom("b")})},
		{"MapPairs empty", term.MapPairs(nil), term.Map()},
		{"DescOf", term.DescOf(&[]term.Term{term.Atom("x")}[0]), term.Desc(term.Atom("x"))},
	}
	for _, tc := range tests {
		if !term.Equal(tc.got, tc.want) {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}

	cell := []term.Term{term.Int(1)}
	d := term.DescOf(&cell[0])
	cell[0] = term.Int(2)
	if !term.Equal(d.Inner(), term.Int(2)) {
		t.Error("DescOf copied its cell")
	}
	kv := []term.Term{term.Int(1), term.Int(10)}
	m := term.MapPairs(kv)
	if es := term.EntryTerms(m.Entries()); &es[0] != &kv[0] || len(es) != 2 {
		t.Error("MapPairs copied its terms, or EntryTerms does not view them")
	}

	slots := make([]term.Term, 2)
	bin := term.SlotBinary(&slots[1], 0x616c696365<<24, 5)
	slots[0] = term.Tuple() // the neighbour is untouched
	if string(bin.Bytes()) != "alice" {
		t.Errorf("SlotBinary = %q, want alice", bin.Bytes())
	}
}

// TestArenaClone: a term built in an Arena and cloned out survives the
// arena's reuse, whatever the arena's chunks held, across chunk growth.
func TestArenaClone(t *testing.T) {
	var a term.Arena
	build := func(n int) term.Term {
		elems := a.Terms(n)
		for i := range elems {
			data := a.Bytes(3)
			copy(data, "abc")
			w := a.Words(2)
			w[0], w[1] = big.Word(i), 1
			pair := a.Terms(2)
			pair[0], pair[1] = term.Binary(data), term.BigWords(w, i%2 == 0)
			cell := a.Terms(1)
			cell[0] = term.Tuple(pair...)
			elems[i] = term.DescOf(&cell[0])
		}
		return term.List(elems...)
	}
	for _, n := range []int{1, 10, 500} {
		a.Reset()
		built := build(n)
		want := make([]term.Term, n)
		for i := range want {
			w := new(big.Int).SetBits([]big.Word{big.Word(i), 1})
			if i%2 == 0 {
				w.Neg(w)
			}
			want[i] = term.Desc(term.Tuple(term.Binary([]byte("abc")), term.BigInt(w)))
		}
		got := a.Clone(built)
		a.Reset()
		build(2 * n) // overwrites every chunk the first term used
		if !term.Equal(got, term.List(want...)) {
			t.Fatalf("n=%d: the clone changed when the arena was reused", n)
		}
	}
}
