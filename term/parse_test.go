package term

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestParse checks terms built of tokens: binaries, lists and strings,
// tuples, maps, and the #Name<...> forms.
func TestParse(t *testing.T) {
	str := func(s string) Term {
		var l []Term
		for _, r := range s {
			l = append(l, Int(int64(r)))
		}
		return List(l...)
	}
	checkParses(t, []parseTest{
		// Binaries.
		{"<<>>", Binary([]byte{})},
		{"<<1,2,3>>", Binary([]byte{1, 2, 3})},
		{"<< 1 , 2 >>", Binary([]byte{1, 2})},
		{"<<255,16#ff,$a>>", Binary([]byte{255, 255, 'a'})},
		{"<<1,5:3>>", Bitstring([]byte{1, 0xA0}, 11)},
		{"<<1:1>>", Bitstring([]byte{0x80}, 1)},
		{"<<0:7>>", Bitstring([]byte{0}, 7)},
		{"<<1:8,2>>", Binary([]byte{1, 2})},
		// A segment of no bits is nothing, as Erlang's <<0:0>> is <<>>.
		{"<<0:0>>", Binary([]byte{})},
		{"<<0:0,1>>", Binary([]byte{1})},
		{`<<"ab",0:0>>`, Binary([]byte("ab"))},
		{`<<"abc">>`, Binary([]byte("abc"))},
		{`<<"ab",0,"">>`, Binary([]byte{'a', 'b', 0})},
		{`<<"é\xff">>`, Binary([]byte{0xE9, 0xFF})},
		{`<<"a","b",3:2>>`, Bitstring([]byte{'a', 'b', 0xC0}, 18)},
		// Erlang's bit syntax: sizes, types, byte order, unit, and
		// segments of any size anywhere, <<1:4,2:4>> being <<18>>.
		{"<<1:9>>", Bitstring([]byte{0, 0x80}, 9)},
		{"<<1:3,2>>", Bitstring([]byte{0x20, 0x40}, 11)},
		{"<<1:3,0:0>>", Bitstring([]byte{0x20}, 3)},
		{"<<1:4,2:4>>", Binary([]byte{0x12})},
		{"<<16#0102:16>>", Binary([]byte{1, 2})},
		{"<<16#0102:16/little>>", Binary([]byte{2, 1})},
		{"<<16#0102:16/big-unsigned-integer>>", Binary([]byte{1, 2})},
		{"<<16#123:12/little>>", Bitstring([]byte{0x23, 0x10}, 12)},
		{"<<16#12345:20/little>>", Bitstring([]byte{0x45, 0x23, 0x10}, 20)},
		{"<<-1:12/little-signed>>", Bitstring([]byte{0xFF, 0xF0}, 12)},
		{"<<-1:16/signed>>", Binary([]byte{0xFF, 0xFF})},
		{"<<-128/signed>>", Binary([]byte{0x80})},
		{"<<1:2/unit:8>>", Binary([]byte{0, 1})},
		{"<<16#0102030405060708090A:80>>", Binary([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})},
		{"<<16#0102030405060708090A:80/little>>", Binary([]byte{10, 9, 8, 7, 6, 5, 4, 3, 2, 1})},
		{"<<0:65/signed>>", Bitstring(make([]byte, 9), 65)},
		{"<<-2:72/signed>>", Binary([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE})},
		{"<<-1267650600228229401496703205376:101/signed>>", Bitstring([]byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 101)},
		{"<<1.5/float>>", Binary([]byte{0x3F, 0xF8, 0, 0, 0, 0, 0, 0})},
		{"<<1.5:32/float-little>>", Binary([]byte{0, 0, 0xC0, 0x3F})},
		{"<<1/float>>", Binary([]byte{0x3F, 0xF0, 0, 0, 0, 0, 0, 0})},
		{`<<"héllo"/utf8>>`, Binary([]byte("héllo"))},
		{`<<"λ"/utf8, $é/utf8, 16#1F600/utf8>>`, Binary([]byte("λé😀"))},
		{`<<"a😀"/utf16>>`, Binary([]byte{0, 'a', 0xD8, 0x3D, 0xDE, 0x00})},
		{`<<"a"/utf16-little>>`, Binary([]byte{'a', 0})},
		{`<<"a"/utf32>>`, Binary([]byte{0, 0, 0, 'a'})},
		{`<<"ab":16>>`, Binary([]byte{0, 'a', 0, 'b'})},
		{`<<"ab" "c">>`, Binary([]byte("abc"))},
		{`<<"ab":4/unit:2>>`, Binary([]byte("ab"))},
		// The pattern <<Prefix, _/binary>>.
		{`<<"ali",_/binary>>`, BinaryPrefix([]byte("ali"))},
		{`<< "ali" , _ / bytes >>`, BinaryPrefix([]byte("ali"))},
		{`<<"héllo"/utf8,_/binary>>`, BinaryPrefix([]byte("héllo"))},
		{"<<_/binary>>", BinaryPrefix(nil)},
		{"<<1:4,2:4,_/binary>>", BinaryPrefix([]byte{0x12})},
		{`#Desc<<<"a",_/binary>>>`, Desc(BinaryPrefix([]byte("a")))},
		{`{user,<<"ali",_/binary>>}`, Tuple(Atom("user"), BinaryPrefix([]byte("ali")))},
		// Lists and strings.
		{"[]", List()},
		{"[ ]", List()},
		{"[1,2,3]", List(Int(1), Int(2), Int(3))},
		{"[a|b]", ImproperList([]Term{Atom("a")}, Atom("b"))},
		{"[1|<<>>]", ImproperList([]Term{Int(1)}, Binary(nil))},
		{"[1,2|[3]]", List(Int(1), Int(2), Int(3))},
		{"[1|[2|[3|[]]]]", List(Int(1), Int(2), Int(3))},
		{"[1|[2|c]]", ImproperList([]Term{Int(1), Int(2)}, Atom("c"))},
		{"[1|[2,3|[4|[]]]]", List(Int(1), Int(2), Int(3), Int(4))},
		{"[1|[2,3|[[]|{}]]]", ImproperList([]Term{Int(1), Int(2), Int(3), List()}, Tuple())},
		{"[[1|[2]]|[[3|[]]]]", List(List(Int(1), Int(2)), List(Int(3)))},
		{"[1|[ ]]", List(Int(1))},
		{`""`, List()},
		{`"abc"`, str("abc")},
		{`"ab" "c"`, str("abc")},
		{`"é😀"`, str("é😀")},
		{`"\x{D7FF}\x{E000}\x{FFFD}\x{10000}"`, List(Int(0xD7FF), Int(0xE000), Int(0xFFFD), Int(0x10000))},
		{`["a",$b|"c"]`, List(str("a"), Int('b'), Int('c'))},
		// "ab" ++ T is [$a,$b|T], as in Erlang.
		{`"ali" ++ '_'`, ImproperList(str("ali").Elems(), Atom("_"))},
		{`"ab" ++ "cd"`, str("abcd")},
		{`"ab" ++ "c" "d" ++ [1]`, List(Int('a'), Int('b'), Int('c'), Int('d'), Int(1))},
		{`"" ++ x`, Atom("x")},
		{`"ab" ++ []`, str("ab")},
		{`"ab" ++ [1|t]`, ImproperList([]Term{Int('a'), Int('b'), Int(1)}, Atom("t"))},
		{`{"a" ++ '_', "b" ++ "c" ++ '$1'}`, Tuple(ImproperList([]Term{Int('a')}, Atom("_")), ImproperList([]Term{Int('b'), Int('c')}, Atom("$1")))},
		// Tuples and maps.
		{"{}", Tuple()},
		{"{a,1}", Tuple(Atom("a"), Int(1))},
		{"{{}}", Tuple(Tuple())},
		{"#{}", Map()},
		{"#{a => 1,b => 2}", Map(MapEntry{Atom("a"), Int(1)}, MapEntry{Atom("b"), Int(2)})},
		{"#{b=>2,a=>1}", Map(MapEntry{Atom("a"), Int(1)}, MapEntry{Atom("b"), Int(2)})},
		{"#{a => 1,a => 2}", Map(MapEntry{Atom("a"), Int(2)})},
		{"#{<<1>>=><<2>>}", Map(MapEntry{Binary([]byte{1}), Binary([]byte{2})})},
		{"#{#Desc<1>=>2}", Map(MapEntry{Desc(Int(1)), Int(2)})},
		// Pids, ports, references and Desc.
		{"#Pid<a@b,85,1,4>", Pid{Node: "a@b", ID: 85, Serial: 1, Creation: 4}.Term()},
		{"#Pid<'node@host.example.com',5,0,4294967295>", Pid{Node: "node@host.example.com", ID: 5, Creation: math.MaxUint32}.Term()},
		{"#Pid< a , 1 , 2 , 3 >", Pid{Node: "a", ID: 1, Serial: 2, Creation: 3}.Term()},
		{"#Port<a@b,268435455,99999>", Port{Node: "a@b", ID: 268435455, Creation: 99999}.Term()},
		{"#Port<a,18446744073709551615,0>", Port{Node: "a", ID: math.MaxUint64}.Term()},
		{"#Ref<a@b,7,1>", Ref{Node: "a@b", Creation: 7, IDs: []uint32{1}}.Term()},
		{"#Ref<a@b,4294967295,1,2,3,4,5>", Ref{Node: "a@b", Creation: math.MaxUint32, IDs: []uint32{1, 2, 3, 4, 5}}.Term()},
		{"#Desc<1>", Desc(Int(1))},
		{"#Desc<<<1>>>", Desc(Binary([]byte{1}))},
		{"#Desc<#Desc<[]>>", Desc(Desc(List()))},
		{"#Desc<#{a => #Desc<<<>>>}>", Desc(Map(MapEntry{Atom("a"), Desc(Binary(nil))}))},
	})
}

// parseTest is a text and the term Parse must read from it.
type parseTest struct {
	in   string
	want Term
}

func checkParses(t *testing.T, tests []parseTest) {
	t.Helper()
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !Equal(got, tt.want) || got.String() != tt.want.String() {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestParseErrors checks the errors about tokens out of place, and the
// positions errors give.
func TestParseErrors(t *testing.T) {
	checkSyntaxErrors(t, []syntaxErrorTest{
		{"", 1, 1, "unexpected end of input", ErrSyntax},
		{"   ", 1, 4, "unexpected end of input", ErrSyntax},
		{"]", 1, 1, "unexpected ']'", ErrSyntax},
		{"[1,]", 1, 4, "unexpected ']'", ErrSyntax},
		{"[1,2", 1, 5, "unexpected end of input in list", ErrSyntax},
		{"[1 2]", 1, 4, "unexpected integer 2 in list", ErrSyntax},
		{"[1|2|3]", 1, 5, "unexpected '|' in list", ErrSyntax},
		{"[1|[2|3]", 1, 9, "unexpected end of input in list", ErrSyntax},
		{"[1|[2|[3]]]]", 1, 12, "unexpected ']' after term", ErrSyntax},
		{"[1|[2|[,]]]", 1, 8, "unexpected ','", ErrSyntax},
		{"[1|[2|X]]", 1, 7, "variable X is not a term", ErrSyntax},
		// Erlang refuses surrogates and U+FFFE, U+FFFF in strings and
		// characters, escaped or not.
		{`"a\x{D800}"`, 1, 3, "character 0xd800 out of range in string", ErrSyntax},
		{`"\x{DFFF}"`, 1, 2, "character 0xdfff out of range in string", ErrSyntax},
		{`"\x{FFFE}"`, 1, 2, "character 0xfffe out of range in string", ErrSyntax},
		{"\"\uFFFF\"", 1, 2, "character 0xffff out of range in string", ErrSyntax},
		{`$\x{D800}`, 1, 1, "character 0xd800 out of range in character literal", ErrSyntax},
		{"$\uFFFE", 1, 1, "character 0xfffe out of range in character literal", ErrSyntax},
		{"[|2]", 1, 2, "unexpected '|'", ErrSyntax},
		{"{a,,b}", 1, 4, "unexpected ','", ErrSyntax},
		{"{a", 1, 3, "unexpected end of input in tuple", ErrSyntax},
		{"1 2", 1, 3, "unexpected integer 2 after term", ErrSyntax},
		{"a.b", 1, 3, "unexpected atom b after term", ErrSyntax},
		{"1..", 1, 3, "unexpected '.' after term", ErrSyntax},
		{".", 1, 1, "unexpected '.'", ErrSyntax},
		{"X", 1, 1, "variable X is not a term", ErrSyntax},
		{"_", 1, 1, "variable _ is not a term", ErrSyntax},
		{"{a,Élan}", 1, 4, "variable Élan is not a term", ErrSyntax},
		{"- a", 1, 3, "unexpected atom a after sign", ErrSyntax},
		{"--1", 1, 2, "unexpected '-' after sign", ErrSyntax},
		{"1e5", 1, 2, "unexpected atom e5 after term", ErrSyntax},
		{"1__0", 1, 2, "unexpected variable __0 after term", ErrSyntax},
		{"1_", 1, 2, "unexpected variable _ after term", ErrSyntax},
		{"<<", 1, 3, "unexpected end of input in binary", ErrSyntax},
		{"<<1", 1, 4, "unexpected end of input in binary", ErrSyntax},
		{"<<1,>>", 1, 5, "unexpected '>' in binary, expected segment", ErrSyntax},
		{"<<1> >", 1, 4, "expected '>>' to close binary", ErrSyntax},
		{"<<256>>", 1, 3, "segment value out of range 0..255", ErrSyntax},
		{"<<-1>>", 1, 3, "segment value out of range 0..255", ErrSyntax},
		{"<<1.0>>", 1, 3, "binary segment must be an integer", ErrSyntax},
		{"<<a>>", 1, 3, "unexpected atom a in binary", ErrSyntax},
		{"<<8:3>>", 1, 3, "segment value out of range 0..7", ErrSyntax},
		{"<<1:0>>", 1, 3, "segment value out of range 0..0", ErrSyntax},
		{"<<1:x>>", 1, 5, "segment size must be an integer from 0 to 256", ErrSyntax},
		{"<<1:257>>", 1, 5, "segment size must be an integer from 0 to 256", ErrSyntax},
		{"<<1:256/unit:2>>", 1, 3, "segment of 512 bits, more than 256", ErrSyntax},
		{"<<1:2/unit:0>>", 1, 12, "unit must be an integer from 1 to 256", ErrSyntax},
		{"<<1/unit>>", 1, 9, "unexpected '>' after unit", ErrSyntax},
		{`<<"ā">>`, 1, 3, "character 0x101 in binary string is not a byte", ErrSyntax},
		{`<<"a":3>>`, 1, 3, "character 0x61 out of range 0..7", ErrSyntax},
		{`<<"ab"/utf16, "\x{D7FF}":16/signed>>`, 1, 15, "character 0xd7ff out of range -32768..32767", ErrSyntax},
		{"<<128:8/signed>>", 1, 3, "segment value out of range -128..127", ErrSyntax},
		{"<<-129:8/signed>>", 1, 3, "segment value out of range -128..127", ErrSyntax},
		{"<<18446744073709551616:64>>", 1, 3, "segment value out of range 0..18446744073709551615", ErrSyntax},
		{"<<-1:100>>", 1, 3, "segment value out of range 0..2^100-1", ErrSyntax},
		{"<<1267650600228229401496703205376:101/signed>>", 1, 3, "segment value out of range -2^100..2^100-1", ErrSyntax},
		{"<<1.5/integer>>", 1, 3, "binary segment must be an integer", ErrSyntax},
		{"<<1/float-integer>>", 1, 11, "conflicting types in binary segment", ErrSyntax},
		{"<<1:16/float>>", 1, 3, "a float segment is 32 or 64 bits, not 16", ErrSyntax},
		{"<<1.0e300:32/float>>", 1, 3, "segment value out of range of a 32-bit float", ErrSyntax},
		{"<<1:8/utf8>>", 1, 3, "a utf segment takes no size or unit", ErrSyntax},
		{"<<16#D800/utf8>>", 1, 3, "value 55296 is no Unicode code point", ErrSyntax},
		{"<<-1/utf16>>", 1, 3, "value -1 is no Unicode code point", ErrSyntax},
		{"<<16#110000/utf32>>", 1, 3, "value 1114112 is no Unicode code point", ErrSyntax},
		{"<<1/native>>", 1, 5, "native byte order is not supported: it depends on the machine; write big or little", ErrSyntax},
		{"<<1/binary>>", 1, 5, "a binary segment needs a binary value, which Parse does not take; write its bytes", ErrSyntax},
		{"<<1/utf9>>", 1, 5, "unknown type utf9 in binary segment", ErrSyntax},
		{"<<1/8>>", 1, 5, "unexpected integer 8 in binary segment, expected a type", ErrSyntax},
		{"<<<<>>>>", 1, 3, "unexpected '<<' in binary", ErrSyntax},
		// The pattern <<Prefix, _/binary>>.
		{"<<_>>", 1, 3, "_ in a binary must be _/binary, the rest of a binary pattern", ErrSyntax},
		{"<<1,_:8>>", 1, 5, "_ in a binary must be _/binary, the rest of a binary pattern", ErrSyntax},
		{"<<_/bits>>", 1, 5, "_/bits is not supported: a binary pattern ends in _/binary", ErrSyntax},
		{"<<_/integer>>", 1, 5, "unexpected atom integer after _/, expected binary", ErrSyntax},
		{"<<1:3,_/binary>>", 1, 7, "the segments before _/binary must be whole bytes, not 3 bits", ErrSyntax},
		{"<<_/binary,1>>", 1, 11, "unexpected ',' after _/binary, expected '>>'", ErrSyntax},
		{"<<X/binary>>", 1, 3, "unexpected variable X in binary", ErrSyntax},
		// "ab" ++ T: a string literal before ++, as in an Erlang pattern.
		{`[1] ++ "a"`, 1, 5, "unexpected '++' after term", ErrSyntax},
		{`"a" ++`, 1, 7, "unexpected end of input", ErrSyntax},
		{`"a" ++ ++ b`, 1, 8, "unexpected '++'", ErrSyntax},
		{`"a" ++ X`, 1, 8, "variable X is not a term", ErrSyntax},
		{"#{a}", 1, 4, "unexpected '}' in map, expected '=>'", ErrSyntax},
		{"#{a => 1,}", 1, 10, "unexpected '}'", ErrSyntax},
		{"#{a => 1", 1, 9, "unexpected end of input in map", ErrSyntax},
		{"#Pid<1,2,3,4>", 1, 6, "unexpected integer 1 in #Pid, expected node atom", ErrSyntax},
		{"#Pid<a,1,2>", 1, 11, "unexpected '>' in #Pid", ErrSyntax},
		{"#Pid<a,1,2,3,4>", 1, 13, "unexpected ',' in #Pid", ErrSyntax},
		{"#Pid<a,4294967296,2,3>", 1, 8, "Pid id out of range 0..4294967295", ErrSyntax},
		{"#Pid<a,1,-2,3>", 1, 10, "Pid serial out of range 0..4294967295", ErrSyntax},
		{"#Pid<a,1,2,b>", 1, 12, "unexpected atom b in #Pid, expected creation", ErrSyntax},
		{"#Port<a,18446744073709551616,1>", 1, 9, "Port id out of range 0..18446744073709551615", ErrSyntax},
		{"#Port<a,1,4294967296>", 1, 11, "Port creation out of range 0..4294967295", ErrSyntax},
		{"#Ref<a,1>", 1, 9, "unexpected '>' in #Ref", ErrSyntax},
		{"#Ref<a,1,2,>", 1, 12, "unexpected '>' in #Ref, expected id", ErrSyntax},
		{"#Ref<a,1,4294967296>", 1, 10, "Ref id out of range 0..4294967295", ErrSyntax},
		{"#Desc<1", 1, 8, "unexpected end of input in #Desc", ErrSyntax},
		{"#Desc<1>>", 1, 9, "unexpected '>' after term", ErrSyntax},
		// Positions count lines from 1 and characters (not bytes) from 1.
		{"{a,\n b,\n ]", 3, 2, "unexpected ']'", ErrSyntax},
		{"['é😀', ]", 1, 8, "unexpected ']'", ErrSyntax},
		{"% c\n\t[ ]]", 2, 5, "unexpected ']' after term", ErrSyntax},
	})
}

// syntaxErrorTest is a text Parse must refuse, and the error it must give.
type syntaxErrorTest struct {
	in        string
	line, col int
	msg       string
	sentinel  error
}

func checkSyntaxErrors(t *testing.T, tests []syntaxErrorTest) {
	t.Helper()
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Line != tt.line || se.Column != tt.col || se.Msg != tt.msg || !errors.Is(err, tt.sentinel) {
			t.Errorf("Parse(%q) error = %v (offset %d, %v); want line %d, column %d: %s",
				tt.in, err, se.Offset, se.Err, tt.line, tt.col, tt.msg)
		}
		if want := "line " + itoa(tt.line) + ", column " + itoa(tt.col) + ": " + tt.msg; err.Error() != want {
			t.Errorf("Parse(%q).Error() = %q, want %q", tt.in, err.Error(), want)
		}
		if se.Offset < 0 || se.Offset > len(tt.in) {
			t.Errorf("Parse(%q) error offset %d out of range", tt.in, se.Offset)
		}
	}
}

func itoa(i int) string { return Int(int64(i)).String() }

func TestSyntaxErrorOffset(t *testing.T) {
	in := "[1,\n 'é', ]"
	_, err := Parse(in)
	var se *SyntaxError
	if !errors.As(err, &se) || in[se.Offset:] != "]" {
		t.Fatalf("error %v at offset %d, want the offset of ]", err, se.Offset)
	}
}

func TestParseDepth(t *testing.T) {
	tests := []struct {
		in       string
		maxDepth int
		ok       bool
	}{
		{"1", 1, true},
		{"[1]", 1, true},
		{"[[1]]", 1, false},
		{"[[1]]", 2, true},
		{"{[#{a => <<>>}]}", 4, true},
		{"{[#{a => <<>>}]}", 3, false},
		{"#Desc<#Desc<1>>", 2, true},
		{"[1|[2|[3]]]", 3, true},
		{"[1|[2|[3]]]", 2, false},
		{"[1|[2|[[3]]]]", 3, false},
		{strings.Repeat("[0|", DefaultMaxDepth-1) + "[]" + strings.Repeat("]", DefaultMaxDepth-1), 0, true},
		{strings.Repeat("[0|", DefaultMaxDepth+1) + "x" + strings.Repeat("]", DefaultMaxDepth+1), 0, false},
		{"#Desc<#Desc<1>>", 1, false},
		{`["a"]`, 1, false},
		{`["a"]`, 2, true},
		{"{#Pid<a,1,2,3>}", 1, true},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), 0, true},
		{strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth), 0, true},
		{strings.Repeat("[", DefaultMaxDepth+1) + strings.Repeat("]", DefaultMaxDepth+1), 0, false},
		{strings.Repeat("{", DefaultMaxDepth+1) + strings.Repeat("}", DefaultMaxDepth+1), -1, false},
	}
	for _, tt := range tests {
		_, err := ParseOptions{MaxDepth: tt.maxDepth}.Parse(tt.in)
		if tt.ok && err != nil {
			t.Errorf("MaxDepth %d: Parse(%.40q): %v", tt.maxDepth, tt.in, err)
		}
		if !tt.ok && !errors.Is(err, ErrDepth) {
			t.Errorf("MaxDepth %d: Parse(%.40q) error = %v, want ErrDepth", tt.maxDepth, tt.in, err)
		}
		if !tt.ok && errors.Is(err, ErrSyntax) {
			t.Errorf("depth error %v also claims to be ErrSyntax", err)
		}
	}
	_, err := ParseOptions{MaxDepth: 2}.Parse("{\n [ [1]]}")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Column != 4 || se.Msg != "nesting deeper than 2" {
		t.Errorf("depth error = %v, want at line 2, column 4", err)
	}
}

// TestParseHostile checks that deep or long hostile input fails or
// succeeds quickly.
func TestParseHostile(t *testing.T) {
	for _, open := range []string{"[", "{", "#{", "#Desc<", "[1|", "#{a => ", "{1,"} {
		in := strings.Repeat(open, 1_000_000)
		start := time.Now()
		_, err := Parse(in)
		if !errors.Is(err, ErrDepth) {
			t.Errorf("a million %q: error %v, want ErrDepth", open, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("a million %q took %v", open, d)
		}
	}
	// Long flat input is fine.
	in := "[" + strings.Repeat("1,", 200_000) + "1]"
	if got, err := Parse(in); err != nil || got.Len() != 200_001 {
		t.Errorf("long list: %v", err)
	}
}

// randomTerm builds a term of every kind, with awkward atoms, floats and
// integers, up to the given depth.
func randomTerm(r *rand.Rand, depth int) Term {
	atoms := []string{"a", "ok", "", "A", "_", "$1", "it's", "a b", "end", "é", "é@x", "\n\x00\x7f\u0080", "😀", "nonode@nohost", "a@b.c"}
	k := r.IntN(14)
	if depth <= 0 && k >= 8 {
		k = r.IntN(8)
	}
	n := r.IntN(4)
	switch k {
	case 0:
		return Int(r.Int64N(2000) - 1000)
	case 1:
		return Int(int64(r.Uint64()))
	case 2:
		return bigInt(strings.Repeat("9", 1+r.IntN(60)))
	case 3:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = r.NormFloat64()
		}
		if r.IntN(4) == 0 { // a signed zero: map key order ties the two
			f = math.Copysign(0, f)
		}
		return Float(f)
	case 4:
		return Atom(atoms[r.IntN(len(atoms))])
	case 5:
		b := make([]byte, r.IntN(5))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if len(b) > 0 && r.IntN(2) == 0 {
			return Bitstring(b, len(b)*8-1-r.IntN(7))
		}
		return Binary(b)
	case 6:
		return Pid{Node: atoms[r.IntN(len(atoms))], ID: r.Uint32(), Serial: r.Uint32(), Creation: r.Uint32()}.Term()
	case 7:
		ids := make([]uint32, 1+r.IntN(5))
		for i := range ids {
			ids[i] = r.Uint32()
		}
		if r.IntN(2) == 0 {
			return Port{Node: atoms[r.IntN(len(atoms))], ID: r.Uint64(), Creation: r.Uint32()}.Term()
		}
		return Ref{Node: atoms[r.IntN(len(atoms))], Creation: r.Uint32(), IDs: ids}.Term()
	case 8, 9:
		elems := make([]Term, n)
		for i := range elems {
			elems[i] = randomTerm(r, depth-1)
		}
		if k == 8 {
			return Tuple(elems...)
		}
		return List(elems...)
	case 10:
		elems := make([]Term, n)
		for i := range elems {
			elems[i] = randomTerm(r, depth-1)
		}
		return ImproperList(elems, randomTerm(r, depth-1))
	case 11, 12:
		entries := make([]MapEntry, n)
		for i := range entries {
			entries[i] = MapEntry{randomTerm(r, depth-1), randomTerm(r, depth-1)}
		}
		return Map(entries...)
	}
	return Desc(randomTerm(r, depth-1))
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		in := randomTerm(r, 4)
		text, err := in.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%v): %v", in, err)
		}
		out, err := Parse(string(text))
		if err != nil {
			t.Fatalf("Parse(%s): %v", text, err)
		}
		if !Equal(in, out) {
			t.Fatalf("Parse(%s) = %v, not equal", text, out)
		}
		if again := out.String(); again != string(text) {
			t.Fatalf("reprinted %s as %s", text, again)
		}
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"0", "-17", "123456789012345678901234567890", "16#FF", "-16#ff", "$a", `$\x{1F600}`,
		"1.0", "-0.0", "1.0e-300", "2147483648.5", "1_0.5e1_0",
		"abc", "'hello world'", `'it\'s'`, `'new\nline'`, `'back\\slash'`, "''", "é@x", `'\^a\d\377'`,
		"<<>>", "<<1,2,3>>", "<<1,5:3>>", `<<"ab",0>>`,
		"[]", "[1,2,3]", "[a|b]", "[1|<<>>]", "[1,2|[3]]", `"abc"`, `"ab" "c"`,
		"{}", "{a,1}", "#{}", "#{a => 1,b => 2}", "#{1 => a,1.0 => b}",
		"#Pid<a@b,85,1,4>", "#Port<a@b,5,3>", "#Ref<a@b,4,1,2,3>", "#Desc<<<1>>>", "#Desc<#Desc<x>>",
		"{a, % c\n b}.", "[[[[[[[[", "#{#{#{",
		`<<"héllo"/utf8>>`, `<<"ali",_/binary>>`, "<<1:4,2:12/little,-1:9/signed>>", `<<1.5:32/float>>`,
		`"ab" ++ '_'`, `<<"a\n\e\"b">>`, `"é\t"`, `<<233,0>>`, `<<_/binary>>`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	// 4,004 hex digits: 4,821 decimal digits, over the limit (CI found it).
	f.Add("16#" + strings.Repeat("F", 4004))
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseOptions{MaxDepth: 200}.Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(s) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("Parse(%q): bad error %#v", s, err)
			}
			return
		}
		text, err := v.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText of Parse(%q) = %v: %v", s, v, err)
		}
		w, err := Parse(string(text))
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", s, text, err)
		}
		if !Equal(v, w) {
			t.Fatalf("Parse(%q) = %s, which parses as %v", s, text, w)
		}
		if again := w.String(); again != string(text) {
			t.Fatalf("Parse(%q) printed %s, then %s", s, text, again)
		}
		// W's text reads back too, as do P's with the Unicode range.
		for _, f := range []*Format{W, P.WithPrintableRange(Unicode)} {
			text, err := f.AppendText(nil, v)
			if err != nil {
				t.Fatalf("AppendText of Parse(%q) = %v: %v", s, v, err)
			}
			if w, err := Parse(string(text)); err != nil || !Equal(v, w) {
				t.Fatalf("Parse(%q) = %v, printed %s, which parses as %v, %v", s, v, text, w, err)
			}
		}
	})
}
