package sext

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// poison overwrites the memory a's chunks hand out after a reset, as the
// next decode would: after a fresh scratch space decoded n bytes, the
// current chunks hold no more than 4n+128 elements of each kind (they
// double from 64 as needed), so taking that many one at a time covers
// them.
func poison(a *arena, n int) {
	a.reset()
	for range 4*n + 128 {
		a.mem.Terms(1)[0] = term.Atom("poison")
		a.mem.Words(1)[0] = 0x5A5A
		a.mem.Bytes(1)[0] = 0xA5
	}
}

// decodeSnapshot decodes b as a plain decode does, with its own scratch
// space, which it returns for poisoning.
func decodeSnapshot(b []byte, cps bool) (term.Term, *scratchSpace, error) {
	s := new(scratchSpace)
	d := Options{}.state(b, s, recursive)
	d.useArena()
	var t term.Term
	var err error
	if cps {
		t, _, err = d.valueCPS(0)
	} else {
		t, _, err = d.valueRecursive(0)
	}
	t, err = d.keep(t, err)
	return t, s, err
}

// A plain decode's term shares no memory with the arena it was built in,
// which the next decode reuses: poisoning the arena changes nothing.
func TestPropPlainDecodeOwnsItsMemory(t *testing.T) {
	for _, cps := range []bool{false, true} {
		rapid.Check(t, func(t *rapid.T) {
			x := genTerm(4).Draw(t, "x")
			b := mustEncode(t, Options{}, x)
			got, s, err := decodeSnapshot(b, cps)
			if err != nil {
				t.Fatalf("decode %x: %v", b, err)
			}
			poison(&s.a, len(b))
			if !term.Equal(got, x) {
				t.Fatalf("after poisoning the arena, decode(%s) = %s", x, got)
			}
			if again := mustEncode(t, Options{}, got); !bytes.Equal(again, b) {
				t.Fatalf("after poisoning the arena, %s encodes as %x, not %x", x, again, b)
			}
		})
	}
}

// A Decoder gives what Decode gives, however many terms it decoded before.
func TestPropDecoderAgreesWithDecode(t *testing.T) {
	dec := NewDecoder(Options{})
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(4).Draw(t, "x")
		b := mustEncode(t, Options{}, x)
		got, err := dec.Decode(b)
		if err != nil || !term.Equal(got, x) {
			t.Fatalf("Decoder.Decode(%x) = %s, %v; want %s", b, got, err, x)
		}
		junk := append(bytes.Clone(b), 0x02)
		if _, err := dec.Decode(junk); err == nil {
			t.Fatalf("Decoder.Decode(%x) with a trailing byte: no error", junk)
		}
		next, rest, err := dec.DecodeNext(junk)
		if err != nil || !term.Equal(next, x) || !bytes.Equal(rest, []byte{0x02}) {
			t.Fatalf("Decoder.DecodeNext(%x) = %s, %x, %v", junk, next, rest, err)
		}
	})
}

// Reusing a Decoder cannot change a term the caller was told it may
// keep: one from Keep, one from a plain Decode, or a part of one.
func TestPropDecoderReuseKeepsKeptTerms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dec := NewDecoder(Options{})
		x := genTerm(4).Draw(t, "x")
		b := mustEncode(t, Options{}, x)
		first, err := dec.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		kept := dec.Keep(first)
		var part, partWant term.Term
		if x.Kind() == term.KindTuple && x.Len() > 0 {
			part, partWant = dec.Keep(first.Elems()[x.Len()-1]), x.Elems()[x.Len()-1]
		}
		plain, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rapid.IntRange(1, 5).Draw(t, "later") {
			y := genTerm(4).Draw(t, "y")
			if _, err := dec.Decode(mustEncode(t, Options{}, y)); err != nil {
				t.Fatalf("later decode %d: %v", i, err)
			}
		}
		for name, k := range map[string]term.Term{"Keep": kept, "Decode": plain} {
			if !term.Equal(k, x) || !bytes.Equal(mustEncode(t, Options{}, k), b) {
				t.Fatalf("%s's term changed to %s after the Decoder was reused; want %s", name, k, x)
			}
		}
		if x.Kind() == term.KindTuple && x.Len() > 0 && !term.Equal(part, partWant) {
			t.Fatalf("a kept element changed to %s; want %s", part, partWant)
		}
	})
}

// The arena gives out what a term's shape asks for, however many chunks
// it takes: a term larger than the first chunk moves just as well.
func TestArenaSpansChunks(t *testing.T) {
	elems := make([]term.Term, 3000)
	for i := range elems {
		b := new(big.Int).Lsh(big.NewInt(int64(i+1)), 70)
		elems[i] = term.Tuple(term.BigInt(b), term.Binary(bytes.Repeat([]byte{byte(i)}, i%40)), term.Desc(term.Int(int64(i))))
	}
	x := term.List(elems...)
	b, err := Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, cps := range []bool{false, true} {
		got, s, err := decodeSnapshot(b, cps)
		if err != nil {
			t.Fatal(err)
		}
		poison(&s.a, len(b))
		if !term.Equal(got, x) {
			t.Fatal("the term changed when its arena was poisoned")
		}
	}
}

// A tail that is itself a list, after either marker (bytes the encoder
// never writes, but valid: the reference joins such a tail on), is joined
// on inside the arena. Joined by a copy outside it, the tail's elements
// kept pointing into the arena the next decode reuses.
func TestImproperListTailJoined(t *testing.T) {
	inner, _ := Encode(term.ImproperList([]term.Term{term.List(term.List())}, term.Atom("t")))
	want := term.ImproperList([]term.Term{term.List(term.List()), term.List(term.List())}, term.Atom("t"))
	for _, mark := range []byte{markImproper, markBitTail} {
		b := append([]byte{tagList, tagList, tagList, markEnd, markEnd, mark}, inner...)
		for _, cps := range []bool{false, true} {
			got, s, err := decodeSnapshot(b, cps)
			if err != nil || !term.Equal(got, want) {
				t.Fatalf("decode %x = %s, %v; want %s", b, got, err, want)
			}
			poison(&s.a, len(b))
			if !term.Equal(got, want) {
				t.Fatalf("decode %x, after poisoning the arena: %s", b, got)
			}
		}
	}
}
