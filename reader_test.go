package sext

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// skipBoth skips the term at the front of b with the reader's loop and
// with the general skip alone, under o, certifying or not, and fails t
// if they differ in the end, the information or the error. Without
// certifying nothing is claimed about canon, so only plainKey is held.
func skipBoth(t interface {
	Helper()
	Fatalf(string, ...any)
}, b []byte, o Options, certify bool) {
	t.Helper()
	type result struct {
		end  int
		info skipInfo
		err  string
	}
	run := func(general bool) result {
		s := newSkipper(b, o)
		s.certify, s.generalOnly = certify, general
		end, info, err := s.skip(0, 0)
		s.release()
		if !certify {
			info &^= canon
		}
		r := result{end: end, info: info}
		if err != nil {
			r = result{err: err.Error()}
		}
		return r
	}
	if fast, slow := run(false), run(true); !reflect.DeepEqual(fast, slow) {
		t.Fatalf("% x (%+v, certify %v): the reader's loop gives %+v, the general skip %+v", b, o, certify, fast, slow)
	}
}

// TestReaderAgreesWithGeneralSkip: the reader's loop, with its fast steps,
// ends every term where the general skip does, with the same information
// and the same error, on random terms and on their encodings cut short
// and with a byte changed.
func TestReaderAgreesWithGeneralSkip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b, err := Encode(drawTerm(rt, 4))
		if err != nil {
			rt.Skip(err)
		}
		o := Options{UTF8Atoms: rapid.Bool().Draw(rt, "utf8"), MaxDepth: rapid.IntRange(0, 8).Draw(rt, "depth")}
		certify := rapid.Bool().Draw(rt, "certify")
		skipBoth(rt, b, o, certify)
		if len(b) > 1 {
			cut := rapid.IntRange(0, len(b)-1).Draw(rt, "cut")
			skipBoth(rt, b[:cut], o, certify)
			c := append([]byte(nil), b...)
			c[rapid.IntRange(0, len(c)-1).Draw(rt, "at")] = rapid.Byte().Draw(rt, "byte")
			skipBoth(rt, c, o, certify)
		}
	})
}

// TestReaderStudyWorkload: the same on the study's workload, whose
// bignums, improper lists and binaries the loop's fast steps are for.
func TestReaderStudyWorkload(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 2000 {
		b, err := Encode(studyTerm(r, 1+r.IntN(5)))
		if err != nil {
			t.Fatal(err)
		}
		skipBoth(t, b, Options{}, false)
		skipBoth(t, b, Options{}, true)
		c := append([]byte(nil), b...)
		c[r.IntN(len(c))] ^= byte(1 + r.IntN(255))
		skipBoth(t, c, Options{}, false)
		skipBoth(t, b[:r.IntN(len(b))], Options{}, false)
	}
}

// FuzzReader holds the reader's loop to the general skip on any input.
func FuzzReader(f *testing.F) {
	seedEncodings(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, certify := range []bool{false, true} {
			skipBoth(t, b, Options{}, certify)
			skipBoth(t, b, Options{UTF8Atoms: true, MaxDepth: 3}, certify)
		}
	})
}

// TestReaderEdges: the same on every golden vector, valid and invalid,
// and on forms the encoder never writes but the decoders read or refuse.
func TestReaderEdges(t *testing.T) {
	var inputs [][]byte
	for _, name := range []string{"encode.tsv", "reverse.tsv", "legacy.tsv"} {
		for _, l := range readLines(t, name) {
			inputs = append(inputs, mustHex(t, l.fields[1]))
		}
	}
	for _, l := range readLines(t, "invalid.txt") {
		inputs = append(inputs, mustHex(t, l.fields[0]))
	}
	inputs = append(inputs,
		[]byte{tagNeg4, 0xFF, 0xFF, 0xFF, 0xFF},                                                   // -0, the long way
		[]byte{tagPos4, 0, 0, 0, 3},                                                               // a float in small form
		[]byte{tagTuple, 0, 0, 0, 1, tagNeg4, 0xFF, 0xFF, 0xFF, 0xFF},                             // the same inside
		[]byte{tagList, tagPos4, 0, 0, 0, 2, markImproper, tagList, tagPos4, 0, 0, 0, 4, markEnd}, // [1|[2]]
		[]byte{tagList, tagPos4, 0, 0, 0, 2, markBitTail, tagPos4, 0, 0, 0, 4},                    // a bit tail that is no bitstring
		[]byte{tagList, tagPos4, 0, 0, 0, 2, markImproper, tagBinary, emptyFrame},                 // a binary tail marked as any tail
		[]byte{tagList, tagPos4, 0, 0, 0, 2, markImproper},                                        // a tail cut off
		[]byte{tagList, tagPos4, 0, 0, 0, 2},                                                      // a list cut off
		[]byte{tagList, markBitTail, tagBinary, emptyFrame},                                       // a tail and no element
	)
	for _, b := range inputs {
		for cut := len(b); cut >= max(0, len(b)-3); cut-- {
			for _, o := range []Options{{}, {UTF8Atoms: true}, {MaxDepth: 1}, {MaxDepth: 2}} {
				skipBoth(t, b[:cut], o, false)
				skipBoth(t, b[:cut], o, true)
			}
		}
	}
}

// TestSkipJoinsListTails: a chain of list tails that are lists, [0|[0|[0]]],
// is skipped as the decoders read it, in one loop nested for the depth
// limit only: the same end, and the same error at the same offset under
// every depth limit and cut short anywhere.
func TestSkipJoinsListTails(t *testing.T) {
	for tails := range 5 {
		b := []byte{tagList}
		for range tails {
			b = append(b, tagPos4, 0, 0, 0, 0, markImproper, tagList)
		}
		b = append(b, tagPos4, 0, 0, 0, 0, markEnd)
		for cut := len(b); cut > 0; cut-- {
			for depth := 1; depth <= tails+2; depth++ {
				o := Options{MaxDepth: depth}
				_, werr := o.Decode(b[:cut])
				end, gerr := o.View(b[:cut]).End()
				var want, got *DecodeError
				switch {
				case werr == nil && (gerr != nil || end != cut):
					t.Errorf("% x, depth %d: Decode reads it, the skip gives %d, %v", b[:cut], depth, end, gerr)
				case werr != nil && (!errors.As(werr, &want) || !errors.As(gerr, &got) || want.Err != got.Err || want.Offset != got.Offset):
					t.Errorf("% x, depth %d: Decode fails with %v, the skip with %v", b[:cut], depth, werr, gerr)
				}
				skipBoth(t, b[:cut], o, false)
				skipBoth(t, b[:cut], o, true)
			}
		}
	}
}
