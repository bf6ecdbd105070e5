package sext

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// The recursive paths have a ceiling that no MaxDepth lifts: past it they
// fail with ErrDepth instead of overflowing the goroutine stack, which no
// recover can catch.

// deepTuples returns {{...{leaf}...}}, n tuples deep.
func deepTuples(n int) term.Term {
	x := term.Atom("leaf")
	for range n {
		x = term.Tuple(x)
	}
	return x
}

func TestDepthCeilingOnRecursivePaths(t *testing.T) {
	huge := Options{MaxDepth: 100_000_000}
	over := deepTuples(2_000_000)
	for name, f := range map[string]func() error{
		"Encode":  func() error { _, err := huge.Encode(over); return err },
		"Prefix":  func() error { _, err := huge.Prefix(over); return err },
		"Marshal": func() error { _, err := huge.Marshal(over); return err },
		"DecodeRecursive": func() error {
			_, err := huge.DecodeRecursive(repeat([]byte{tagList}, 4_000_000))
			return err
		},
		"PartialDecode": func() error {
			_, _, _, err := huge.PartialDecode(repeat([]byte{tagTuple, 0, 0, 0, 1}, 1_000_000))
			return err
		},
		"Unmarshal": func() error {
			var v any
			return huge.Unmarshal(repeat([]byte{tagList}, 1_000_000), &v)
		},
	} {
		if err := f(); !errors.Is(err, ErrDepth) {
			t.Errorf("%s with MaxDepth 1e8 past the ceiling: %v, want ErrDepth", name, err)
		}
	}
}

func TestDepthCeilingIsExact(t *testing.T) {
	huge := Options{MaxDepth: 100_000_000}
	at := deepTuples(MaxDepthCeiling)
	b, err := huge.Encode(at)
	if err != nil {
		t.Fatalf("Encode at the ceiling: %v", err)
	}
	for _, d := range []struct {
		name string
		dec  func([]byte) (term.Term, error)
	}{{"recursive", huge.DecodeRecursive}, {"cps", huge.DecodeCPS}} {
		back, err := d.dec(b)
		if err != nil || !term.Equal(back, at) {
			t.Errorf("%s decoder at the ceiling: %v", d.name, err)
		}
	}
	// Every recursive path survives the ceiling, under -race too.
	if p, err := huge.Prefix(at); err != nil || len(p) != len(b) {
		t.Errorf("Prefix at the ceiling: %v", err)
	}
	if m, err := huge.Marshal(at); err != nil || len(m) != len(b) {
		t.Errorf("Marshal at the ceiling: %v", err)
	}
	if back, full, _, err := huge.PartialDecode(b); err != nil || !full || !term.Equal(back, at) {
		t.Errorf("PartialDecode at the ceiling: %v", err)
	}
	var v any
	if err := huge.Unmarshal(b, &v); err != nil {
		t.Errorf("Unmarshal at the ceiling: %v", err)
	}
	if _, err := huge.Encode(term.Tuple(at)); !errors.Is(err, ErrDepth) {
		t.Errorf("Encode one past the ceiling: %v, want ErrDepth", err)
	}
	deeper := append([]byte{tagTuple, 0, 0, 0, 1}, b...)
	if _, err := huge.DecodeRecursive(deeper); !errors.Is(err, ErrDepth) {
		t.Errorf("DecodeRecursive one past the ceiling: %v, want ErrDepth", err)
	}
	// The continuation decoder needs no ceiling: MaxDepth is its limit.
	if _, err := huge.DecodeCPS(deeper); err != nil {
		t.Errorf("DecodeCPS one past the ceiling, under MaxDepth: %v", err)
	}
}

// Compare, Equal and Match take terms built in code, which no input
// bounds: they must work at any depth.
func TestCompareMatchAnyDepth(t *testing.T) {
	const n = 2_000_000
	x, y := deepTuples(n), deepTuples(n)
	if c := term.Compare(x, y); c != 0 {
		t.Errorf("Compare of equal %d-deep terms: %d", n, c)
	}
	if !term.Equal(x, y) {
		t.Errorf("Equal of equal %d-deep terms: false", n)
	}
	if c := term.CompareErlang(x, y); c != 0 || !term.ArithEqual(x, y) {
		t.Errorf("CompareErlang of equal %d-deep terms: %d", n, c)
	}
	if _, ok := Match(x, y); !ok {
		t.Errorf("Match of equal %d-deep terms: false", n)
	}
	// The difference at the bottom decides, flipped by each Desc on the way.
	z := term.Atom("leag")
	for range n {
		z = term.Tuple(z)
	}
	if c := term.Compare(x, z); c != -1 {
		t.Errorf("Compare({..leaf..}, {..leag..}) = %d, want -1", c)
	}
	if c := term.Compare(term.Desc(x), term.Desc(z)); c != 1 {
		t.Errorf("Compare(Desc, Desc) = %d, want 1", c)
	}
	if c := term.CompareErlang(x, z); c != -1 {
		t.Errorf("CompareErlang({..leaf..}, {..leag..}) = %d, want -1", c)
	}
	if _, ok := Match(x, z); ok {
		t.Error("Match of different deep terms: true")
	}
	var p term.Term = term.Atom("$1")
	for range n {
		p = term.Tuple(p)
	}
	bs, ok := Match(p, x)
	if v, _ := bs.Get("$1"); !ok || !term.Equal(v, term.Atom("leaf")) {
		t.Errorf("Match of a deep pattern: %v, %v", ok, bs)
	}
}

// TestPropMatchDeepAgrees: matchDeep, the explicit-stack walk matchRec
// hands deep terms to, gives matchRec's answer and bindings.
func TestPropMatchDeepAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := genTerm(3).Draw(t, "x")
		var n int
		p := drawPattern(t, x, &n)
		if rapid.Bool().Draw(t, "repeat") && n > 0 { // '$1' twice: bound values must agree
			p = term.Tuple(p, term.Atom("$1"))
			x = term.Tuple(x, genTerm(1).Draw(t, "second"))
		}
		y := x
		if rapid.Bool().Draw(t, "mutate") {
			y = mutate(t, x)
		}
		var rec, deep Bindings
		okRec, okDeep := matchRec(p, y, &rec, 0), matchDeep(p, y, &deep)
		if okRec != okDeep {
			t.Fatalf("Match(%s, %s): recursive %v, explicit stack %v", p, y, okRec, okDeep)
		}
		if okRec && !slices.EqualFunc(rec, deep, func(a, b Binding) bool { return a.Name == b.Name && term.Equal(a.Value, b.Value) }) {
			t.Fatalf("Match(%s, %s): bindings %v and %v", p, y, rec, deep)
		}
	})
}

// ErrDepth is the term model's one sentinel: errors.Is matches sext's
// errors with term's name and Parse's errors with sext's, and the limits
// are the same numbers.
func TestErrDepthIsTermErrDepth(t *testing.T) {
	b, err := Encode(deepTuples(10))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"Decode":  func() error { _, err := Options{MaxDepth: 5}.Decode(b); return err },
		"Encode":  func() error { _, err := Options{MaxDepth: 5}.Encode(deepTuples(10)); return err },
		"Marshal": func() error { _, err := Options{MaxDepth: 5}.Marshal(deepTuples(10)); return err },
	} {
		if err := f(); !errors.Is(err, term.ErrDepth) || !errors.Is(err, ErrDepth) {
			t.Errorf("%s: %v, want an error matching term.ErrDepth", name, err)
		}
	}
	if _, err := (term.ParseOptions{MaxDepth: 5}).Parse("[[[[[[[]]]]]]]"); !errors.Is(err, ErrDepth) {
		t.Errorf("term.Parse: %v, want an error matching sext.ErrDepth", err)
	}
	if DefaultMaxDepth != term.DefaultMaxDepth || MaxDepthCeiling != term.MaxDepthCeiling {
		t.Errorf("limits %d, %d differ from term's %d, %d", DefaultMaxDepth, MaxDepthCeiling, term.DefaultMaxDepth, term.MaxDepthCeiling)
	}
}

// Hostile input: errors, never a panic, a stack overflow or memory out of
// proportion to the input.

func repeat(unit []byte, n int) []byte { return bytes.Repeat(unit, n) }

func TestMillionDeepInput(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"lists", repeat([]byte{tagList}, 1_000_000)},
		{"tuples", repeat([]byte{tagTuple, 0, 0, 0, 1}, 1_000_000)},
		{"maps", repeat([]byte{tagList, markMap, 0, 0, 0, 1}, 1_000_000)},
		{"improper tails", append([]byte{tagList}, repeat([]byte{tagAtom, emptyFrame, markImproper, tagList}, 1_000_000)...)},
	} {
		for _, d := range decoders {
			start := time.Now()
			_, err := d.decode(c.b)
			if !errors.Is(err, ErrDepth) {
				t.Errorf("%s, %s decoder: got %v, want ErrDepth", c.name, d.name, err)
			}
			if el := time.Since(start); el > time.Second {
				t.Errorf("%s, %s decoder: took %v", c.name, d.name, el)
			}
		}
		if _, _, _, err := PartialDecode(c.b); !errors.Is(err, ErrDepth) {
			t.Errorf("%s, PartialDecode: got %v, want ErrDepth", c.name, err)
		}
	}
}

func TestDepthLimitIsExact(t *testing.T) {
	nest := func(n int) term.Term {
		x := term.List()
		for range n - 1 {
			x = term.List(x)
		}
		return x
	}
	o := Options{MaxDepth: 50}
	b, err := o.Encode(nest(50))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Encode(nest(51)); !errors.Is(err, ErrDepth) {
		t.Fatalf("encoding 51 deep with MaxDepth 50: %v", err)
	}
	if _, err := o.Prefix(nest(51)); !errors.Is(err, ErrDepth) {
		t.Fatalf("prefix 51 deep with MaxDepth 50: %v", err)
	}
	for _, dec := range []func([]byte) (term.Term, error){o.DecodeRecursive, o.DecodeCPS} {
		if _, err := dec(b); err != nil {
			t.Fatalf("50 deep: %v", err)
		}
		if _, err := dec(append([]byte{tagList}, append(b, markEnd)...)); !errors.Is(err, ErrDepth) {
			t.Fatalf("51 deep: %v", err)
		}
	}
}

func TestDeepTermBuiltInCode(t *testing.T) {
	const n = 1_000_000
	x := term.Atom("leaf")
	for range n {
		x = term.Tuple(x)
	}
	if _, err := Encode(x); !errors.Is(err, ErrDepth) {
		t.Fatalf("Encode: %v, want ErrDepth", err)
	}
	// Past MaxDepthCeiling no MaxDepth lets the recursive encoder in.
	if _, err := (Options{MaxDepth: n + 1}).Encode(x); !errors.Is(err, ErrDepth) {
		t.Fatalf("Encode with MaxDepth above the depth: %v, want ErrDepth", err)
	}
	if term.Compare(x, x) != 0 {
		t.Fatal("Compare of a deep term with itself")
	}
	if _, ok := Match(x, x); !ok {
		t.Fatal("Match of a deep term with itself")
	}
	if s := x.String(); !strings.HasPrefix(s, "{{{{") {
		t.Fatalf("String: %.20s", s)
	}
}

func TestSizeClaims(t *testing.T) {
	huge := []byte{0xFF, 0xFF, 0xFF, 0xFF}
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"tuple arity", append(append([]byte{tagTuple}, huge...), 0, 0, 0, 0, 0), ErrSize},
		{"map size", append(append([]byte{tagList, markMap}, huge...), 0, 0, 0, 0), ErrSize},
		{"bignum words", []byte{tagNegBig, 0, 0, 0, 0, 0x80, 0xC0, 8, 0xFF}, ErrSize},
		{"partial tuple", append([]byte{tagTuple}, huge...), ErrSize},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		if c.name == "partial tuple" {
			_, _, _, err = PartialDecode(c.b)
		} else {
			_, err = DecodeCPS(c.b)
			if _, err2 := DecodeRecursive(c.b); !errors.Is(err2, c.want) {
				t.Errorf("%s, recursive: %v", c.name, err2)
			}
		}
		runtime.ReadMemStats(&after)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte input", c.name, grew, len(c.b))
		}
	}
}

// TestMemoryProportional decodes inputs built to make a decoder allocate
// much more than they weigh: many empty compounds, many small binaries,
// wide tuples of tiny elements.
func TestMemoryProportional(t *testing.T) {
	wide := binary.BigEndian.AppendUint32([]byte{tagTuple}, 100_000)
	wide = append(wide, repeat([]byte{tagList, markEnd}, 100_000)...)
	list := append(append([]byte{tagList}, repeat([]byte{tagBinary, emptyFrame}, 100_000)...), markEnd)
	for _, c := range []struct {
		name string
		b    []byte
	}{{"wide tuple of empty lists", wide}, {"list of empty binaries", list}} {
		b := c.b
		for _, d := range decoders {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if _, err := d.decode(b); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			// A list collects its elements on a stack that grows by
			// appending, then copies them out: about 89 bytes for each
			// byte of a list of empty binaries, the worst case.
			grew := after.TotalAlloc - before.TotalAlloc
			if grew > 100*uint64(len(b))+1<<20 {
				t.Errorf("%s, %s decoder: %d bytes allocated for %d bytes of input", c.name, d.name, grew, len(b))
			}
			t.Logf("%s, %s decoder: %.1f bytes allocated a byte", c.name, d.name, float64(grew)/float64(len(b)))
		}
	}
}

// TestCanonical lists byte strings that decode by default (the reference
// writes or reads them) but are not what the encoder writes.
func TestCanonical(t *testing.T) {
	for _, c := range []struct{ name, hex, term string }{
		{"legacy bignum", "0bc0402010000800", "2147483648"},
		{"unsorted map", "110100000002" + "0a00000004" + "0a00000000" + "0a00000002" + "0a00000000", "#{1 => 0,2 => 0}"},
		{"repeated map key", "110100000002" + "0a00000002" + "0a00000000" + "0a00000002" + "0a00000002", "#{1 => 1}"},
		{"small number in a bignum", hex.EncodeToString(append(appendFrame([]byte{tagPosBig}, []byte{sizeMark, 1, 5}, 24, false), 0)), "5"},
		{"small creation in long form", "0fb0d02c4008" + "00000055" + "00000001" + "ff00000003", "#Pid<a@b,85,1,3>"},
		{"empty last unit in a binary", hex.EncodeToString(append([]byte{tagBinary}, mustHex(t, "b0c00000")...)), "<<97>>"},
		{"list tail that is a list", "110c" + "b08008" + "01" + "110cb10008" + "02", "[a,b]"},
	} {
		b := mustHex(t, c.hex)
		want := mustParse(t, c.term)
		for _, d := range decoders {
			got, err := d.decode(b)
			if err != nil || !term.Equal(got, want) {
				t.Errorf("%s, %s decoder: %v, %v; want %s", c.name, d.name, got, err, want)
			}
		}
		for _, dec := range []func([]byte) (term.Term, error){
			Options{Canonical: true}.DecodeRecursive, Options{Canonical: true}.DecodeCPS,
		} {
			if _, err := dec(b); !errors.Is(err, ErrCanonical) {
				t.Errorf("%s: canonical decoding gave %v", c.name, err)
			}
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		t    term.Term
		o    Options
	}{
		{"NaN", term.Float(nan()), Options{}},
		{"atom beyond Latin-1", term.Atom("日本"), Options{}},
		{"atom not UTF-8", term.Atom("\xff"), Options{UTF8Atoms: true}},
		{"reference without ids", term.Ref{Node: "a@b"}.Term(), Options{}},
	} {
		if _, err := c.o.Encode(c.t); !errors.Is(err, ErrUnencodable) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// TestNestedDescBounded: each descending term frames its inner bytes an
// eighth larger, so n nested ones grow an encoding by (9/8)^n. The encoder
// and Prefix refuse, before taking the memory, framing past 16 times the
// content plus 1 MiB (170 levels of one atom once took 9.5 GB), and Marshal
// refuses desc fields nested more than 23 deep; what is within the bound
// encodes and decodes back.
func TestNestedDescBounded(t *testing.T) {
	nest := func(n int, x term.Term) term.Term {
		for range n {
			x = term.Desc(x)
		}
		return x
	}
	for _, c := range []struct {
		name string
		t    term.Term
		ok   bool
	}{
		{"30 levels of an atom", nest(30, term.Atom("x")), true},
		{"23 levels of 64 KiB", nest(23, term.Binary(make([]byte, 64<<10))), true},
		{"170 levels of an atom", nest(170, term.Atom("x")), false},
		{"40 levels of 64 KiB", nest(40, term.Binary(make([]byte, 64<<10))), false},
		{"5000 levels of a tuple", nest(5000, term.Tuple(term.Atom("_"))), false},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b, err := Encode(c.t)
		_, perr := Prefix(c.t)
		runtime.ReadMemStats(&after)
		if c.ok {
			if err != nil || perr != nil {
				t.Fatalf("%s: %v, %v", c.name, err, perr)
			}
			if back, err := Decode(b); err != nil || !term.Equal(back, c.t) {
				t.Fatalf("%s: decodes to %v, %v", c.name, back, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnencodable) || !errors.Is(perr, ErrUnencodable) {
			t.Fatalf("%s: Encode %v, Prefix %v, want ErrUnencodable", c.name, err, perr)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", c.name, grew)
		}
	}
	type chain struct {
		Next *chain `sext:",desc"`
	}
	for _, c := range []struct {
		levels int
		ok     bool
	}{{23, true}, {24, false}, {170, false}} {
		var x *chain
		for range c.levels {
			x = &chain{Next: x}
		}
		if _, err := Marshal(x); (err == nil) != c.ok || err != nil && !errors.Is(err, ErrUnencodable) {
			t.Errorf("Marshal of %d nested desc fields: %v", c.levels, err)
		}
	}
}
