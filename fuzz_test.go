package sext

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
	"github.com/google/go-cmp/cmp"
)

// Fuzz targets. Each is seeded from the golden vectors, and every input
// that ever failed stays in testdata/fuzz as a regression case.

// seedEncodings adds every encoding in the vector files, and a few
// hostile shapes, to the corpus.
func seedEncodings(f *testing.F) { seedEncodingsEvery(f, 1) }

// seedEncodingsEvery seeds f with every kth vector of each file: a seed
// that costs much to check can sample them in the quick pass.
func seedEncodingsEvery(f *testing.F, k int) {
	for _, name := range []string{"encode.tsv", "reverse.tsv", "legacy.tsv"} {
		for i, l := range readLines(f, name) {
			if i%k == 0 {
				f.Add(mustHex(f, l.fields[1]))
			}
		}
	}
	for i, l := range readLines(f, "invalid.txt") {
		if i%k == 0 {
			f.Add(mustHex(f, l.fields[0]))
		}
	}
	f.Add(bytes.Repeat([]byte{tagList}, 100))
	f.Add([]byte{tagTuple, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0})
	f.Add([]byte{tagNegBig, 0, 0, 0, 0, 8, 0xFF})
}

// FuzzDecode checks that the two decoders agree on any input, never
// panic, and that what they accept re-encodes to something that decodes
// to the same term; canonical decoding gives back the input exactly.
var fuzzDecoder struct {
	sync.Mutex
	Decoder
}

func FuzzDecode(f *testing.F) {
	seedEncodings(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		x, errx := DecodeRecursive(b)
		y, erry := DecodeCPS(b)
		if (errx == nil) != (erry == nil) || errx == nil && !term.Equal(x, y) ||
			errx != nil && errx.Error() != erry.Error() { // one refusal, one wording
			t.Fatalf("decoders disagree on %x: %v, %v / %v, %v", b, x, errx, y, erry)
		}
		// A plain decode's term keeps none of the arena the next reuses.
		for _, cps := range []bool{false, true} {
			if got, s, err := decodeSnapshot(b, cps); err == nil && erry == nil {
				poison(&s.a, len(b))
				if !term.Equal(got, y) {
					t.Fatalf("decode %x, after poisoning the arena: %s, want %s", b, got, y)
				}
			}
		}
		if w, errw := Decode(b); (errw == nil) != (erry == nil) || errw != nil && errw.Error() != erry.Error() ||
			errw == nil && !term.Equal(w, y) {
			t.Fatalf("Decode disagrees with DecodeCPS on %x: %v, %v / %v, %v", b, w, errw, y, erry)
		}
		// One Decoder for all inputs, so that each decodes into memory the
		// earlier ones used.
		fuzzDecoder.Lock()
		z, errz := fuzzDecoder.Decode(b)
		if (errz == nil) != (erry == nil) || errz != nil && errz.Error() != erry.Error() ||
			errz == nil && (!term.Equal(z, y) || !term.Equal(fuzzDecoder.Keep(z), y)) {
			t.Fatalf("Decoder disagrees on %x: %v, %v / %v, %v", b, z, errz, y, erry)
		}
		fuzzDecoder.Unlock()
		if errx != nil {
			var de *DecodeError
			if !errors.As(errx, &de) || de.Offset < 0 || de.Offset > len(b) {
				t.Fatalf("bad error %v on %x", errx, b)
			}
		} else {
			enc, err := Encode(x)
			if err != nil {
				t.Fatalf("decoded %s from %x but cannot encode it: %v", x, b, err)
			}
			if back, err := Decode(enc); err != nil || !term.Equal(back, x) {
				t.Fatalf("re-encoding %s: %v, %v", x, back, err)
			}
		}
		for _, o := range []Options{{Canonical: true}, {Canonical: true, UTF8Atoms: true}} {
			if c, err := o.DecodeRecursive(b); err == nil {
				if enc, _ := o.Encode(c); !bytes.Equal(enc, b) {
					t.Fatalf("canonical decode of %x gave %s, encoding %x", b, c, enc)
				}
			}
		}
	})
}

// FuzzDecodeNext checks DecodeNext and PartialDecode on any input.
func FuzzDecodeNext(f *testing.F) {
	seedEncodings(f)
	for _, l := range readLines(f, "prefix.tsv") {
		f.Add(mustHex(f, l.fields[1]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, rest, err := DecodeNext(b)
		if err == nil {
			n := len(b) - len(rest)
			if back, err := Decode(b[:n]); err != nil || !term.Equal(back, x) {
				t.Fatalf("DecodeNext read %x as %s, Decode gives %v, %v", b[:n], x, back, err)
			}
		}
		p, full, rest, err := PartialDecode(b)
		if err != nil {
			return
		}
		if full {
			n := len(b) - len(rest)
			if back, err := Decode(b[:n]); err != nil || !term.Equal(back, p) {
				t.Fatalf("PartialDecode full %s from %x, Decode gives %v, %v", p, b[:n], back, err)
			}
		}
	})
}

// FuzzText checks the hex and sb32 decoders: no panic, and a text that
// decodes re-encodes to the same bytes.
func FuzzText(f *testing.F) {
	for _, l := range readLines(f, "sb32.tsv") {
		f.Add(l.fields[1])
		f.Add(l.fields[2])
	}
	f.Add("0a-")
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := Hex.DecodeString(s); err == nil && !bytes.EqualFold([]byte(Hex.EncodeToString(b)), []byte(s)) {
			t.Fatalf("hex %q -> %x -> %s", s, b, Hex.EncodeToString(b))
		}
		for _, e := range []*Encoding{SB32, OrderedSB32} {
			if b, err := e.DecodeString(s); err == nil && e.EncodeToString(b) != s {
				t.Fatalf("sb32 %q -> %x -> %s", s, b, e.EncodeToString(b))
			}
		}
	})
}

// FuzzRoundTrip parses text into a term and checks encode, both decoders,
// order against a second term, and the prefix of the term as a pattern.
func FuzzRoundTrip(f *testing.F) {
	for _, l := range readLines(f, "encode.tsv") {
		f.Add(l.fields[0], "0")
	}
	for _, l := range readLines(f, "prefix.tsv") {
		f.Add(l.fields[0], "[]")
	}
	f.Fuzz(func(t *testing.T, s1, s2 string) {
		a, err1 := term.Parse(s1)
		b, err2 := term.Parse(s2)
		if err1 != nil || err2 != nil {
			return
		}
		ea, err := Encode(a)
		if err != nil {
			return // NaN cannot be parsed; atoms beyond Latin-1 can
		}
		for _, d := range decoders {
			if back, err := d.decode(ea); err != nil || !term.Equal(back, a) {
				t.Fatalf("%s decoder on %s: %v, %v", d.name, a, back, err)
			}
		}
		if eb, err := Encode(b); err == nil && bytes.Compare(ea, eb) != term.Compare(a, b) {
			t.Fatalf("order of %s and %s", a, b)
		}
		if pre, err := Prefix(a); err != nil || !bytes.HasPrefix(ea, pre) && hasNoWildcard(a) {
			t.Fatalf("prefix of %s: %x, %v", a, pre, err)
		}
	})
}

func hasNoWildcard(t term.Term) bool { return !hasAnon(t) }

// FuzzFraming compares the word-at-a-time framing with a plain bit-by-bit
// implementation, both ways, ascending and descending.
func FuzzFraming(f *testing.F) {
	f.Add([]byte("alice"), 0, false)
	f.Add(bytes.Repeat([]byte{0xFF}, 17), 3, true)
	f.Fuzz(func(t *testing.T, data []byte, drop int, neg bool) {
		nbits := 8 * len(data)
		if len(data) > 0 {
			nbits -= (drop & 0xFF) % 8
		}
		data = slowMask(data, nbits)
		want := slowFrame(data, nbits, neg)
		got := appendFrame(nil, data, nbits, neg)
		if !bytes.Equal(got, want) {
			t.Fatalf("frame(%x, %d, %v) = %x, want %x", data, nbits, neg, got, want)
		}
		inv := byte(0)
		if neg {
			inv = 0xFF
		}
		fr, err := scanFrame(got, 0, inv)
		if err != nil || fr.end != len(got) || fr.bits != nbits {
			t.Fatalf("scan %x: %+v, %v", got, fr, err)
		}
		out := make([]byte, fr.units)
		if err := unframe(out, got, 0, fr, inv); err != nil || !bytes.Equal(out[:(nbits+7)/8], data) {
			t.Fatalf("unframe %x = %x, %v; want %x", got, out, err, data)
		}
	})
}

// slowMask clears the bits of data past nbits.
func slowMask(data []byte, nbits int) []byte {
	data = append([]byte(nil), data[:(nbits+7)/8]...)
	if k := nbits % 8; k != 0 {
		data[len(data)-1] &^= 0xFF >> k
	}
	return data
}

// slowFrame is the framing written out bit by bit, as the format
// describes it.
func slowFrame(data []byte, nbits int, neg bool) []byte {
	if nbits == 0 {
		if neg {
			return []byte{emptyNegFrame}
		}
		return []byte{emptyFrame}
	}
	var bits []byte
	for i := 0; i < len(data); i++ {
		bits = append(bits, 1)
		for j := 7; j >= 0; j-- {
			bits = append(bits, data[i]>>j&1)
		}
	}
	bits = append(bits, 0) // the stop bit opens the padding
	for len(bits)%8 != 0 {
		bits = append(bits, 0)
	}
	var out []byte
	for i := 0; i < len(bits); i += 8 {
		var c byte
		for j := range 8 {
			c = c<<1 | bits[i+j]
		}
		out = append(out, c)
	}
	end := byte(nbits % 8)
	if end == 0 {
		end = 8
	}
	out = append(out, end)
	if neg {
		for i := range out {
			out[i] = ^out[i]
		}
		if end == 8 {
			out[len(out)-1] = 0xFF
		}
	}
	return out
}

// FuzzFastPaths compares the fast paths of the codec with plain ones:
// atom interning with a direct conversion, and the small-integer
// shortcut of the encoder with the general integer code.
func FuzzFastPaths(f *testing.F) {
	f.Add([]byte("user"), int64(42))
	f.Add([]byte{0xE9, 'x'}, int64(-1))
	f.Add([]byte("日本"), int64(1<<31-1))
	f.Fuzz(func(t *testing.T, name []byte, i int64) {
		var s scratchSpace
		for _, utf := range []bool{false, true} {
			got, err := s.atomFromBytes(name, utf)
			var want string
			if utf {
				want = string(name)
				if !utf8.Valid(name) {
					if err == nil {
						t.Fatalf("atom %x taken as UTF-8", name)
					}
					continue
				}
			} else {
				rs := make([]rune, len(name))
				for j, c := range name {
					rs[j] = rune(c)
				}
				want = string(rs)
			}
			if err != nil || got.Atom() != want {
				t.Fatalf("atom %x (utf8 %v) = %q, %v; want %q", name, utf, got.Atom(), err, want)
			}
		}
		e := (&Options{}).encodeState()
		fast, _ := e.appendTerm(nil, term.Int(i))
		m, neg := magnitude{u: uint64(i)}, i < 0
		if neg {
			m.u = -m.u
		}
		plain := e.appendIntPart(nil, m, neg, false)
		if !bytes.Equal(fast, plain) {
			t.Fatalf("%d: fast %x, plain %x", i, fast, plain)
		}
	})
}

// FuzzView checks that a View's End fails where Decode fails, with the
// same sentinel and offset, and that on bytes that decode the View's
// accessors rebuild the term Decode gives.
func FuzzView(f *testing.F) {
	seedEncodings(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkView(t, Options{MaxDepth: 64}, b)
		pokeView(t, Options{MaxDepth: 64}.View(b), 2)
	})
}

// FuzzMatcher matches hostile keys against patterns made from other
// hostile bytes (read back with PartialDecode, so they hold wildcards):
// the compiled match must say what Decode and Match say, or, for a key
// that does not decode, give Decode's error or no match.
func FuzzMatcher(f *testing.F) {
	for _, pk := range [][2]string{
		{"{order,'_','_',7}", "{order,1,#Desc<2>,7}"},
		{"{'$1',['_'|'$1']}", "{[a],[b,a]}"},
		{"#{a => '$1'}", "#{a => 1}"},
		{"[1|'_']", "[1,2|3]"},
	} {
		p, _ := term.Parse(pk[0])
		k, _ := term.Parse(pk[1])
		pb, _ := Prefix(p)
		kb, _ := Encode(k)
		f.Add(pb, kb)
	}
	f.Fuzz(func(t *testing.T, pb, key []byte) {
		p, _, _, err := PartialDecode(pb)
		if err != nil {
			return
		}
		m, err := CompileMatch(p)
		if err != nil {
			return
		}
		x, derr := Decode(key)
		bs, ok, err := m.Match(key)
		if derr != nil {
			var de, me *DecodeError
			if ok || err != nil && (!errors.As(derr, &de) || !errors.As(err, &me) || de.Offset != me.Offset || de.Err != me.Err) {
				t.Fatalf("%s against %x: %v, %v; Decode: %v", p, key, ok, err, derr)
			}
			return
		}
		want, wantOK := Match(p, x)
		if err != nil || ok != wantOK {
			t.Fatalf("%s against %s: %v, %v; Match says %v", p, x, ok, err, wantOK)
		}
		if diff := cmp.Diff(want, bs, cmp.Comparer(term.Equal)); ok && diff != "" {
			t.Fatalf("%s against %s: bindings (-Match +Matcher):\n%s", p, x, diff)
		}
		if b2, _ := m.Matches(key); b2 != ok {
			t.Fatalf("%s against %s: Matches %v, Match %v", p, x, b2, ok)
		}
	})
}

// pokeView calls every accessor of v, and of the first elements, entries
// and tail it reaches, down to depth levels: on any bytes each must return
// or fail with a *DecodeError inside the input, never panic. FuzzView's
// agreement check reads only what decodes, and a fast path that trusts a
// count it has not checked shows only on bytes that do not.
func pokeView(t *testing.T, v View, depth int) {
	t.Helper()
	n := len(v.bytes())
	check := func(what string, err error) {
		t.Helper()
		var de *DecodeError
		if err != nil && !errors.Is(err, ErrKind) && !errors.Is(err, ErrRange) &&
			(!errors.As(err, &de) || de.Offset < 0 || de.Offset > n) {
			t.Fatalf("%x at %d: %s: %v is not a *DecodeError inside the input", v.bytes(), v.Offset(), what, err)
		}
	}
	_, err := v.Kind()
	check("Kind", err)
	_, err = v.Len()
	check("Len", err)
	_, err = v.End()
	check("End", err)
	_, err = v.Raw()
	check("Raw", err)
	_, err = v.Int64()
	check("Int64", err)
	_, err = v.Float()
	check("Float", err)
	_, err = v.AppendBytes(nil)
	check("AppendBytes", err)
	_, _, err = v.AppendBits(nil)
	check("AppendBits", err)
	_, err = v.AppendAtom(nil)
	check("AppendAtom", err)
	_, err = v.AppendInner(nil)
	check("AppendInner", err)
	_, err = v.AtomIs("a")
	check("AtomIs", err)
	_, err = v.Next()
	check("Next", err)
	if depth == 0 {
		return
	}
	for i := -1; i < 4; i++ {
		e, err := v.Elem(i)
		check("Elem", err)
		if err == nil {
			pokeView(t, e, depth-1)
		}
		k, x, err := v.Entry(i)
		check("Entry", err)
		if err == nil {
			pokeView(t, k, depth-1)
			pokeView(t, x, depth-1)
		}
	}
	tail, ok, err := v.Tail()
	check("Tail", err)
	if err == nil && ok {
		pokeView(t, tail, depth-1)
	}
}

// TestViewAccessorsOnHostileBytes holds the accessors to pokeView's rule
// on bytes outside probing found to panic: counts that claim more elements
// than follow.
func TestViewAccessorsOnHostileBytes(t *testing.T) {
	for _, h := range []string{
		"10000000040cb7dcac965b969008",
		"10000000030c8008",
		"100000000312",
		"1000000002110a",
		"10000000020a",
	} {
		pokeView(t, NewView(mustHex(t, h)), 2)
	}
}
