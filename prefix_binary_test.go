package sext

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext/internal/termgen"
	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// inRange reports whether b lies in [lower, upper), upper nil for none.
func inRange(b, lower, upper []byte) bool {
	return bytes.Compare(b, lower) >= 0 && (upper == nil || bytes.Compare(b, upper) < 0)
}

// wrapPrefix puts the pattern element p and the term element x in the
// same place of a context: alone, in a tuple, a list, a map value or
// under #Desc.
func wrapPrefix(ctx int, p, x term.Term) (term.Term, term.Term) {
	switch ctx {
	case 1:
		return term.Tuple(term.Atom("user"), p, term.Atom("_")), term.Tuple(term.Atom("user"), x, term.Int(7))
	case 2:
		return term.ImproperList([]term.Term{term.Int(1), p}, term.Atom("_")), term.List(term.Int(1), x, term.Atom("z"))
	case 3:
		return term.Map(term.MapEntry{Key: term.Atom("k"), Value: p}), term.Map(term.MapEntry{Key: term.Atom("k"), Value: x})
	case 4:
		return term.Tuple(term.Desc(p), term.Atom("_")), term.Tuple(term.Desc(x), term.Int(1))
	}
	return p, x
}

// TestPropBinaryPrefixRange: for random binaries B and prefixes P, B's
// encoding lies in the range of <<P, _/binary>> exactly when P is a
// prefix of B, alone and inside tuples, lists, maps and descending
// terms; Match, the Matcher, and Match after both decoders agree.
func TestPropBinaryPrefixRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]byte{0, 1, 'a', 'b', 0x7F, 0x80, 0xFF})
		b := rapid.SliceOfN(alphabet, 0, 20).Draw(t, "b")
		var pre []byte
		if rapid.Bool().Draw(t, "from b") && len(b) > 0 {
			pre = b[:rapid.IntRange(0, len(b)).Draw(t, "k")]
		} else {
			pre = rapid.SliceOfN(alphabet, 0, 20).Draw(t, "p")
		}
		want := bytes.HasPrefix(b, pre)
		ctx := rapid.IntRange(0, 4).Draw(t, "ctx")
		pat, x := wrapPrefix(ctx, term.BinaryPrefix(pre), term.Binary(b))
		enc, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		lower, upper, err := PrefixRange(pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := inRange(enc, lower, upper); want && !got {
			t.Fatalf("%s: %s (%x) is outside [%x, %x)", pat, x, enc, lower, upper)
		}
		// Outside a descending term the range is exact: it holds no
		// binary that the prefix does not start.
		if ctx != 4 && inRange(enc, lower, upper) != want {
			t.Fatalf("%s: %s (%x) in [%x, %x) is %v, a prefix %v", pat, x, enc, lower, upper, !want, want)
		}
		prefix, _ := Prefix(pat)
		if !bytes.HasPrefix(lower, prefix) {
			t.Fatalf("%s: Prefix %x is not the start of the range's lower bound %x", pat, prefix, lower)
		}
		m, err := CompileMatch(pat)
		if err != nil {
			t.Fatal(err)
		}
		_, byMatch := Match(pat, x)
		byMatcher, err := m.Matches(enc)
		if err != nil || byMatch != want || byMatcher != want {
			t.Fatalf("%s against %s: Match %v, Matcher %v (%v), want %v", pat, x, byMatch, byMatcher, err, want)
		}
		for _, dec := range []func([]byte) (term.Term, error){DecodeRecursive, DecodeCPS} {
			d, err := dec(enc)
			if _, ok := Match(pat, d); err != nil || ok != want {
				t.Fatalf("%s against decoded %s: %v, %v", pat, d, ok, err)
			}
		}
	})
}

// TestPropBinaryPrefixRangeExact: alone, the range of <<P, _/binary>>
// holds a binary's encoding if and only if P is its prefix, and a
// bitstring's only if P is a prefix of its whole bytes.
func TestPropBinaryPrefixRangeExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]byte{0, 1, 'a', 'b', 0x7F, 0x80, 0xFE, 0xFF})
		b := rapid.SliceOfN(alphabet, 0, 24).Draw(t, "b")
		pre := rapid.SliceOfN(alphabet, 0, 24).Draw(t, "p")
		lower, upper, err := PrefixRange(term.BinaryPrefix(pre))
		if err != nil {
			t.Fatal(err)
		}
		enc, _ := Encode(term.Binary(b))
		if got, want := inRange(enc, lower, upper), bytes.HasPrefix(b, pre); got != want {
			t.Fatalf("<<%x,_/binary>>: <<%x>> (%x) in [%x, %x) is %v, want %v", pre, b, enc, lower, upper, got, want)
		}
		if bits := rapid.IntRange(1, 7).Draw(t, "bits"); len(b) > 0 {
			bs := term.Bitstring(b, 8*(len(b)-1)+bits)
			enc, _ := Encode(bs)
			units := bytes.Clone(b) // the bitstring's units, its last byte cut to its bits
			units[len(units)-1] &^= 0xFF >> bits
			if inRange(enc, lower, upper) && !bytes.HasPrefix(units, pre) {
				t.Fatalf("<<%x,_/binary>>: bitstring %s in [%x, %x)", pre, bs, lower, upper)
			}
		}
	})
}

// TestPropPatternsWithPrefixes: a random term matches a pattern made of
// it with wildcards and binary prefixes: its encoding is in the pattern's
// range, and Match and the Matcher say so.
func TestPropPatternsWithPrefixes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := drawTerm(t, 3)
		n := 0
		pat := termgen.PatternWithPrefixes(t, x, &n, termgen.Options{})
		enc, err := Encode(x)
		if err != nil {
			t.Skip(err)
		}
		lower, upper, err := PrefixRange(pat)
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		if !inRange(enc, lower, upper) {
			t.Fatalf("%s: %s (%x) outside [%x, %x)", pat, x, enc, lower, upper)
		}
		m, err := CompileMatch(pat)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := Match(pat, x); !ok {
			t.Fatalf("Match(%s, %s) fails", pat, x)
		}
		if ok, err := m.Matches(enc); !ok || err != nil {
			t.Fatalf("Matcher(%s) on %s: %v, %v", pat, x, ok, err)
		}
	})
}

// TestBinaryPrefixIsNoTerm: a binary prefix is a pattern: encoding one
// is an error, not bytes.
func TestBinaryPrefixIsNoTerm(t *testing.T) {
	if _, err := Encode(term.Tuple(term.BinaryPrefix([]byte("a")))); err == nil {
		t.Fatal("Encode of a binary prefix: no error")
	}
	lower, upper, err := PrefixRange(term.MustParse(`{user, <<"ali", _/binary>>}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`{user,<<"ali">>}`, `{user,<<"alice">>}`, `{user,<<"ali",0>>}`} {
		if enc, _ := Encode(term.MustParse(k)); !inRange(enc, lower, upper) {
			t.Errorf("%s outside the range", k)
		}
	}
	for _, k := range []string{`{user,<<"al">>}`, `{user,<<"alj">>}`, `{user,<<"bob">>}`, `{user,<<"alh">>}`} {
		if enc, _ := Encode(term.MustParse(k)); inRange(enc, lower, upper) {
			t.Errorf("%s inside the range", k)
		}
	}
}
