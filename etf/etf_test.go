package etf_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

func mustParse(t *testing.T, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return x
}

// Bytes that term_to_binary wrote on Debian's OTP 25 (erts 13), by hand.
var otp25Vectors = []struct {
	text  string
	bytes []byte
}{
	{"a", []byte{131, 100, 0, 1, 97}},
	{"'ä'", []byte{131, 100, 0, 1, 228}},
	{"'ĳ'", []byte{131, 119, 2, 196, 179}},
	{"1", []byte{131, 97, 1}},
	{"300", []byte{131, 98, 0, 0, 1, 44}},
	{"-1", []byte{131, 98, 255, 255, 255, 255}},
	{"1099511627776", []byte{131, 110, 6, 0, 0, 0, 0, 0, 0, 1}},
	{"-1099511627776", []byte{131, 110, 6, 1, 0, 0, 0, 0, 0, 1}},
	{"1.5", []byte{131, 70, 63, 248, 0, 0, 0, 0, 0, 0}},
	{"-0.0", []byte{131, 70, 128, 0, 0, 0, 0, 0, 0, 0}},
	{"{}", []byte{131, 104, 0}},
	{"{a}", []byte{131, 104, 1, 100, 0, 1, 97}},
	{"[]", []byte{131, 106}},
	{`"abc"`, []byte{131, 107, 0, 3, 97, 98, 99}},
	{"[1,2|3]", []byte{131, 108, 0, 0, 0, 2, 97, 1, 97, 2, 97, 3}},
	{"<<1,2>>", []byte{131, 109, 0, 0, 0, 2, 1, 2}},
	{"<<1:3>>", []byte{131, 77, 0, 0, 0, 1, 3, 32}},
	{"#{a => 1}", []byte{131, 116, 0, 0, 0, 1, 100, 0, 1, 97, 97, 1}},
	{"#Pid<nonode@nohost,9,0,0>", append(append([]byte{131, 88, 100, 0, 13}, "nonode@nohost"...), 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0)},
	{"#Port<nonode@nohost,0,0>", append(append([]byte{131, 89, 100, 0, 13}, "nonode@nohost"...), 0, 0, 0, 0, 0, 0, 0, 0)},
	{"#Port<'a@h',268435455,5>", []byte{131, 89, 100, 0, 3, 97, 64, 104, 15, 255, 255, 255, 0, 0, 0, 5}},
	{"#Port<'a@h',268435456,5>", []byte{131, 120, 100, 0, 3, 97, 64, 104, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 5}},
	{"#Ref<'a@h',3,1,2>", []byte{131, 90, 0, 2, 100, 0, 3, 97, 64, 104, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2}},
}

func TestEncodeOTP25(t *testing.T) {
	for _, v := range otp25Vectors {
		x := mustParse(t, v.text)
		got, err := etf.Encode(x)
		if err != nil || !bytes.Equal(got, v.bytes) {
			t.Errorf("Encode(%s) = %v, %v; want %v", v.text, got, err, v.bytes)
		}
		back, err := etf.Decode(v.bytes)
		if err != nil || !term.Equal(back, x) {
			t.Errorf("Decode(%v) = %v, %v; want %s", v.bytes, back, err, v.text)
		}
	}
}

// What the options write, again as term_to_binary/2 wrote it on OTP 25.
func TestEncodeOptions(t *testing.T) {
	o0, ok := etf.Options{}.WithMinorVersion(0)
	if !ok {
		t.Fatal("WithMinorVersion(0)")
	}
	o2, _ := etf.Options{}.WithMinorVersion(2)
	if _, ok := (etf.Options{}).WithMinorVersion(3); ok {
		t.Fatal("WithMinorVersion(3) accepted")
	}
	text := func(s string) []byte {
		b := append([]byte{131, 99}, s...)
		return append(b, make([]byte, 33-len(b))...)
	}
	cases := []struct {
		o    etf.Options
		x    string
		want []byte
	}{
		{o0, "1.5", text("1.50000000000000000000e+00")},
		{o0, "-0.0", text("-0.00000000000000000000e+00")},
		{o0, "1.0e300", text("1.00000000000000005250e+300")},
		{o0, "a", []byte{131, 100, 0, 1, 97}},
		{o2, "a", []byte{131, 119, 1, 97}},
		{etf.OTP26, "'ä'", []byte{131, 119, 2, 195, 164}},
		{etf.Options{Compression: 6}, "a", []byte{131, 100, 0, 1, 97}}, // not shorter: left plain
	}
	for _, c := range cases {
		got, err := c.o.Encode(mustParse(t, c.x))
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%+v Encode(%s) = %v, %v; want %v", c.o, c.x, got, err, c.want)
		}
	}
	long := term.Atom(strings.Repeat("ĳ", 200)) // 400 bytes: ATOM_UTF8_EXT
	got, _ := etf.Encode(long)
	if !bytes.Equal(got[:4], []byte{131, 118, 1, 144}) {
		t.Errorf("a 400-byte atom starts %v", got[:4])
	}
	// Compression: tag 80, the inflated size, a zlib stream; it decodes.
	x := term.List(slicesRepeat(term.Atom("a"), 100)...)
	c, err := etf.Options{Compression: etf.DefaultCompression}.Encode(x)
	if err != nil || c[1] != 80 || binary.BigEndian.Uint32(c[2:]) != 1+4+100*4+1 {
		t.Fatalf("compressed: %v, %v", c, err)
	}
	if back, err := etf.Decode(c); err != nil || !term.Equal(back, x) {
		t.Fatalf("Decode of compressed: %v, %v", back, err)
	}
	if _, err := (etf.Options{Compression: 10}).Encode(x); !errors.Is(err, etf.ErrUnencodable) {
		t.Fatalf("level 10: %v", err)
	}
}

func slicesRepeat(x term.Term, n int) []term.Term {
	s := make([]term.Term, n)
	for i := range s {
		s[i] = x
	}
	return s
}

// The tags that OTP 25 and 26 no longer write but still read.
func TestDecodeOlderTags(t *testing.T) {
	node := []byte{100, 0, 3, 'a', '@', 'h'}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := []struct {
		b    []byte
		want string
	}{
		{cat([]byte{131, 103}, node, []byte{0, 0, 0, 1, 0, 0, 0, 2, 3}), "#Pid<'a@h',1,2,3>"},
		{cat([]byte{131, 102}, node, []byte{0, 0, 0, 1, 3}), "#Port<'a@h',1,3>"},
		{cat([]byte{131, 101}, node, []byte{0, 0, 0, 1, 3}), "#Ref<'a@h',3,1>"},
		{cat([]byte{131, 114, 0, 2}, node, []byte{3, 0, 0, 0, 1, 0, 0, 0, 2}), "#Ref<'a@h',3,1,2>"},
		{cat([]byte{131, 120}, node, []byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1}), "#Port<'a@h',7,1>"},
		{cat([]byte{131, 99}, []byte("1.5"), make([]byte, 28)), "1.5"},
		{[]byte{131, 115, 1, 228}, "'ä'"},
		{[]byte{131, 118, 0, 2, 195, 164}, "'ä'"},
		{[]byte{131, 110, 2, 0, 1, 0}, "1"}, // unnormalized bignums
		{[]byte{131, 110, 0, 0}, "0"},
		{[]byte{131, 110, 1, 2, 1}, "-1"}, // binary_to_term reads every sign byte but 0 as negative
		{[]byte{131, 110, 1, 255, 5}, "-5"},
		{[]byte{131, 111, 0, 0, 0, 1, 1, 5}, "-5"},
		{[]byte{131, 110, 8, 1, 0, 0, 0, 0, 0, 0, 0, 128}, "-9223372036854775808"},
		{[]byte{131, 110, 8, 0, 0, 0, 0, 0, 0, 0, 0, 128}, "9223372036854775808"},
		{[]byte{131, 108, 0, 0, 0, 0, 106}, "[]"},
		{[]byte{131, 108, 0, 0, 0, 0, 97, 1}, "1"}, // no elements, a tail
		{[]byte{131, 108, 0, 0, 0, 1, 97, 1, 108, 0, 0, 0, 1, 97, 2, 106}, "[1,2]"},
		{[]byte{131, 77, 0, 0, 0, 0, 0}, "<<>>"},
		{[]byte{131, 77, 0, 0, 0, 1, 8, 255}, "<<255>>"},
		{[]byte{131, 77, 0, 0, 0, 1, 1, 255}, "<<1:1>>"},
		{[]byte{131, 116, 0, 0, 0, 2, 97, 2, 97, 1, 97, 1, 97, 2}, "#{1 => 2,2 => 1}"}, // any order
		{[]byte{131, 105, 0, 0, 0, 1, 97, 1}, "{1}"},
	}
	for _, c := range cases {
		got, err := etf.Decode(c.b)
		if want := mustParse(t, c.want); err != nil || !term.Equal(got, want) {
			t.Errorf("Decode(%v) = %v, %v; want %s", c.b, got, err, c.want)
		}
	}
}

func zlibOf(b []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

func TestDecodeErrors(t *testing.T) {
	u32 := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := []struct {
		name string
		b    []byte
		err  error
		off  int
	}{
		{"empty", nil, etf.ErrTruncated, 0},
		{"no version", []byte{97, 1}, etf.ErrVersion, 0},
		{"only version", []byte{131}, etf.ErrTruncated, 1},
		{"trailing", []byte{131, 97, 1, 2}, etf.ErrTrailing, 3},
		{"unknown tag", []byte{131, 1}, etf.ErrTag, 1},
		{"short int", []byte{131, 98, 0, 0}, etf.ErrTruncated, 2},
		{"short float", []byte{131, 70, 0}, etf.ErrTruncated, 2},
		{"nan", []byte{131, 70, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0}, etf.ErrInvalid, 1},
		{"float text", cat([]byte{131, 99}, []byte("0x1p3"), make([]byte, 26)), etf.ErrInvalid, 1},
		{"float inf text", cat([]byte{131, 99}, []byte("inf"), make([]byte, 28)), etf.ErrInvalid, 1},
		{"tuple claim", cat([]byte{131, 105}, u32(1<<31)), etf.ErrSize, 1},
		{"list claim", cat([]byte{131, 108}, u32(math.MaxUint32), []byte{106}), etf.ErrSize, 1},
		{"map claim", cat([]byte{131, 116}, u32(1<<30), []byte{97, 1}), etf.ErrSize, 1},
		// A list of 3 and its tail, 4 values, fit the 5 bytes after its
		// header, but not with the tuple's 2 more elements: claims share
		// the bytes left.
		{"nested claims", cat([]byte{131, 104, 3, 108}, u32(3), []byte{106, 106, 106, 106, 106}), etf.ErrSize, 3},
		{"binary claim", cat([]byte{131, 109}, u32(1<<31), []byte{1}), etf.ErrSize, 1},
		{"bignum claim", cat([]byte{131, 111}, u32(1<<31), []byte{0, 1}), etf.ErrSize, 1},
		{"string short", []byte{131, 107, 0, 5, 1}, etf.ErrTruncated, 4},
		{"atom short", []byte{131, 100, 0, 5, 'a'}, etf.ErrTruncated, 4},
		{"atom utf8", []byte{131, 119, 1, 0xff}, etf.ErrInvalid, 1},
		{"atom too long", cat([]byte{131, 100, 1, 0}, bytes.Repeat([]byte{'a'}, 256)), etf.ErrInvalid, 1},
		{"bits 0", []byte{131, 77, 0, 0, 0, 1, 0, 0}, etf.ErrInvalid, 1},
		{"bits 9", []byte{131, 77, 0, 0, 0, 1, 9, 0}, etf.ErrInvalid, 1},
		{"repeated key", []byte{131, 116, 0, 0, 0, 2, 97, 1, 97, 1, 97, 1, 97, 2}, etf.ErrInvalid, 1},
		{"pid node", []byte{131, 88, 97, 1}, etf.ErrTag, 2},
		{"pid short", []byte{131, 88, 100, 0, 1, 'a', 0, 0}, etf.ErrTruncated, 1},
		{"ref claim", []byte{131, 90, 255, 255, 100, 0, 1, 'a', 0, 0, 0, 0}, etf.ErrTruncated, 1},
		{"fun", []byte{131, 112, 0, 0, 0, 0}, etf.ErrUnsupported, 1},
		{"export", []byte{131, 113, 100, 0, 1, 'm'}, etf.ErrUnsupported, 1},
		{"atom cache", []byte{131, 82, 0}, etf.ErrUnsupported, 1},
		{"atom table index", []byte{131, 73, 0, 1}, etf.ErrUnsupported, 1},
		{"atom table index 3", []byte{131, 75, 0, 0, 1}, etf.ErrUnsupported, 1},
		{"atom table index node", []byte{131, 88, 73, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0}, etf.ErrUnsupported, 2},
		{"dist header", []byte{131, 68, 0}, etf.ErrUnsupported, 1},
		{"local", []byte{131, 121, 0}, etf.ErrUnsupported, 1},
		{"fun inside", []byte{131, 104, 2, 97, 1, 117, 0}, etf.ErrUnsupported, 5},
		{"missing element", []byte{131, 104, 2, 97, 1}, etf.ErrTruncated, 5},
		{"nested version", []byte{131, 104, 1, 131, 97, 1}, etf.ErrTag, 3},
		{"compressed header", []byte{131, 80, 0, 0}, etf.ErrTruncated, 1},
		{"compressed too big", cat([]byte{131, 80}, u32(1<<30), zlibOf([]byte{97, 1})), etf.ErrSize, 2},
		{"compressed zero", cat([]byte{131, 80}, u32(0), zlibOf(nil)), etf.ErrSize, 2},
		{"compressed broken", cat([]byte{131, 80}, u32(2), []byte{1, 2, 3}), etf.ErrCompressed, 6},
		{"compressed longer", cat([]byte{131, 80}, u32(1), zlibOf([]byte{97, 1})), etf.ErrCompressed, 6},
		{"compressed shorter", cat([]byte{131, 80}, u32(3), zlibOf([]byte{97, 1})), etf.ErrCompressed, 6},
		{"compressed term short", cat([]byte{131, 80}, u32(3), zlibOf([]byte{97, 1, 2})), etf.ErrSize, 2},
		{"compressed inner", cat([]byte{131, 80}, u32(2), zlibOf([]byte{98, 1})), etf.ErrTruncated, 1},
	}
	for _, c := range cases {
		_, err := etf.Decode(c.b)
		var de *etf.DecodeError
		if !errors.Is(err, c.err) || !errors.As(err, &de) || de.Offset != c.off {
			t.Errorf("%s: Decode(%v) = %v; want %v at %d", c.name, c.b, err, c.err, c.off)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		x   term.Term
		err error
	}{
		{term.Float(math.NaN()), etf.ErrUnencodable},
		{term.Tuple(term.Float(math.Inf(-1))), etf.ErrUnencodable},
		{term.Desc(term.Int(1)), etf.ErrUnencodable},
		{term.Atom(strings.Repeat("a", 256)), etf.ErrUnencodable},
		{term.Atom("\xff"), etf.ErrUnencodable},
		{term.Pid{Node: "\xff"}.Term(), etf.ErrUnencodable},
		{term.Ref{Node: "a", IDs: make([]uint32, 65536)}.Term(), etf.ErrUnencodable},
	}
	for _, c := range cases {
		dst := []byte("keep")
		got, err := etf.Options{}.Append(dst, c.x)
		if !errors.Is(err, c.err) || string(got) != "keep" {
			t.Errorf("Append(%v) = %q, %v; want %v and dst unchanged", c.x, got, err, c.err)
		}
	}
}

// Depth: a limit on both sides, and decoding costs no goroutine stack.
func TestDepth(t *testing.T) {
	const n = 1_000_000
	x := term.Atom("leaf")
	for range n {
		x = term.Tuple(x)
	}
	if _, err := etf.Encode(x); !errors.Is(err, etf.ErrDepth) {
		t.Fatalf("Encode: %v", err)
	}
	b := append(bytes.Repeat([]byte{104, 1}, n), 106)
	b = append([]byte{131}, b...)
	_, err := etf.Decode(b)
	var de *etf.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, etf.ErrDepth) || de.Offset != 1+2*etf.DefaultMaxDepth {
		t.Fatalf("Decode: %v", err)
	}
	// One sentinel for the term model: term's name matches etf's error.
	if !errors.Is(err, term.ErrDepth) {
		t.Fatalf("Decode: %v does not match term.ErrDepth", err)
	}
	got, err := etf.Options{MaxDepth: n + 1}.Decode(b)
	if err != nil {
		t.Fatalf("Decode with MaxDepth above the depth: %v", err)
	}
	for range n {
		got = got.Elems()[0]
	}
	if !term.Equal(got, term.List()) {
		t.Fatalf("innermost %v", got)
	}
}

// A compressed term within the inflate limit, and one just over it.
func TestMaxInflate(t *testing.T) {
	raw := append([]byte{109, 0, 1, 0, 0}, make([]byte, 65536)...)
	b := append(binary.BigEndian.AppendUint32([]byte{131, 80}, uint32(len(raw))), zlibOf(raw)...)
	if x, err := (etf.Options{MaxInflate: len(raw)}).Decode(b); err != nil || x.Len() != 65536 {
		t.Fatalf("at the limit: %v", err)
	}
	if _, err := (etf.Options{MaxInflate: len(raw) - 1}).Decode(b); !errors.Is(err, etf.ErrSize) {
		t.Fatalf("over the limit: %v", err)
	}
	// DecodeNext finds the end of the zlib stream.
	x, rest, err := etf.DecodeNext(append(b, 131, 97, 7))
	if err != nil || x.Len() != 65536 || !bytes.Equal(rest, []byte{131, 97, 7}) {
		t.Fatalf("DecodeNext: %v, %v", rest, err)
	}
}

func drawOptions(t *rapid.T) etf.Options {
	o, _ := etf.Options{}.WithMinorVersion(rapid.IntRange(0, 2).Draw(t, "minor"))
	o.Compression = rapid.SampledFrom([]int{0, 0, 1, 6, 9}).Draw(t, "level")
	return o
}

// Decode(Encode(x)) is x under every option, and DecodeNext returns what
// follows.
func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		x := drawTerm(rt, 3, 40)
		o := drawOptions(rt)
		b, err := o.Encode(x)
		if err != nil {
			rt.Fatalf("Encode(%v): %v", x, err)
		}
		got, err := etf.Decode(b)
		if err != nil || !term.Equal(got, x) {
			rt.Fatalf("Decode(Encode(%v)) = %v, %v", x, got, err)
		}
		tail := []byte{131, 97, 1}
		got, rest, err := etf.DecodeNext(append(b, tail...))
		if err != nil || !term.Equal(got, x) || !bytes.Equal(rest, tail) {
			rt.Fatalf("DecodeNext: %v, %v, %v", got, rest, err)
		}
		// Append appends.
		pre := []byte("pre")
		b2, _ := o.Append(pre, x)
		if !bytes.Equal(b2[3:], b) || string(b2[:3]) != "pre" {
			rt.Fatalf("Append does not append Encode's bytes")
		}
	})
}

// Every prefix of a valid encoding fails cleanly, at an offset inside it.
func TestTruncations(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		x := drawTerm(rt, 2, 8)
		b, err := drawOptions(rt).Encode(x)
		if err != nil {
			rt.Fatal(err)
		}
		n := rapid.IntRange(0, len(b)-1).Draw(rt, "cut")
		_, err = etf.Decode(b[:n])
		var de *etf.DecodeError
		if !errors.As(err, &de) || de.Offset > n {
			rt.Fatalf("Decode of %d of %d bytes: %v", n, len(b), err)
		}
	})
}

// Integers at the edges of each form, both ways.
func TestIntegerForms(t *testing.T) {
	for _, s := range []string{"0", "255", "256", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616"} {
		v, _ := new(big.Int).SetString(s, 10)
		x := term.BigInt(v)
		b, err := etf.Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := etf.Decode(b)
		if err != nil || !term.Equal(got, x) {
			t.Errorf("%s: %v -> %v, %v", s, b, got, err)
		}
	}
	big256 := new(big.Int).Lsh(big.NewInt(1), 8*256) // 257 bytes: LARGE_BIG_EXT
	b, _ := etf.Encode(term.BigInt(big256))
	if b[1] != 111 || binary.BigEndian.Uint32(b[2:]) != 257 {
		t.Errorf("2^2048 starts %v", b[:7])
	}
}
