package sext

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
)

// PartialDecode pads a cut-short tuple with a wildcard for every element
// its bytes lack. The tuples of one prefix share one allowance of claimed
// elements, so nested claims cannot multiply memory.

// partialAllocBound is the most PartialDecode may allocate for n bytes of
// input: the padding allowance (16 bytes a wildcard), the decoders' share
// (docs/SECURITY.md: at most about 100 bytes an input byte, lists of empty
// binaries the worst case) and scratch space a pool may fail to keep.
func partialAllocBound(n int) uint64 { return 16*maxPartialArity + 100*uint64(n) + 256<<10 }

// partialAllocated runs PartialDecode on b and returns its error and the
// bytes it allocated.
func partialAllocated(b []byte) (error, uint64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := PartialDecode(b)
	runtime.ReadMemStats(&after)
	return err, after.TotalAlloc - before.TotalAlloc
}

func TestPartialDecodeNestedClaims(t *testing.T) {
	for _, n := range []int{1, 2, 10, 400} {
		b := repeat([]byte{tagTuple, 0, 0, 0xFF, 0xFF}, n)
		err, grew := partialAllocated(b)
		if n == 1 && err != nil {
			t.Errorf("one tuple claiming 65,535 elements: %v", err)
		}
		if n > 1 && !errors.Is(err, ErrSize) {
			t.Errorf("%d nested tuples claiming 65,535 elements each: %v, want ErrSize", n, err)
		}
		if bound := partialAllocBound(len(b)); grew > bound {
			t.Errorf("%d nested headers (%d bytes): allocated %d bytes, bound %d", n, len(b), grew, bound)
		}
		t.Logf("%d nested headers (%d bytes): %d bytes allocated", n, len(b), grew)
	}
	// The claims of a whole encoding never run out: 30,000 tuples of 5
	// elements in a tuple claim 180,000 elements, in 900,005 bytes.
	one := append(append([]byte{tagTuple, 0, 0, 0, 5}, repeat([]byte{tagPos4, 0, 0, 0, 2}, 4)...), tagTuple, 0, 0, 0, 0)
	b := append([]byte{tagTuple, 0, 0, 0x75, 0x30}, repeat(one, 30_000)...)
	if _, full, rest, err := PartialDecode(b); err != nil || !full || len(rest) != 0 {
		t.Errorf("a whole encoding whose tuples claim 180,000 elements: full %v, %d bytes left, %v", full, len(rest), err)
	}
}

// FuzzPartialDecode checks that PartialDecode never panics, reports errors
// at offsets inside the input, and allocates within partialAllocBound.
func FuzzPartialDecode(f *testing.F) {
	seedEncodings(f)
	for _, l := range readLines(f, "prefix.tsv") {
		if len(l.fields) > 1 {
			f.Add(mustHex(f, l.fields[1]))
		}
	}
	f.Add(repeat([]byte{tagTuple, 0, 0, 0xFF, 0xFF}, 10))
	f.Add(append(repeat([]byte{tagTuple, 0, 0, 0, 2}, 10), tagTuple, 0, 0, 0xFF, 0xFF))
	f.Fuzz(func(t *testing.T, b []byte) {
		err, grew := partialAllocated(b)
		if bound := partialAllocBound(len(b)); grew > bound {
			t.Fatalf("PartialDecode(%x): allocated %d bytes for %d, bound %d", b, grew, len(b), bound)
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(b) {
				t.Fatalf("PartialDecode(%x): bad error %v", b, err)
			}
		}
	})
}

// TestPartialDecodeRest holds PartialDecode's rule for rest: empty where
// the bytes end inside a term, from the start of the term a bad byte sits
// in otherwise.
func TestPartialDecodeRest(t *testing.T) {
	for _, c := range []struct {
		hex, pattern, rest string
	}{
		{"", "'_'", ""},
		{"ff", "'_'", "ff"},
		{"ff0a00000000", "'_'", "ff0a00000000"},
		{"1000000002" + "0a00000002" + "ff", "{1,'_'}", "ff"},
		{"1000000002" + "0a00000002" + "0a00", "{1,'_'}", ""},
		{"11" + "0a00000002" + "ff", "[1|'_']", "ff"},
		{"1000000002" + "0a00000002" + "110100000001" + "ff000000", "{1,'_'}", "110100000001ff000000"},
		{"1000000002" + "0a00000002" + "110100000001" + "ff", "{1,'_'}", ""}, // the count claims more than is left: cut short
		{"1000000002" + "0a00000002" + "110100000001" + "0a", "{1,'_'}", ""},
	} {
		p, full, rest, err := PartialDecode(mustHex(t, c.hex))
		if err != nil || full || p.String() != c.pattern || fmt.Sprintf("%x", rest) != c.rest {
			t.Errorf("%s: %v, full %v, rest %x, %v; want %s, rest %s", c.hex, p, full, rest, err, c.pattern, c.rest)
		}
	}
}
