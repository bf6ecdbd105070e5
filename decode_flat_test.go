package sext

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/erlsext/sext/term"
)

// flatCases are keys and what each fast path makes of them: direct,
// directFits's choice of direct mode (parts that take at most two
// allocations of their own); taken, Decode's flat path.
var flatCases = []struct {
	text          string
	direct, taken bool
}{
	{`{user, 42, <<"alice">>}`, true, true},
	{`{order, 7, {2024, 5, 1}, 9}`, true, true},
	{`{session, <<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16>>, active}`, true, true},
	{`{a, <<>>, <<>>, -5}`, true, true},
	{`{a, <<>>, <<>>, -5, '', {}}`, true, true},
	{`{}`, true, true},
	{`{<<"a">>, <<"b">>}`, false, true},                                          // three for directFits: the tuple and two binaries
	{`{<<"a">>, <<"b">>, {<<"c">>, -2147483647}}`, false, true},                  // four
	{`{<<"12345678">>, <<"123456789">>, {<<"abcdefghijklmnop">>}}`, false, true}, // a slot's 8 bytes, then longer
	{`{x, {1, 2}, {3, 4}}`, false, true},                                         // three tuples
	{`{x, {<<"a">>}}`, false, true},                                              // two tuples and a binary
	{`{k, <<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17>>}`, true, false},          // more than the flat path's 16 bytes
	{`{longer_name, 1}`, true, false},                                            // the flat path: seven bytes at most
	{`{'é', 1}`, true, false},                                                    // the flat path: ASCII only
	{`{<<1:3>>}`, true, false},                                                   // the flat path: whole bytes only
	{`{x, {y, {z}}}`, false, false},                                              // a tuple two deep
	{`{x, [1, 2]}`, false, false},                                                // a list
	{`{x, 123456789012345678901234}`, false, false},                              // a bignum
	{`{x, 1.5}`, false, false},                                                   // a float is not a small integer
	{`{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17}`, false, false},                // past 64 bytes
	{`[a, b]`, false, false},
	{`user`, false, false},
}

// directFits picks direct mode only for keys whose parts take at most two
// allocations of their own; the allocation tests hold the count, this
// the choice.
func TestDirectFits(t *testing.T) {
	for _, c := range flatCases {
		b := mustEncodeText(t, c.text)
		if got := directFits(b); got != c.direct {
			t.Errorf("directFits(%s) = %v, want %v", c.text, got, c.direct)
		}
		if c.direct && directFits(append(b, 0)) {
			t.Errorf("directFits(%s with a trailing byte) = true", c.text)
		}
	}
	b, err := Encode(term.Tuple(term.Atom("k"), term.Binary(make([]byte, 60))))
	if err != nil {
		t.Fatal(err)
	}
	if directFits(b) {
		t.Errorf("flatKey of %d bytes = true, want false past 64", len(b))
	}
	// A count that claims more than the bytes hold ends at the bytes.
	if directFits([]byte{tagTuple, 0xFF, 0xFF, 0xFF, 0xFF, tagPos4, 0, 0, 0, 2}) {
		t.Error("flatKey of a truncated tuple = true")
	}
}

// The flat path takes the common key shapes and gives DecodeCPS's term;
// for every byte of every key changed, and every key cut short, it
// either refuses or agrees with DecodeCPS.
func TestFlatDecode(t *testing.T) {
	for _, c := range flatCases {
		b := mustEncodeText(t, c.text)
		got, ok := Options{}.decodeFlat(b)
		if ok != c.taken {
			t.Errorf("decodeFlat(%s) taken = %v, want %v", c.text, ok, c.taken)
		}
		if x := mustParse(t, c.text); ok && !term.Equal(got, x) {
			t.Errorf("decodeFlat(%s) = %s", c.text, got)
		}
		for i := range b {
			for _, v := range []byte{0, 1, 0x7F, 0x80, 0xFF, b[i] ^ 1, b[i] + 1} {
				m := bytes.Clone(b)
				m[i] = v
				flatAgrees(t, m)
			}
			flatAgrees(t, b[:i])
		}
		flatAgrees(t, append(bytes.Clone(b), 0))
	}
}

// mustEncodeText encodes the term the text describes.
func mustEncodeText(t *testing.T, text string) []byte {
	t.Helper()
	b, err := Encode(mustParse(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func flatAgrees(t *testing.T, b []byte) {
	t.Helper()
	got, ok := Options{}.decodeFlat(b)
	if !ok {
		return
	}
	want, err := DecodeCPS(b)
	if err != nil || !term.Equal(got, want) {
		t.Fatalf("decodeFlat(%x) = %s, DecodeCPS %s, %v", b, got, want, err)
	}
}

// A depth limit too low for the key sends it the general way, which
// reports the depth error; Canonical does too.
func TestFlatDecodeOptions(t *testing.T) {
	for _, text := range []string{`{order, 7, {2024, 5, 1}, 9}`, `{x, {}}`} {
		b, err := Encode(mustParse(t, text))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := (Options{MaxDepth: 1}).decodeFlat(b); ok {
			t.Errorf("%s taken at MaxDepth 1", text)
		}
		if _, err := (Options{MaxDepth: 1}).Decode(b); !errors.Is(err, ErrDepth) {
			t.Errorf("%s at MaxDepth 1: %v, want ErrDepth", text, err)
		}
		if _, ok := (Options{Canonical: true}).decodeFlat(b); ok {
			t.Errorf("%s taken with Canonical", text)
		}
	}
}

// A binary's bytes live in a slot's scalar word: the term survives a
// collection whole, and names decoded by many goroutines at once stay
// theirs.
func TestFlatDecodeSurvivesGC(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keep := make([]term.Term, 0, 200)
			for i := range 200 {
				name := fmt.Sprintf("n%d", (g*200+i)%97)
				want := term.Tuple(term.Atom(name), term.Int(int64(i)), term.Binary([]byte(fmt.Sprintf("bytes-%08d", i))))
				b, err := Encode(want)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := Decode(b)
				if err != nil || !term.Equal(got, want) {
					t.Errorf("Decode(%s) = %s, %v", want, got, err)
					return
				}
				keep = append(keep, got)
				if i%50 == 0 {
					runtime.GC()
				}
			}
			runtime.GC()
			for i, k := range keep {
				name := fmt.Sprintf("n%d", (g*200+i)%97)
				if k.Elems()[0].Atom() != name || string(k.Elems()[2].Bytes()) != fmt.Sprintf("bytes-%08d", i) {
					t.Errorf("kept term %d changed: %s", i, k)
				}
			}
		}()
	}
	wg.Wait()
}
