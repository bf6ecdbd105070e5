package sext

import (
	"bytes"
	"math/big"
	"testing"
	"unsafe"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// region is memory an arena handed out, as an address range.
type region struct{ lo, hi uintptr }

func regionsOf[T any](c *chunks[T], rs []region) []region {
	size := unsafe.Sizeof(*new(T))
	add := func(s []T) {
		if len(s) > 0 {
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
			rs = append(rs, region{lo, lo + uintptr(len(s))*size})
		}
	}
	for _, o := range c.old {
		add(o)
	}
	add(c.cur)
	return rs
}

// arenaRegions lists all of a's chunks, handed out or not.
func arenaRegions(a *arena) []region {
	rs := regionsOf(&a.terms, nil)
	rs = regionsOf(&a.words, rs)
	return regionsOf(&a.bytes, rs)
}

// poison overwrites every chunk of a, as the next decode would.
func poison(a *arena) {
	for _, o := range append(a.terms.old, a.terms.cur) {
		for i := range o {
			o[i] = term.Atom("poison")
		}
	}
	for _, o := range append(a.words.old, a.words.cur) {
		for i := range o {
			o[i] = 0x5A5A
		}
	}
	for _, o := range append(a.bytes.old, a.bytes.cur) {
		for i := range o {
			o[i] = 0xA5
		}
	}
}

// pointsInto reports a pointer of t, or of any term inside it, that lies
// in one of rs.
func pointsInto(t term.Term, rs []region) bool {
	in := func(p unsafe.Pointer) bool {
		for _, r := range rs {
			if u := uintptr(p); u >= r.lo && u < r.hi {
				return true
			}
		}
		return false
	}
	if p := termPtr(t); p != nil && in(p) {
		return true
	}
	switch t.Kind() {
	case term.KindTuple, term.KindList:
		for _, x := range t.Elems() {
			if pointsInto(x, rs) {
				return true
			}
		}
		if t.Kind() == term.KindList && !t.IsProper() {
			return pointsInto(t.Tail(), rs)
		}
	case term.KindMap:
		for _, e := range t.Entries() {
			if pointsInto(e.Key, rs) || pointsInto(e.Value, rs) {
				return true
			}
		}
	case term.KindDesc:
		return pointsInto(t.Inner(), rs)
	case term.KindInt:
		if ws, _ := t.BigBits(); len(ws) > 0 && in(unsafe.Pointer(&ws[0])) {
			return true
		}
	}
	return false
}

// decodeSnapshot decodes b as a plain decode does, with its own scratch
// space, and returns the term with the regions its arena held before
// keep copied the term out.
func decodeSnapshot(b []byte, cps bool) (term.Term, []region, *scratchSpace, error) {
	s := new(scratchSpace)
	d := decoder{buf: b, maxDepth: DefaultMaxDepth, intLimit: max(1<<16, len(b)), scratchSpace: s}
	d.useArena()
	var t term.Term
	var err error
	if cps {
		t, _, err = d.valueCPS(0)
	} else {
		t, _, err = d.valueRecursive(0)
	}
	rs := arenaRegions(&s.a)
	t, err = d.keep(t, err)
	return t, rs, s, err
}

func TestLayoutChecks(t *testing.T) {
	if !layoutOK {
		t.Fatal("layout checks fail: the decoder falls back to allocating constructors")
	}
}

// A plain decode's term shares no memory with the arena it was built in,
// which the next decode reuses: poisoning the arena changes nothing.
func TestPropPlainDecodeOwnsItsMemory(t *testing.T) {
	for _, cps := range []bool{false, true} {
		rapid.Check(t, func(t *rapid.T) {
			x := genTerm(4).Draw(t, "x")
			b := mustEncode(t, Options{}, x)
			got, rs, s, err := decodeSnapshot(b, cps)
			if err != nil {
				t.Fatalf("decode %x: %v", b, err)
			}
			if pointsInto(got, rs) {
				t.Fatalf("decode(%s) points into its arena", x)
			}
			poison(&s.a)
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
		got, rs, s, err := decodeSnapshot(b, cps)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.a.terms.cur) < 3000 {
			t.Fatalf("arena's slot chunk holds %d, fewer than the term needs", len(s.a.terms.cur))
		}
		if pointsInto(got, rs) {
			t.Fatal("the term points into its arena")
		}
		poison(&s.a)
		if !term.Equal(got, x) {
			t.Fatal("the term changed when its arena was poisoned")
		}
	}
}

// An improper tail that is itself a list (bytes the encoder never
// writes, but valid) is joined on inside the arena.
func TestImproperListTailJoined(t *testing.T) {
	inner, _ := Encode(term.ImproperList([]term.Term{term.Int(2)}, term.Atom("t")))
	b := append([]byte{tagList, tagPos4, 0, 0, 0, 2, markImproper}, inner...)
	want := term.ImproperList([]term.Term{term.Int(1), term.Int(2)}, term.Atom("t"))
	for _, cps := range []bool{false, true} {
		got, rs, s, err := decodeSnapshot(b, cps)
		if err != nil || !term.Equal(got, want) {
			t.Fatalf("decode %x = %s, %v; want %s", b, got, err, want)
		}
		if pointsInto(got, rs) {
			t.Fatal("the joined list points into its arena")
		}
		poison(&s.a)
		if !term.Equal(got, want) {
			t.Fatalf("after poisoning: %s", got)
		}
	}
}
