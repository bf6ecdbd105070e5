package term

import (
	"bufio"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func bigInt(s string) Term {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad big integer " + s)
	}
	return BigInt(b)
}

func TestPrint(t *testing.T) {
	tests := []struct {
		t    Term
		want string
	}{
		{Term{}, "[]"},
		{Int(0), "0"},
		{Int(-17), "-17"},
		{Int(math.MinInt64), "-9223372036854775808"},
		{Uint(math.MaxUint64), "18446744073709551615"},
		{bigInt("-123456789012345678901234567890"), "-123456789012345678901234567890"},
		{Float(1), "1.0"},
		{Float(math.Copysign(0, -1)), "-0.0"},
		{Atom("abc"), "abc"},
		{Atom(""), "''"},
		{Bool(true), "true"},
		{Binary(nil), "<<>>"},
		{Binary([]byte{1, 2, 3}), "<<1,2,3>>"},
		{Binary([]byte("alice")), `<<"alice">>`},
		{List(Int('a'), Int('b')), `"ab"`},
		{BinaryPrefix([]byte("ali")), `<<"ali",_/binary>>`},
		{BinaryPrefix(nil), "<<_/binary>>"},
		{BinaryPrefix([]byte{0, 1}), "<<0,1,_/binary>>"},
		{Bitstring([]byte{1, 0xA0}, 11), "<<1,5:3>>"},
		{Bitstring([]byte{0xFF}, 1), "<<1:1>>"},
		{Bitstring([]byte{0xFE}, 7), "<<127:7>>"},
		{List(Int(1), Int(2), Int(3)), "[1,2,3]"},
		{List(List()), "[[]]"},
		{ImproperList([]Term{Atom("a")}, Atom("b")), "[a|b]"},
		{ImproperList([]Term{Int(1), Int(2)}, Binary(nil)), "[1,2|<<>>]"},
		{Tuple(), "{}"},
		{Tuple(Atom("a"), Int(1)), "{a,1}"},
		{Tuple(Tuple(Tuple())), "{{{}}}"},
		{Map(), "#{}"},
		{Map(MapEntry{Atom("b"), Int(2)}, MapEntry{Atom("a"), Int(1)}), "#{a => 1,b => 2}"},
		{Map(MapEntry{Map(), Map(MapEntry{List(), Tuple()})}), "#{#{} => #{[] => {}}}"},
		{Pid{Node: "a@b", ID: 85, Serial: 1, Creation: 4}.Term(), "#Pid<a@b,85,1,4>"},
		{Pid{Node: "node@host.example.com", ID: 5, Creation: 1234567}.Term(), "#Pid<'node@host.example.com',5,0,1234567>"},
		{Port{Node: "a@b", ID: math.MaxUint64, Creation: 3}.Term(), "#Port<a@b,18446744073709551615,3>"},
		{Ref{Node: "a@b", Creation: 4, IDs: []uint32{1, 2, math.MaxUint32}}.Term(), "#Ref<a@b,4,1,2,4294967295>"},
		{Desc(Int(1)), "#Desc<1>"},
		{Desc(Desc(Binary([]byte{1}))), "#Desc<#Desc<<<1>>>>"},
		{Desc(List()), "#Desc<[]>"},
		{List(Desc(Tuple(Int(1))), Map(MapEntry{Desc(Atom("x")), Int(2)})), "[#Desc<{1}>,#{#Desc<x> => 2}]"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}

func TestPrintFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1, "-1.0"},
		{0.1, "0.1"},
		{0.5, "0.5"},
		{10, "10.0"},
		{100, "100.0"},
		{123.456, "123.456"},
		{1e-300, "1.0e-300"},
		{1e20, "1.0e20"},
		{-1e20, "-1.0e20"},
		{2147483648.5, "2147483648.5"},
		{2147483648, "2147483648.0"},
		{1727344019881798, "1727344019881798.0"},
		{1 << 53, "9.007199254740992e15"},
		{1<<53 - 1, "9007199254740991.0"},
		{0.0012888330377888392, "0.0012888330377888392"},
		{-2.4828259161509535e-4, "-2.4828259161509535e-4"},
		{0.001, "0.001"},
		{0.0001, "1.0e-4"},
		{1e15, "1.0e15"},
		{1000, "1.0e3"},
		{1e5, "1.0e5"},
		{1.5e6, "1.5e6"},
		{12345, "12345.0"},
		{123456789, "123456789.0"},
		{1.25e6, "1.25e6"},
		{math.MaxFloat64, "1.7976931348623157e308"},
		{-math.MaxFloat64, "-1.7976931348623157e308"},
		{math.SmallestNonzeroFloat64, "5.0e-324"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{math.NaN(), "#NaN"},
		{math.Inf(1), "#Inf"},
		{math.Inf(-1), "#-Inf"},
	}
	for _, tt := range tests {
		if got := Float(tt.f).String(); got != tt.want {
			t.Errorf("Float(%g).String() = %s, want %s", tt.f, got, tt.want)
		}
	}
}

// TestPrintFloatRoundTrip checks that float text reads back to the same
// bits, across magnitudes and at powers of ten where the notation changes.
func TestPrintFloatRoundTrip(t *testing.T) {
	var fs []float64
	for e := -330; e <= 310; e++ {
		p := math.Pow(10, float64(e))
		fs = append(fs, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 1.5*p, 1.2345678901234567*p)
	}
	for i := range 64 {
		fs = append(fs, math.Ldexp(1, i), math.Ldexp(1, i)+1, math.Ldexp(1, -i)/3)
	}
	for _, f := range fs {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		for _, f := range []float64{f, -f} {
			s := Float(f).String()
			g, err := Parse(s)
			if err != nil {
				t.Errorf("Parse(%s) for %v: %v", s, f, err)
				continue
			}
			if g.Kind() != KindFloat || math.Float64bits(g.Float()) != math.Float64bits(f) {
				t.Errorf("Parse(%s) = %v, want %v", s, g, f)
			}
		}
	}
}

func TestPrintAtom(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"abc", "abc"},
		{"a@b", "a@b"},
		{"nonode@nohost", "nonode@nohost"},
		{"aB_9@", "aB_9@"},
		{"é", "é"},
		{"é@x", "é@x"},
		{"ßÿÀÖØÞ", "ßÿÀÖØÞ"},
		{"÷", "'÷'"},
		{"a÷", "'a÷'"},
		{"a×", "'a×'"},
		{"À", "'À'"},
		{"A", "'A'"},
		{"_", "'_'"},
		{"$1", "'$1'"},
		{"hello world", "'hello world'"},
		{"a.b", "'a.b'"},
		{"a-b", "'a-b'"},
		{"1a", "'1a'"},
		{"it's", `'it\'s'`},
		{`back\slash`, `'back\\slash'`},
		{`say "hi"`, `'say "hi"'`},
		{"new\nline", `'new\nline'`},
		{"\r\t\v\b\f\x1b\x7f", `'\r\t\v\b\f\e\d'`},
		{"\x00\x01\x1f", `'\000\001\037'`},
		{"\u0080\u009f", `'\200\237'`},
		{"\u00a0\u00ff", "'\u00a0\u00ff'"},
		{"ab\u0100", "'ab\u0100'"},
		{"😀", "'😀'"},
		{"end", "'end'"},
		{"maybe", "'maybe'"},
		{"else", "'else'"},
		{"ends", "ends"},
		{"true", "true"},
		{"undefined", "undefined"},
	}
	for _, tt := range tests {
		if got := Atom(tt.name).String(); got != tt.want {
			t.Errorf("Atom(%q).String() = %s, want %s", tt.name, got, tt.want)
		}
		back, err := Parse(tt.want)
		if err != nil || back.Kind() != KindAtom || back.Atom() != tt.name {
			t.Errorf("Parse(%s) = %v, %v; want atom %q", tt.want, back, err, tt.name)
		}
	}
	for _, w := range []string{"after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr",
		"bxor", "case", "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or",
		"orelse", "receive", "rem", "try", "when", "xor", "maybe", "else"} {
		if got := Atom(w).String(); got != "'"+w+"'" {
			t.Errorf("reserved word %s printed as %s", w, got)
		}
	}
}

func TestAppendTextUnprintable(t *testing.T) {
	tests := []struct {
		t    Term
		want string // what String prints nonetheless
	}{
		{Float(math.NaN()), "#NaN"},
		{List(Int(1), Float(math.Inf(1))), "[1,#Inf]"},
		{Tuple(Float(math.Inf(-1))), "{#-Inf}"},
		{Atom("a\xffb"), "'a\ufffdb'"},
		{Ref{Node: "a", Creation: 1}.Term(), "#Ref<a,1>"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
		prefix := []byte("x")
		b, err := tt.t.AppendText(prefix)
		if !errors.Is(err, ErrUnprintable) || string(b) != "x" {
			t.Errorf("AppendText(%s) = %q, %v; want x, ErrUnprintable", tt.want, b, err)
		}
		if _, err := tt.t.MarshalText(); !errors.Is(err, ErrUnprintable) {
			t.Errorf("MarshalText(%s) error = %v, want ErrUnprintable", tt.want, err)
		}
		if back, err := Parse(tt.want); err == nil && Equal(back, tt.t) {
			t.Errorf("Parse(%s) gave the term back", tt.want)
		}
	}
}

func TestTextMarshaling(t *testing.T) {
	in := Tuple(Atom("ok"), List(Float(1.5), Binary([]byte("hi"))), Map(MapEntry{Int(1), Atom("x y")}))
	const want = `{ok,[1.5,<<"hi">>],#{1 => 'x y'}}`
	b, err := in.MarshalText()
	if err != nil || string(b) != want {
		t.Fatalf("MarshalText = %s, %v; want %s", b, err, want)
	}
	b, err = in.AppendText([]byte("t="))
	if err != nil || string(b) != "t="+want {
		t.Fatalf("AppendText = %s, %v", b, err)
	}
	if got := string(AppendString([]byte("t="), in)); got != "t="+want {
		t.Fatalf("AppendString = %s", got)
	}
	var out Term
	if err := out.UnmarshalText(b[2:]); err != nil || !Equal(out, in) {
		t.Fatalf("UnmarshalText = %v, %v", out, err)
	}
	keep := out
	if err := out.UnmarshalText([]byte("{")); !errors.Is(err, ErrSyntax) {
		t.Fatalf("UnmarshalText({) error = %v", err)
	}
	if !Equal(out, keep) {
		t.Fatalf("failed UnmarshalText changed the term to %v", out)
	}
}

// TestPrintDeep checks that printing does not depend on the goroutine
// stack for deep terms.
func TestPrintDeep(t *testing.T) {
	const depth = 200000
	l, tu, d := Int(0), Int(0), Int(0)
	for range depth {
		l, tu, d = List(l), Tuple(tu), Desc(d)
	}
	check := func(got, open, close string) {
		t.Helper()
		want := strings.Repeat(open, depth) + "0" + strings.Repeat(close, depth)
		if got != want {
			t.Errorf("deep %s term printed wrongly (length %d, want %d)", open, len(got), len(want))
		}
	}
	check(l.String(), "[", "]")
	check(tu.String(), "{", "}")
	check(d.String(), "#Desc<", ">")
	// An improper list nested through its tails.
	il := Atom("x")
	for range depth {
		il = ImproperList([]Term{Int(1)}, Tuple(il))
	}
	if s := il.String(); len(s) != len("x")+depth*len("[1|{}]") {
		t.Errorf("deep improper list printed as %d bytes", len(s))
	}
}

// goldenLine is one term text from the vector files and where it came from.
type goldenLine struct {
	file string
	line int
	text string
}

// goldenTerms reads every TERM or PATTERN field of the vector files in
// ../testdata, and the terms of prefix.tsv's PARTIAL field.
func goldenTerms(t testing.TB) []goldenLine {
	t.Helper()
	var out []goldenLine
	files := []string{"encode.tsv", "prefix.tsv", "reverse.tsv", "sb32.tsv",
		"prefix_sb32.tsv", "legacy.tsv", "order.txt", "sext_decode_fails.txt"}
	for _, name := range files {
		f, err := os.Open(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			if line == "" {
				continue
			}
			fields := []string{line}
			if strings.HasSuffix(name, ".tsv") {
				fields = strings.Split(line, "\t")
			}
			out = append(out, goldenLine{name, n, fields[0]})
			if name == "prefix.tsv" && len(fields) == 3 {
				_, partial, ok := strings.Cut(fields[2], " ")
				if !ok {
					t.Fatalf("%s:%d: bad PARTIAL field %q", name, n, fields[2])
				}
				out = append(out, goldenLine{name, n, partial})
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return out
}

// TestGoldenRoundTrip checks that every term in the vector files parses and
// prints back with W as exactly the same text, since Erlang's ~w wrote them.
//
// The one allowed difference is the order of a map's entries: the printer
// writes them in the order Map keeps them, and where that differs from the
// order Erlang wrote (a matter for Map, not for the printer) the line must
// still print the same entries and parse back to an equal term. Such lines
// are logged, so that go test -v shows them.
func TestGoldenRoundTrip(t *testing.T) {
	lines := goldenTerms(t)
	if len(lines) < 5000 {
		t.Fatalf("only %d golden terms", len(lines))
	}
	reordered := 0
	for _, g := range lines {
		where := g.file + ":" + strconv.Itoa(g.line)
		v, err := Parse(g.text)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", where, g.text, err)
			continue
		}
		got := W.Text(v)
		if got == g.text {
			continue
		}
		if sortMapText(got) == sortMapText(g.text) {
			if back, err := Parse(got); err != nil || !Equal(back, v) || W.Text(back) != got {
				t.Errorf("%s: reprinted %s does not read back: %v", where, got, err)
			}
			reordered++
			t.Logf("%s: map entries in another order than Erlang's\n got %s\nwant %s", where, got, g.text)
			continue
		}
		t.Errorf("%s: printed differently\n got %s\nwant %s", where, got, g.text)
	}
	if reordered > 0 {
		t.Logf("%d of %d lines differ only in the order of map entries", reordered, len(lines))
	}
}

// TestGoldenOrder checks Compare against Erlang's order in order.txt.
func TestGoldenOrder(t *testing.T) {
	var prev Term
	var prevLine goldenLine
	n := 0
	for _, g := range goldenTerms(t) {
		if g.file != "order.txt" {
			continue
		}
		v, err := Parse(g.text)
		if err != nil {
			t.Fatalf("order.txt:%d: %v", g.line, err)
		}
		if n > 0 {
			if c := Compare(prev, v); c != -1 {
				t.Errorf("Compare(order.txt:%d, order.txt:%d) = %d, want -1\n %s\n %s",
					prevLine.line, g.line, c, prevLine.text, g.text)
			}
			if c := Compare(v, prev); c != 1 {
				t.Errorf("Compare(order.txt:%d, order.txt:%d) = %d, want 1", g.line, prevLine.line, c)
			}
		}
		n++
		prev, prevLine = v, g
	}
	if n < 1000 {
		t.Fatalf("only %d terms in order.txt", n)
	}
}

// BenchmarkString prints the terms of the vector files in each format.
func BenchmarkString(b *testing.B) {
	lines := goldenTerms(b)
	terms := make([]Term, len(lines))
	for i, g := range lines {
		terms[i], _ = Parse(g.text)
	}
	buf := make([]byte, 0, 1<<16)
	for _, f := range []struct {
		name string
		f    *Format
	}{{"P", P}, {"W", W}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				for _, t := range terms {
					buf = f.f.Append(buf[:0], t)
				}
			}
		})
	}
}

// skipQuoted returns the index just past the quoted atom or string that
// starts at s[i].
func skipQuoted(s string, i int) int {
	q := s[i]
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(s)
}

// closeOf returns the index of the bracket closing the one at s[i], in
// term text as String writes it.
func closeOf(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(s, i)
			continue
		case c == '=' && i+1 < len(s) && s[i+1] == '>':
			i += 2
			continue
		case c == '[' || c == '{' || c == '<':
			depth++
		case c == ']' || c == '}' || c == '>':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return len(s)
}

// splitTop splits s at its top-level occurrences of sep.
func splitTop(s, sep string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			i = skipQuoted(s, i)
			continue
		case c == '[' || c == '{' || c == '<':
			i = closeOf(s, i) + 1
			continue
		case strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			i += len(sep)
			start = i
			continue
		}
		i++
	}
	return append(out, s[start:])
}

// mapBodies calls f with the entries of every map in s, outermost first.
func mapBodies(s string, f func(entries []string)) {
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'' || s[i] == '"':
			i = skipQuoted(s, i)
		case strings.HasPrefix(s[i:], "#{}"):
			i += 3
		case strings.HasPrefix(s[i:], "#{"):
			j := closeOf(s, i+1)
			f(splitTop(s[i+2:j], ","))
			i += 2
		default:
			i++
		}
	}
}

// sortMapText rewrites term text with every map's entries in byte order,
// so that texts differing only in the order of map entries compare equal.
func sortMapText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\'' || s[i] == '"':
			j := skipQuoted(s, i)
			b.WriteString(s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "#{") && s[i+2] != '}':
			j := closeOf(s, i+1)
			entries := splitTop(s[i+2:j], ",")
			for k, e := range entries {
				entries[k] = sortMapText(e)
			}
			slices.Sort(entries)
			b.WriteString("#{" + strings.Join(entries, ",") + "}")
			i = j + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}
