//go:build !race

// Allocation budgets are kept out of race builds: the race detector makes
// sync.Pool drop items at random and instruments allocation, so counts
// there say nothing about the library. CI runs them in the normal pass.

package sext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"testing"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// Allocation budgets: the figures docs/PERFORMANCE.md promises, held by
// tests so that a regression fails CI rather than a benchmark read later.
// Not under -race, where sync.Pool drops items at random.

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
		// The slots and the binary's bytes: two.
		if n := testing.AllocsPerRun(100, func() { d.decode(b) }); n > 2 {
			t.Errorf("%s decoder: %v allocations for {user,42,<<\"alice\">>}", d.name, n)
		}
	}
	// Decode's flat path: one, the slots with the bytes inside.
	if n := testing.AllocsPerRun(100, func() { Decode(b) }); n != 1 {
		t.Errorf("Decode: %v allocations for {user,42,<<\"alice\">>}, want 1", n)
	}
	// A binary of 9 to 16 bytes does not fit in a slot's scalar word: the
	// flat path puts all such binaries' bytes in a second allocation,
	// however many there are (rapid found three, for two of them).
	for _, x := range []term.Term{
		term.Tuple(term.Atom("session"), term.Binary([]byte("0123456789abcdef")), term.Atom("active")),
		term.Tuple(term.Binary(make([]byte, 9)), term.Binary(make([]byte, 9))),
		term.Tuple(term.Binary(make([]byte, 9)), term.Int(1), term.Tuple(term.Binary(make([]byte, 12)), term.Binary(make([]byte, 10)))),
	} {
		long, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Decode(long); err != nil || !term.Equal(got, x) {
			t.Fatalf("Decode(%s) = %s, %v", x, got, err)
		}
		if n := testing.AllocsPerRun(100, func() { Decode(long) }); n != 2 {
			t.Errorf("Decode: %v allocations for %s, want 2", n, x)
		}
	}
}

// arenaShapes are terms of every shape the arena must hold in two
// allocations: nesting, long lists, bignums of both signs, floats with
// large integer parts, maps, descending terms, improper lists.
func arenaShapes() []term.Term {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012345678901234567890", 10)
	deep := term.Binary([]byte("x"))
	for i := range 1000 {
		if i%2 == 0 {
			deep = term.List(deep, term.Int(int64(i)))
		} else {
			deep = term.Tuple(term.Int(int64(i)), deep)
		}
	}
	many := make([]term.Term, 500)
	for i := range many {
		many[i] = term.Tuple(term.BigInt(new(big.Int).Lsh(big.NewInt(int64(i+1)), uint(64+i%100))), term.Binary(make([]byte, i%33)))
	}
	return []term.Term{
		term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))),
		term.Tuple(term.Atom("order"), term.Int(7), term.Desc(term.Int(1700000000000000000)), term.Int(99)),
		term.List(term.BigInt(huge), term.BigInt(new(big.Int).Neg(huge)), term.Uint(1<<63+5), term.Int(-1<<63)),
		term.Tuple(term.Float(1e30), term.Float(-3.5e25), term.Float(0.1), term.Float(-1e300)),
		term.ImproperList([]term.Term{term.Atom("a"), term.Binary([]byte{1, 2, 3})}, term.Bitstring([]byte{0xF0}, 3)),
		term.Map(term.MapEntry{Key: term.Atom("k"), Value: term.List(term.Int(1), term.Binary([]byte("v")))},
			term.MapEntry{Key: term.Int(3), Value: term.Desc(term.Tuple(term.BigInt(huge)))}),
		term.Desc(term.Desc(term.List(term.Binary(make([]byte, 100)), term.Atom("z")))),
		term.List(many...),
		deep,
		term.BigInt(huge),
		term.Binary(make([]byte, 4096)),
	}
}

func TestDecodeAllocatesAtMostTwo(t *testing.T) {
	for _, x := range arenaShapes() {
		b, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decoders {
			if n := testing.AllocsPerRun(20, func() { d.decode(b) }); n > 2 {
				t.Errorf("%s decoder: %v allocations for %.60s", d.name, n, x)
			}
		}
		if n := testing.AllocsPerRun(20, func() { DecodeNext(b) }); n > 2 {
			t.Errorf("DecodeNext: %v allocations for %.60s", n, x)
		}
	}
}

// Random terms without pids, ports and references (each of which is an
// allocation of its own) decode in at most two allocations.
func TestPropDecodeAllocatesAtMostTwo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(4).Draw(t, "x")
		if hasOpaque(x) {
			return
		}
		b := mustEncode(t, Options{}, x)
		for _, d := range decoders {
			if n := testing.AllocsPerRun(3, func() { d.decode(b) }); n > 2 {
				t.Fatalf("%s decoder: %v allocations for %s", d.name, n, x)
			}
		}
	})
}

func hasOpaque(x term.Term) bool {
	switch x.Kind() {
	case term.KindPid, term.KindPort, term.KindRef:
		return true
	case term.KindTuple, term.KindList:
		for _, e := range x.Elems() {
			if hasOpaque(e) {
				return true
			}
		}
		return x.Kind() == term.KindList && !x.IsProper() && hasOpaque(x.Tail())
	case term.KindMap:
		for _, e := range x.Entries() {
			if hasOpaque(e.Key) || hasOpaque(e.Value) {
				return true
			}
		}
	case term.KindDesc:
		return hasOpaque(x.Inner())
	}
	return false
}

func TestDecoderAllocatesNothingWhenWarm(t *testing.T) {
	dec := NewDecoder(Options{})
	canon := NewDecoder(Options{Canonical: true})
	for _, x := range arenaShapes() {
		b, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		stream := append(bytes.Clone(b), b...)
		for _, d := range []*Decoder{dec, canon} {
			d.Decode(b) // the arena grows to the term
			if n := testing.AllocsPerRun(20, func() { d.Decode(b) }); n != 0 {
				t.Errorf("Decoder.Decode (canonical %v): %v allocations for %.60s", d.opts.Canonical, n, x)
			}
			if n := testing.AllocsPerRun(20, func() { d.DecodeNext(stream) }); n != 0 {
				t.Errorf("Decoder.DecodeNext: %v allocations for %.60s", n, x)
			}
		}
	}
}

// Unmarshal into a struct allocates only what the struct keeps: here the
// name's string.
func TestUnmarshalAllocatesWhatTheValueKeeps(t *testing.T) {
	type user struct {
		_    Record `sext:"user"`
		ID   int64
		Name string
	}
	b, err := Encode(term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))))
	if err != nil {
		t.Fatal(err)
	}
	var u user
	if n := testing.AllocsPerRun(100, func() { Unmarshal(b, &u) }); n > 1 {
		t.Errorf("Unmarshal of {user,42,<<\"alice\">>}: %v allocations, want 1", n)
	}
	if u.ID != 42 || u.Name != "alice" {
		t.Errorf("Unmarshal gave %+v", u)
	}
}

// A bignum term is its magnitude's words and nothing more: decoded alone
// it takes one allocation (it took two, a big.Int and its words, when
// terms held a *big.Int), and a tuple of bignums takes the slots and one
// allocation for all the words.
func TestDecodeBignumAllocations(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012345678901234567890", 10)
	for _, c := range []struct {
		x    term.Term
		want float64
	}{
		{term.BigInt(huge), 1},
		{term.BigInt(new(big.Int).Neg(huge)), 1},
		{term.Uint(1<<63 + 5), 1},
		{term.Tuple(term.BigInt(huge), term.Uint(1<<64-1), term.BigInt(new(big.Int).Lsh(huge, 300))), 2},
	} {
		b, err := Encode(c.x)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decoders {
			if n := testing.AllocsPerRun(20, func() { d.decode(b) }); n > c.want {
				t.Errorf("%s decoder: %v allocations for %s, want %v", d.name, n, c.x, c.want)
			}
		}
	}
}

// Four hot names that share a set of the flat path's name cache stay
// cached: decoding their keys in turn allocates only each key's slots.
func TestFlatNamesShareASet(t *testing.T) {
	bySet := map[int][]string{}
	var names []string
	for i := 0; names == nil; i++ {
		name := fmt.Sprintf("n%d", i)
		var b [8]byte
		copy(b[:], name)
		s := shortSet(binary.BigEndian.Uint64(b[:]))
		if bySet[s] = append(bySet[s], name); len(bySet[s]) == 4 {
			names = bySet[s]
		}
	}
	keys := make([][]byte, len(names))
	for i, name := range names {
		b, err := Encode(term.Tuple(term.Atom(name), term.Int(int64(i))))
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = b
		Decode(b)
	}
	n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			Decode(k)
		}
	})
	if n != float64(len(keys)) {
		t.Errorf("%v allocations for %d keys whose names %q share a set, want %d", n, len(keys), names, len(keys))
	}
}
