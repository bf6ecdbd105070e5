package main

import (
	"errors"
	"testing"

	"github.com/erlsext/sext/term"
)

// TestParsePattern: a bare _ is the wildcard '_' wherever it stands in a
// pattern, a named variable is still refused, and an error after some _
// names the offset and column of the text as written.
func TestParsePattern(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // the pattern, as parsed from its quoted form; "" for an error
		off  int    // the error's offset
		col  int    // and column
	}{
		{in: "_", want: "'_'"},
		{in: " _ ", want: "'_'"},
		{in: "{order, _, _, 7}", want: "{order,'_','_',7}"},
		{in: "[_|_]", want: "['_'|'_']"},
		{in: "#{a => _}", want: "#{a => '_'}"},
		{in: "#Desc<_>", want: "#Desc<'_'>"},
		{in: "{'_', _, '$1'}", want: "{'_','_','$1'}"},
		{in: "{a_b, \"_\", $_}", want: "{a_b,\"_\",$_}"},
		{in: "{user, <<\"ali\", _/binary>>, _}", want: "{user,<<\"ali\",_/binary>>,'_'}"},
		{in: "_X", off: 0, col: 1},
		{in: "{_, X}", off: 4, col: 5},
		{in: "{_, _, ]", off: 7, col: 8},
		{in: "{_,\n _, ]", off: 8, col: 5},
		{in: "{_, _1}", off: 4, col: 5},
	} {
		got, err := parsePattern(c.in, term.ParseOptions{})
		if c.want == "" {
			var se *term.SyntaxError
			if !errors.As(err, &se) || se.Offset != c.off || se.Column != c.col {
				t.Errorf("parsePattern(%q) = %v, %v; want an error at offset %d, column %d", c.in, got, err, c.off, c.col)
			}
			continue
		}
		want, werr := term.Parse(c.want)
		if werr != nil {
			t.Fatalf("Parse(%q): %v", c.want, werr)
		}
		if err != nil || !term.Equal(got, want) {
			t.Errorf("parsePattern(%q) = %v, %v; want %v", c.in, got, err, want)
		}
	}
	// Past the bound, the next _ is refused as the parser refuses it.
	many := "["
	for i := range maxBareWildcards + 1 {
		if i > 0 {
			many += ","
		}
		many += "_"
	}
	if _, err := parsePattern(many+"]", term.ParseOptions{}); err == nil {
		t.Errorf("%d bare _: no error", maxBareWildcards+1)
	}
	if _, err := parsePattern(many[:len(many)-2]+"]", term.ParseOptions{}); err != nil {
		t.Errorf("%d bare _: %v", maxBareWildcards, err)
	}
}
