package term

import "testing"

// TestPrintStrings checks how P and W write lists and binaries, the one
// place the two formats differ: printability as io_lib decides it, the
// escapes, UTF-8 against Latin-1 bytes, and the Unicode range.
func TestPrintStrings(t *testing.T) {
	chars := func(cs ...rune) Term {
		l := make([]Term, len(cs))
		for i, c := range cs {
			l[i] = Int(int64(c))
		}
		return List(l...)
	}
	uni := P.WithPrintableRange(Unicode)
	tests := []struct {
		t       Term
		p, w, u string // u: P with the Unicode range, when not p
	}{
		{chars('a', 'b'), `"ab"`, "[97,98]", ""},
		{List(), "[]", "[]", ""},
		{chars('a', '"', '\\', '\''), `"a\"\\'"`, `[97,34,92,39]`, ""},
		{chars('\n', '\r', '\t', '\v', '\b', '\f', 0x1B), `"\n\r\t\v\b\f\e"`, "[10,13,9,11,8,12,27]", ""},
		{chars('a', 0x7F), "[97,127]", "[97,127]", ""},
		{chars('a', 0), "[97,0]", "[97,0]", ""},
		{chars(0x9F), "[159]", "[159]", ""},
		{chars(0xA0, 0xE9, 0xFF), "\"\u00a0éÿ\"", "[160,233,255]", ""},
		{chars('λ'), "[955]", "[955]", `"λ"`},
		{chars('a', 0xD800), "[97,55296]", "[97,55296]", ""},
		{chars(0xFFFE), "[65534]", "[65534]", ""},
		{chars(0x10FFFF), "[1114111]", "[1114111]", "\"\U0010FFFF\""},
		{List(Int(-1)), "[-1]", "[-1]", ""},
		{ImproperList([]Term{Int('a')}, Int('b')), "[97|98]", "[97|98]", ""},
		{List(chars('a'), Int('b')), `["a",98]`, "[[97],98]", ""},
		{Tuple(chars('x'), Map(MapEntry{chars('k'), chars('v')})), `{"x",#{"k" => "v"}}`, "{[120],#{[107] => [118]}}", ""},
		{Binary([]byte("alice")), `<<"alice">>`, "<<97,108,105,99,101>>", ""},
		{Binary([]byte("héllo")), `<<"héllo"/utf8>>`, "<<104,195,169,108,108,111>>", ""},
		{Binary([]byte{'h', 0xE9}), `<<"hé">>`, "<<104,233>>", ""},
		{Binary([]byte("λ")), "<<206,187>>", "<<206,187>>", `<<"λ"/utf8>>`},
		{Binary([]byte{0xC2, 0x80}), "<<194,128>>", "<<194,128>>", ""},
		{Binary([]byte{0xC2, 0xA0}), "<<\"\u00a0\"/utf8>>", "<<194,160>>", ""},
		{Binary([]byte("a\x00")), "<<97,0>>", "<<97,0>>", ""},
		{Binary([]byte("a\x7F")), "<<97,127>>", "<<97,127>>", ""},
		{Binary([]byte("a\"\n\\")), `<<"a\"\n\\">>`, "<<97,34,10,92>>", ""},
		{Binary([]byte{0xED, 0xA0, 0x80}), "<<237,160,128>>", "<<237,160,128>>", ""},
		{Binary([]byte{0xED, 0xA0, 0xA0}), "<<\"í\u00a0\u00a0\">>", "<<237,160,160>>", ""},
		{Bitstring([]byte("ab"), 15), "<<97,49:7>>", "<<97,49:7>>", ""},
		{Binary(nil), "<<>>", "<<>>", ""},
	}
	for _, tt := range tests {
		if tt.u == "" {
			tt.u = tt.p
		}
		for _, c := range []struct {
			name string
			f    *Format
			want string
		}{{"P", P, tt.p}, {"W", W, tt.w}, {"P with Unicode", uni, tt.u}} {
			got, err := c.f.AppendText(nil, tt.t)
			if err != nil || string(got) != c.want {
				t.Errorf("%s of %s: %s, %v; want %s", c.name, W.Text(tt.t), got, err, c.want)
			}
			if back, err := Parse(string(got)); err != nil || !Equal(back, tt.t) {
				t.Errorf("Parse(%s) = %v, %v", got, back, err)
			}
		}
		if s := tt.t.String(); s != tt.p {
			t.Errorf("String of %s: %s, want P's %s", W.Text(tt.t), s, tt.p)
		}
	}
	if W.WithPrintableRange(Unicode).Text(chars('λ')) != "[955]" {
		t.Error("W with the Unicode range wrote a string")
	}
}
