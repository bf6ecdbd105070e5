package term_test

import (
	"context"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/term"
)

// TestParseAgreesWithErlang: Parse reads each text as OTP's erl_scan and
// erl_parse:parse_term do, to the same term or to an error on both sides,
// for the escapes, characters and binary segments where the two differed
// (\^?, \^1, surrogates, U+FFFE, <<0:0>>), list tails, and the bit
// syntax (sizes, types, byte order, utf8, floats); and the departures
// this package keeps on purpose must still differ as documented.
func TestParseAgreesWithErlang(t *testing.T) {
	vm := erlvm.ForTest(t)
	const read = `case erl_scan:string(unicode:characters_to_list(B)) of
		{ok, T, _} -> case erl_parse:parse_term(T) of {ok, V} -> {ok, V}; _ -> error end;
		_ -> error
	end.`
	for _, c := range []struct {
		text    string
		departs bool // a documented departure: the two must differ
	}{
		{text: `$\^?`}, {text: `$\^1`}, {text: `$\^a`}, {text: `$\^Z`}, {text: `$\^ `}, {text: `$\^~`},
		{text: `$\^é`}, {text: `"\^?\^@\^["`}, {text: `'\^?'`}, {text: "$\\^\n"},
		{text: `"\x{D7FF}"`}, {text: `"\x{D800}"`}, {text: `"\x{DFFF}"`}, {text: `"a\x{FFFE}"`},
		{text: `"\x{FFFF}"`}, {text: `"\x{FFFD}\x{10000}\x{10FFFF}"`}, {text: `"\x{110000}"`},
		{text: `$\x{D800}`}, {text: `$\x{E000}`}, {text: "\"\uFFFE\""}, {text: "$\uFFFF"},
		{text: `'\x{D800}'`}, {text: `"\777"`}, {text: `'\777'`},
		{text: "<<0:0>>"}, {text: "<<0:0,1>>"}, {text: "<<1,0:0>>"}, {text: `<<"ab",0:0>>`},
		{text: "<<1:1>>"}, {text: "<<1,5:3>>"}, {text: "<<>>"},
		{text: "[1|[2|[3|x]]]"}, {text: "[1|[2,3|[[]|{}]]]"}, {text: "[1|[]]"}, {text: "[[1|[2]]|[[3|[]]]]"},
		// The bit syntax.
		{text: `<<"héllo"/utf8>>`}, {text: `<<"héllo">>`}, {text: "<<16#123:12/little>>"},
		{text: "<<16#12345:20/little>>"}, {text: "<<-1:12/little-signed>>"}, {text: "<<-1:16/signed>>"},
		{text: "<<1.5:32/float-little>>"}, {text: "<<1.5/float>>"}, {text: "<<7/float>>"},
		{text: `<<"a😀"/utf16>>`}, {text: `<<"a"/utf16-little>>`}, {text: `<<"a"/utf32-little>>`},
		{text: `<<"ab":4/unit:2>>`}, {text: `<<"ab":16>>`}, {text: "<<1:4,2:4>>"}, {text: "<<1:3,2>>"},
		{text: `<<"ab" "c">>`}, {text: "<<$a/utf8,955/utf32,16#10FFFF/utf8>>"}, {text: "<<0:65/signed>>"},
		{text: "<<16#0102030405060708090A:80/little>>"}, {text: "<<-2:72/signed-big>>"},
		{text: "<<-1267650600228229401496703205376:101/signed>>"}, {text: "<<1:16/unsigned-integer-unit:2>>"},
		{text: "<<16#D800/utf8>>"}, {text: "<<1/utf8-float>>"}, {text: "<<1.0>>"},
		{text: `"\e\d\s"`}, {text: `<<"\e\d",$\s>>`},
		// Parse refuses what Erlang truncates; it reads U+FFFE and U+FFFF
		// in quoted atoms, which Erlang refuses, so that every atom prints.
		{text: "<<256>>", departs: true}, {text: "<<8:3>>", departs: true}, {text: "<<1:0>>", departs: true},
		{text: `'\x{FFFE}'`, departs: true}, {text: "'\uFFFF'", departs: true},
		// Parse refuses what Erlang truncates, native byte order and
		// 16-bit floats; it reads the patterns <<P,_/binary>> and "P" ++ T,
		// which a term reader does not.
		{text: `<<"a":3>>`, departs: true}, {text: "<<-1>>", departs: true}, {text: "<<1/native>>", departs: true},
		{text: "<<1.5:16/float>>", departs: true},
		{text: `<<"a",_/binary>>`, departs: true}, {text: `"ab" ++ '_'`, departs: true},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		erl, err := vm.Eval(ctx, read, map[string]term.Term{"B": term.Binary([]byte(c.text + "."))})
		cancel()
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		got, perr := term.Parse(c.text)
		erlOK := erl.Kind() == term.KindTuple
		switch {
		case c.departs:
			if agree := perr != nil && !erlOK || perr == nil && erlOK && term.Equal(got, erl.Elems()[1]); agree {
				t.Errorf("%q: Parse gives %v, %v; Erlang %v: want the documented departure", c.text, got, perr, erl)
			}
		case !erlOK && perr == nil:
			t.Errorf("%q: Erlang refuses it, Parse gives %v", c.text, got)
		case erlOK && perr != nil:
			t.Errorf("%q: Erlang reads %v, Parse refuses it: %v", c.text, erl.Elems()[1], perr)
		case erlOK && !term.Equal(got, erl.Elems()[1]):
			t.Errorf("%q: Erlang reads %v, Parse %v", c.text, erl.Elems()[1], got)
		}
	}
}
