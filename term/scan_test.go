package term

import (
	"math"
	"strings"
	"testing"
)

// TestScanLiterals checks the tokens that are terms by themselves
// (integers, characters, floats, atoms) and the layout between tokens.
func TestScanLiterals(t *testing.T) {
	checkParses(t, []parseTest{
		// Integers.
		{"0", Int(0)},
		{"-17", Int(-17)},
		{"+17", Int(17)},
		{"- 17", Int(-17)},
		{"9223372036854775807", Int(math.MaxInt64)},
		{"-9223372036854775808", Int(math.MinInt64)},
		{"9223372036854775808", Uint(1 << 63)},
		{"18446744073709551615", Uint(math.MaxUint64)},
		{"-18446744073709551615", bigInt("-18446744073709551615")},
		{"-18446744073709551616", bigInt("-18446744073709551616")},
		{"123456789012345678901234567890", bigInt("123456789012345678901234567890")},
		{"-0", Int(0)},
		{"007", Int(7)},
		{"1_000_000", Int(1000000)},
		{"16#FF", Int(255)},
		{"16#ff", Int(255)},
		{"-16#ff", Int(-255)},
		{"2#1010", Int(10)},
		{"36#Zz", Int(35*36 + 35)},
		{"16#FFFF_FFFF_FFFF_FFFF_FF", bigInt("4722366482869645213695")},
		{"$a", Int('a')},
		{"$ ", Int(' ')},
		{"$\\n", Int('\n')},
		{"$\\\\", Int('\\')},
		{"$'", Int('\'')},
		{"$é", Int(0xE9)},
		{"$😀", Int(0x1F600)},
		{"-$a", Int(-'a')},
		// Floats.
		{"1.0", Float(1)},
		{"-0.0", Float(math.Copysign(0, -1))},
		{"0.1", Float(0.1)},
		{"1.0e-300", Float(1e-300)},
		{"1.0E+3", Float(1000)},
		{"2147483648.5", Float(2147483648.5)},
		{"1_0.0_1e1_0", Float(10.01e10)},
		{"1.0e-400", Float(0)},
		{"1.7976931348623157e308", Float(math.MaxFloat64)},
		// Atoms.
		{"abc", Atom("abc")},
		{"nonode@nohost", Atom("nonode@nohost")},
		{"é@x", Atom("é@x")},
		{"ÿÀ", Atom("ÿÀ")},
		{"true", Bool(true)},
		{"end", Atom("end")},
		{"'hello world'", Atom("hello world")},
		{"''", Atom("")},
		{"'A'", Atom("A")},
		{"'_'", Atom("_")},
		{"'$1'", Atom("$1")},
		{`'it\'s'`, Atom("it's")},
		{`'back\\slash'`, Atom(`back\slash`)},
		{"'two\nlines'", Atom("two\nlines")},
		{"'😀'", Atom("😀")},
		// Layout.
		{" \t\r\n{ a , 1 }\n", Tuple(Atom("a"), Int(1))},
		{"{a,1}.", Tuple(Atom("a"), Int(1))},
		{"{a,1} .\n", Tuple(Atom("a"), Int(1))},
		{"1.", Int(1)},
		{"% comment\n[1, % one\n 2] % end", List(Int(1), Int(2))},
		{"[1,2]%", List(Int(1), Int(2))},
	})
}

// TestScanEscapes checks every escape in quoted atoms, strings and
// character literals.
func TestScanEscapes(t *testing.T) {
	tests := []struct {
		esc  string
		want rune
	}{
		{`\b`, '\b'}, {`\d`, 0x7F}, {`\e`, 0x1B}, {`\f`, '\f'}, {`\n`, '\n'},
		{`\r`, '\r'}, {`\s`, ' '}, {`\t`, '\t'}, {`\v`, '\v'},
		{`\'`, '\''}, {`\"`, '"'}, {`\\`, '\\'},
		{`\0`, 0}, {`\7`, 7}, {`\12`, 10}, {`\101`, 'A'}, {`\377`, 0xFF}, {`\777`, 0x1FF},
		{`\x41`, 'A'}, {`\xfF`, 0xFF}, {`\x{41}`, 'A'}, {`\x{1F600}`, 0x1F600}, {`\x{10FFFF}`, 0x10FFFF},
		{`\x{0000041}`, 'A'},
		{`\^a`, 1}, {`\^A`, 1}, {`\^z`, 26}, {`\^@`, 0}, {`\^[`, 0x1B}, {`\^_`, 0x1F},
		// erl_scan takes any character after \^ and keeps its low five
		// bits: \^? is 31 (not DEL), \^1 is 17, \^é is 9.
		{`\^?`, 0x1F}, {`\^1`, 17}, {`\^ `, 0}, {`\^~`, 30}, {`\^\`, 28}, {`\^"`, 2}, {`\^é`, 9}, {"\\^\n", 10},
		{`\z`, 'z'}, {`\é`, 0xE9}, {"\\\n", '\n'},
	}
	for _, tt := range tests {
		for _, form := range []string{"'%s'", `"%s"`, "$%s"} {
			in := strings.Replace(form, "%s", tt.esc, 1)
			got, err := Parse(in)
			if err != nil {
				t.Errorf("Parse(%q): %v", in, err)
				continue
			}
			var r rune
			switch {
			case got.Kind() == KindAtom && len([]rune(got.Atom())) == 1:
				r = []rune(got.Atom())[0]
			case got.Kind() == KindList && got.Len() == 1:
				r = rune(got.Elems()[0].Int64())
			case got.Kind() == KindInt:
				r = rune(got.Int64())
			default:
				t.Errorf("Parse(%q) = %v", in, got)
				continue
			}
			if r != tt.want {
				t.Errorf("Parse(%q) gave character %#x, want %#x", in, r, tt.want)
			}
		}
	}
	// Octal escapes take at most three digits; the rest is text.
	if got, err := Parse(`'\1234'`); err != nil || got.Atom() != "S4" {
		t.Errorf(`Parse('\1234') = %v, %v`, got, err)
	}
	if got, err := Parse(`"\x414"`); err != nil || W.Text(got) != "[65,52]" {
		t.Errorf(`Parse("\x414") = %v, %v`, got, err)
	}
}

// TestScanErrors checks the errors about malformed tokens.
func TestScanErrors(t *testing.T) {
	checkSyntaxErrors(t, []syntaxErrorTest{
		{"é ÷", 1, 3, "illegal character '÷'", ErrSyntax},
		{"a&b", 1, 2, "illegal character '&'", ErrSyntax},
		{"<a>", 1, 1, "illegal character '<'", ErrSyntax},
		{"a = b", 1, 3, "illegal character '='", ErrSyntax},
		{"\xff", 1, 1, "invalid UTF-8 encoding", ErrSyntax},
		{"'a\xffb'", 1, 3, "invalid UTF-8 encoding", ErrSyntax},
		{"1.0e", 1, 5, "missing digits in float exponent", ErrSyntax},
		{"1.0e+", 1, 6, "missing digits in float exponent", ErrSyntax},
		{"1.0e309", 1, 1, "float 1.0e309 out of range", ErrSyntax},
		{"-1.0e309", 1, 2, "float 1.0e309 out of range", ErrSyntax},
		{"37#1", 1, 1, "invalid base 37", ErrSyntax},
		{"1#1", 1, 1, "invalid base 1", ErrSyntax},
		{"16#", 1, 4, "missing digits after 16#", ErrSyntax},
		{"2#2", 1, 3, "missing digits after 2#", ErrSyntax},
		{"'abc", 1, 1, "unterminated quoted atom", ErrSyntax},
		{"\n  \"abc", 2, 3, "unterminated string", ErrSyntax},
		{`'\`, 1, 2, "unterminated escape sequence", ErrSyntax},
		{`'\x4'`, 1, 2, `invalid \x escape`, ErrSyntax},
		{`'\x{}'`, 1, 2, `invalid \x{...} escape`, ErrSyntax},
		{`'\x{41'`, 1, 2, `invalid \x{...} escape`, ErrSyntax},
		{`'\x{110000}'`, 1, 2, "escaped character out of range", ErrSyntax},
		{`'\x{D800}'`, 1, 2, "character 0xd800 out of range in atom", ErrSyntax},
		{`'\^`, 1, 2, "unterminated escape sequence", ErrSyntax},
		{"'\\^\xff'", 1, 4, "invalid UTF-8 encoding", ErrSyntax},
		{"$", 1, 2, "unexpected end of input in character", ErrSyntax},
		{"#", 1, 1, `unknown form "#"`, ErrSyntax},
		{"#Foo<1>", 1, 1, `unknown form "#Foo"`, ErrSyntax},
		{"#Pid", 1, 5, "expected '<' after #Pid", ErrSyntax},
		{"#Pid <a,1,2,3>", 1, 5, "expected '<' after #Pid", ErrSyntax},
		{"#NaN", 1, 1, `unknown form "#NaN"`, ErrSyntax},
		{"\r\n)", 2, 1, "illegal character ')'", ErrSyntax},
	})
}
