package sext

import (
	"bytes"
	"cmp"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/term"
)

// The shared property suite. Every decoding property runs against both
// decoders. Unless -rapid.checks is given, each property runs testsize's
// count: 1,000 cases quick, 10,000 at full size (CI), 100 with -short.
func TestMain(m *testing.M) { testsize.Main(m) }

func mustEncode(t *rapid.T, o Options, x term.Term) []byte {
	b, err := o.Encode(x)
	if err != nil {
		t.Fatalf("Encode(%s): %v", x, err)
	}
	return b
}

func TestPropRoundTrip(t *testing.T) {
	for _, d := range decoders {
		t.Run(d.name, rapid.MakeCheck(func(t *rapid.T) {
			x := genTerm(3).Draw(t, "x")
			b := mustEncode(t, Options{}, x)
			back, err := d.decode(b)
			if err != nil {
				t.Fatalf("decode(encode(%s)) = %v (bytes %x)", x, err, b)
			}
			if !term.Equal(back, x) {
				t.Fatalf("decode(encode(%s)) = %s", x, back)
			}
		}))
	}
}

// drawPair draws two terms, often close to each other.
func drawPair(t *rapid.T) (term.Term, term.Term) {
	a := genTerm(3).Draw(t, "a")
	if rapid.Bool().Draw(t, "close") {
		return a, mutate(t, a)
	}
	return a, genTerm(3).Draw(t, "b")
}

func TestPropOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawPair(t)
		ea, eb := mustEncode(t, Options{}, a), mustEncode(t, Options{}, b)
		if c, want := term.Compare(a, b), bytes.Compare(ea, eb); c != want {
			t.Fatalf("Compare(%s, %s) = %d, bytes give %d\n%x\n%x", a, b, c, want, ea, eb)
		}
	})
}

func TestPropPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(3).Draw(t, "x")
		var n int
		p := drawPattern(t, x, &n)
		if _, ok := Match(p, x); !ok {
			t.Fatalf("%s does not match its own pattern %s", x, p)
		}
		pre, err := Prefix(p)
		if err != nil {
			t.Fatal(err)
		}
		enc := mustEncode(t, Options{}, x)
		if !bytes.HasPrefix(enc, pre) {
			t.Fatalf("Prefix(%s) = %x is not a prefix of encode(%s) = %x", p, pre, x, enc)
		}
		q, full, rest, err := PartialDecode(pre)
		if err != nil || len(rest) != 0 {
			t.Fatalf("PartialDecode(%x) = %v, rest %x", pre, err, rest)
		}
		if _, ok := Match(q, x); !ok {
			t.Fatalf("PartialDecode(Prefix(%s)) = %s does not match %s", p, q, x)
		}
		if full != (n == 0 && !hasAnon(p)) {
			t.Fatalf("PartialDecode(Prefix(%s)) full = %v", p, full)
		}
	})
}

// hasAnon reports whether p holds the wildcard '_'.
func hasAnon(p term.Term) bool {
	switch p.Kind() {
	case term.KindAtom:
		return IsWildcard(p)
	case term.KindTuple, term.KindList:
		for _, e := range p.Elems() {
			if hasAnon(e) {
				return true
			}
		}
		return p.Kind() == term.KindList && !p.IsProper() && hasAnon(p.Tail())
	case term.KindMap:
		for _, e := range p.Entries() {
			if hasAnon(e.Key) || hasAnon(e.Value) {
				return true
			}
		}
	case term.KindDesc:
		return hasAnon(p.Inner())
	}
	return false
}

// drawBytes draws input for the decoders: random bytes, or a valid
// encoding cut short, extended or with a byte changed.
func drawBytes(t *rapid.T) []byte {
	if rapid.IntRange(0, 3).Draw(t, "random") == 0 {
		return rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "bytes")
	}
	b := mustEncode(t, Options{}, genTerm(3).Draw(t, "x"))
	switch rapid.IntRange(0, 3).Draw(t, "how") {
	case 0:
		b = b[:rapid.IntRange(0, len(b)).Draw(t, "cut")]
	case 1:
		b = append(b, rapid.SliceOfN(rapid.Byte(), 1, 3).Draw(t, "more")...)
	case 2:
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		b[i] = rapid.Byte().Draw(t, "to")
	}
	return b
}

func TestPropDecodersAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := drawBytes(t)
		x, errx := DecodeRecursive(b)
		y, erry := DecodeCPS(b)
		if (errx == nil) != (erry == nil) || errx == nil && !term.Equal(x, y) {
			t.Fatalf("on %x: recursive gives %v, %v; cps gives %v, %v", b, x, errx, y, erry)
		}
		if errx != nil {
			var dx, dy *DecodeError
			if !errors.As(errx, &dx) || !errors.As(erry, &dy) {
				t.Fatalf("errors are not *DecodeError: %v, %v", errx, erry)
			}
			if dx.Offset < 0 || dx.Offset > len(b) {
				t.Fatalf("offset %d outside input of %d bytes", dx.Offset, len(b))
			}
		}
	})
}

func TestPropDecodeNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(2).Draw(t, "x")
		y := genTerm(2).Draw(t, "y")
		b := append(mustEncode(t, Options{}, x), mustEncode(t, Options{}, y)...)
		gx, rest, err := DecodeNext(b)
		if err != nil || !term.Equal(gx, x) {
			t.Fatalf("DecodeNext = %v, %v; want %s", gx, err, x)
		}
		gy, rest, err := DecodeNext(rest)
		if err != nil || !term.Equal(gy, y) || len(rest) != 0 {
			t.Fatalf("second DecodeNext = %v, %v, rest %x; want %s", gy, err, rest, y)
		}
	})
}

func TestPropCanonical(t *testing.T) {
	for _, d := range []struct {
		name   string
		decode func(Options, []byte) (term.Term, error)
	}{{"recursive", Options.DecodeRecursive}, {"cps", Options.DecodeCPS}} {
		t.Run(d.name, rapid.MakeCheck(func(t *rapid.T) {
			b := drawBytes(t)
			x, err := d.decode(Options{Canonical: true}, b)
			if err != nil {
				return
			}
			if enc := mustEncode(t, Options{}, x); !bytes.Equal(enc, b) {
				t.Fatalf("canonical decode of %x gave %s, which encodes as %x", b, x, enc)
			}
		}))
	}
}

func TestPropMatchFiltersExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(3).Draw(t, "x")
		var n int
		p := drawPattern(t, x, &n)
		y := mutate(t, x)
		pre, err := Prefix(p)
		if err != nil {
			t.Fatal(err)
		}
		// Whatever Match accepts, the prefix must let through.
		if _, ok := Match(p, y); ok && !bytes.HasPrefix(mustEncode(t, Options{}, y), pre) {
			t.Fatalf("%s matches %s but its encoding lacks the prefix %x", y, p, pre)
		}
	})
}

func TestPropPrefixRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(3).Draw(t, "x")
		var n int
		p := drawPattern(t, x, &n)
		lo, hi, err := PrefixRange(p)
		if err != nil {
			t.Fatal(err)
		}
		y := mutate(t, x)
		ey := mustEncode(t, Options{}, y)
		in := bytes.Compare(ey, lo) >= 0 && (hi == nil || bytes.Compare(ey, hi) < 0)
		if in != bytes.HasPrefix(ey, lo) {
			t.Fatalf("range [%x, %x) and prefix disagree on %x", lo, hi, ey)
		}
	})
}

func TestPropDescReverses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawPair(t)
		da, db := mustEncode(t, Options{}, term.Desc(a)), mustEncode(t, Options{}, term.Desc(b))
		if got, want := bytes.Compare(da, db), -term.Compare(a, b); got != want {
			t.Fatalf("Desc order of %s, %s is %d, want %d", a, b, got, want)
		}
		// A Desc next to plain elements keeps the byte order too.
		ta := term.Tuple(term.Atom("k"), term.Desc(a), b)
		tb := term.Tuple(term.Atom("k"), term.Desc(b), a)
		if got, want := bytes.Compare(mustEncode(t, Options{}, ta), mustEncode(t, Options{}, tb)), term.Compare(ta, tb); got != want {
			t.Fatalf("mixed: %d, want %d", got, want)
		}
	})
}

func TestPropTextOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawPair(t)
		want := term.Compare(a, b)
		ea, eb := mustEncode(t, Options{}, a), mustEncode(t, Options{}, b)
		ha, hb := Hex.EncodeToString(ea), Hex.EncodeToString(eb)
		sa, sb := OrderedSB32.EncodeToString(ea), OrderedSB32.EncodeToString(eb)
		if cmp.Compare(ha, hb) != want || cmp.Compare(sa, sb) != want {
			t.Fatalf("text order of %s, %s: hex %d, sb32 %d, want %d", a, b, cmp.Compare(ha, hb), cmp.Compare(sa, sb), want)
		}
		for _, s := range []struct {
			text string
			enc  *Encoding
		}{{ha, Hex}, {sa, OrderedSB32}} {
			if back, err := decodeText(s.enc, s.text); err != nil || !term.Equal(back, a) {
				t.Fatalf("decoding %s: %v, %v", s.text, back, err)
			}
		}
	})
}

func TestPropHugeIntegers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := term.BigInt(drawBig(t, 600))
		b := term.BigInt(drawBig(t, 600))
		ea, eb := mustEncode(t, Options{}, a), mustEncode(t, Options{}, b)
		if got, want := bytes.Compare(ea, eb), term.Compare(a, b); got != want {
			t.Fatalf("order of %s, %s: bytes %d, want %d", a, b, got, want)
		}
		for _, d := range decoders {
			if back, err := d.decode(ea); err != nil || !term.Equal(back, a) {
				t.Fatalf("%s decoder: %v, %v", d.name, back, err)
			}
		}
	})
}

func TestPropUTF8Atoms(t *testing.T) {
	o := Options{UTF8Atoms: true}
	names := rapid.StringOfN(rapid.SampledFrom([]rune{'a', 'z', 'é', 'ÿ', 'Ā', '日', '🙂', 0}), 0, 4, -1)
	rapid.Check(t, func(t *rapid.T) {
		a, b := term.Atom(names.Draw(t, "a")), term.Atom(names.Draw(t, "b"))
		ea, eb := mustEncode(t, o, a), mustEncode(t, o, b)
		if got, want := bytes.Compare(ea, eb), term.Compare(a, b); got != want {
			t.Fatalf("order of %s, %s: bytes %d, want %d", a, b, got, want)
		}
		if back, err := o.Decode(ea); err != nil || !term.Equal(back, a) {
			t.Fatalf("decode: %v, %v", back, err)
		}
		if back, err := o.DecodeRecursive(ea); err != nil || !term.Equal(back, a) {
			t.Fatalf("decode: %v, %v", back, err)
		}
	})
}

// The reference's sb32 writes a last partial character as a plain number.
// This checks the claim in docs/FORMAT.md: its texts keep the order of
// encodings of one length, and can break it across lengths.
func TestReferenceSB32Order(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawPair(t)
		ea, eb := mustEncode(t, Options{}, a), mustEncode(t, Options{}, b)
		if len(ea) != len(eb) {
			return
		}
		if got, want := cmp.Compare(SB32.EncodeToString(ea), SB32.EncodeToString(eb)), bytes.Compare(ea, eb); got != want {
			t.Fatalf("sb32 order %d, bytes %d", got, want)
		}
	})
	a, b := []byte{0x12, 0x01}, []byte{0x12, 0x00, 0xFF} // a sorts after b
	if SB32.EncodeToString(a) > SB32.EncodeToString(b) {
		t.Fatalf("expected the reference's sb32 to misorder %x and %x", a, b)
	}
	if OrderedSB32.EncodeToString(a) < OrderedSB32.EncodeToString(b) {
		t.Fatalf("OrderedSB32 misorders %x and %x", a, b)
	}
}

func TestPropLegacyBignums(t *testing.T) {
	o := Options{Legacy: true}
	rapid.Check(t, func(t *rapid.T) {
		x := term.BigInt(drawBig(t, 40))
		b := mustEncode(t, o, x)
		for _, d := range decoders {
			if back, err := d.decode(b); err != nil || !term.Equal(back, x) {
				t.Fatalf("%s decoder on legacy %x: %v, %v; want %s", d.name, b, back, err, x)
			}
		}
		if x.IsBig() {
			if _, err := (Options{Canonical: true}).Decode(b); !errors.Is(err, ErrCanonical) {
				t.Fatalf("canonical decoding took the legacy bignum %x: %v", b, err)
			}
		}
	})
}

func TestPropRepeatedWildcardBinds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawPair(t)
		p := term.Tuple(term.Atom("$1"), term.List(term.Atom("_"), term.Atom("$1")))
		x := term.Tuple(a, term.List(b, b))
		y := term.Tuple(a, term.List(a, b))
		bs, ok := Match(p, x)
		if ok != term.Equal(a, b) {
			t.Fatalf("Match(%s, %s) = %v", p, x, ok)
		}
		if ok {
			if v, _ := bs.Get("$1"); !term.Equal(v, a) || len(bs) != 1 {
				t.Fatalf("bindings %v", bs)
			}
		}
		if _, ok := Match(p, y); ok != term.Equal(a, b) {
			t.Fatalf("Match(%s, %s) = %v", p, y, ok)
		}
	})
}
