package sext

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/erlsext/sext/term"
)

// bareEnd finds the end of the term at p in b and nothing more: it checks
// no byte it does not need, builds nothing, keeps no depth and reads no
// number's value. It knows only integers, atoms, binaries, tuples and
// lists, the forms of the study, deep and kv workloads. It is the
// floor under any decoder of these bytes: a decode must at least find
// where each term ends, one tag at a time, and BenchmarkArenaShapes
// times it as mode=floor beside the decoders.
func bareEnd(b []byte, p int) (int, bool) {
	if p >= len(b) {
		return 0, false
	}
	switch b[p] {
	case tagPos4, tagNeg4:
		return p + 5, p+5 <= len(b)
	case tagBinary, tagAtom:
		f, err := findFrame(b, p+1)
		return f.end, err == nil
	case tagPosBig:
		f, err := findFrame(b, p+1)
		return f.end + 1, err == nil // the flag byte
	case tagNegBig:
		f, err := findFrame(b, p+5) // after the word count
		return f.end + 1, err == nil
	case tagTuple:
		if p+5 > len(b) {
			return 0, false
		}
		n := binary.BigEndian.Uint32(b[p+1:])
		p += 5
		for range n {
			var ok bool
			if p, ok = bareEnd(b, p); !ok {
				return 0, false
			}
		}
		return p, true
	case tagList:
		for p++; p < len(b); {
			switch b[p] {
			case markEnd:
				return p + 1, true
			case markImproper, markBitTail:
				return bareEnd(b, p+1)
			}
			var ok bool
			if p, ok = bareEnd(b, p); !ok {
				return 0, false
			}
		}
	}
	return 0, false
}

// TestBareEndAgrees holds the floor to the decoders: on the workloads
// it is timed on, it finds the end the decoder finds, so that it walks
// the same bytes.
func TestBareEndAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 3000 {
		x := studyTerm(r, r.IntN(6))
		if i%3 == 0 { // a kv key around it, for atoms
			x = term.Tuple(term.Atom([]string{"user", "", "order_line", "a_much_longer_atom_name"}[i%4]), x)
		}
		enc, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, err := DecodeNext(append(enc, 0xAA))
		if err != nil {
			t.Fatal(err)
		}
		want := len(enc) + 1 - len(rest)
		if got, ok := bareEnd(append(enc, 0xAA), 0); !ok || got != want {
			t.Fatalf("term %d (% x): bareEnd = %d, %v; DecodeNext ends at %d", i, enc, got, ok, want)
		}
	}
}
