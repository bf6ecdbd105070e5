//go:build !race

// Allocation budgets are kept out of race builds: the race detector makes
// sync.Pool drop items at random and instruments allocation, so counts
// there say nothing about the library. CI runs them in the normal pass.

package sext

import (
	"math/big"
	"testing"

	"github.com/erlsext/sext/term"
)

// Allocation budgets: the figures docs/PERFORMANCE.md promises, held by
// tests so that a regression fails CI rather than a benchmark read later.

func TestAppendAllocatesNothing(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012345678901234567890", 10)
	for _, x := range []term.Term{
		term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))),
		term.Tuple(term.Atom("order"), term.Int(7), term.Tuple(term.Int(2026), term.Int(11), term.Int(30)), term.Desc(term.Int(99))),
		term.BigInt(huge),
		term.Float(-1.0e300),
		term.Float(4.9e-324),
		term.ImproperList([]term.Term{term.Atom("é"), term.Float(0.5)}, term.Bitstring([]byte{0xF0}, 3)),
		term.Map(term.MapEntry{Key: term.Atom("k"), Value: term.List(term.Int(1))}),
		term.Ref{Node: "a@b", Creation: 7, IDs: []uint32{1, 2, 3}}.Term(),
		term.Desc(term.Desc(term.Tuple(term.Binary(make([]byte, 1000))))),
	} {
		buf := make([]byte, 0, 4096)
		if n := testing.AllocsPerRun(100, func() { buf, _ = Append(buf[:0], x) }); n != 0 {
			t.Errorf("Append(%s): %v allocations", x, n)
		}
		if n := testing.AllocsPerRun(100, func() { buf, _ = AppendPrefix(buf[:0], x) }); n != 0 {
			t.Errorf("AppendPrefix(%s): %v allocations", x, n)
		}
	}
}

func TestDecodeKeyAllocations(t *testing.T) {
	b, err := Encode(term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decoders {
		d.decode(b) // the atom enters the intern table
		// The tuple's elements and the binary's bytes: two.
		if n := testing.AllocsPerRun(100, func() { d.decode(b) }); n > 2 {
			t.Errorf("%s decoder: %v allocations for {user,42,<<\"alice\">>}", d.name, n)
		}
	}
}
