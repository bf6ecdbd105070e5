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
// (\^?, \^1, surrogates, U+FFFE, <<0:0>>), list tails; and the departures
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
		// Parse refuses what Erlang truncates; it reads U+FFFE and U+FFFF
		// in quoted atoms, which Erlang refuses, so that every atom prints.
		{text: "<<256>>", departs: true}, {text: "<<8:3>>", departs: true}, {text: "<<1:0>>", departs: true},
		{text: `'\x{FFFE}'`, departs: true}, {text: "'\uFFFF'", departs: true},
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
