package main

import (
	"strings"
	"testing"
)

// TestPrintFlag: every command prints terms as Erlang's ~p by default
// (printable binaries and lists as strings), --print=w as ~w (numbers),
// --print=unicode as ~p with every Unicode character printable; a bad
// form is a usage error.
func TestPrintFlag(t *testing.T) {
	key := runSext(t, "", "encode", `{user,42,<<"alice">>,"ab",<<"héllo"/utf8>>,<<"λ"/utf8>>,"λ"}`)
	key.want(t, 0, key.stdout)
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, `{user,42,<<"alice">>,"ab",<<"héllo"/utf8>>,<<206,187>>,[955]}`},
		{[]string{"--print=p"}, `{user,42,<<"alice">>,"ab",<<"héllo"/utf8>>,<<206,187>>,[955]}`},
		{[]string{"--print", "w"}, "{user,42,<<97,108,105,99,101>>,[97,98],<<104,195,169,108,108,111>>,<<206,187>>,[955]}"},
		{[]string{"--print=unicode"}, `{user,42,<<"alice">>,"ab",<<"héllo"/utf8>>,<<"λ"/utf8>>,"λ"}`},
	} {
		args := append(append([]string{"decode"}, c.flags...), strings.TrimSpace(key.stdout))
		runSext(t, "", args...).want(t, 0, lines(c.want))
	}
	// The text of each form reads back as the same term.
	for _, f := range []string{"p", "w", "unicode"} {
		text := runSext(t, key.stdout, "decode", "--print="+f).stdout
		runSext(t, text, "encode").want(t, 0, key.stdout)
	}
	in := lines(`"ba"`, "<<1>>", `<<"a">>`)
	runSext(t, in, "sort").want(t, 0, lines(`"ba"`, "<<1>>", `<<"a">>`))
	runSext(t, in, "sort", "--print=w").want(t, 0, lines("[98,97]", "<<1>>", "<<97>>"))
	runSext(t, "", "match", "{user,'$1'}", `{user,<<"x">>}`).want(t, 0, lines(`$1 = <<"x">>`))
	runSext(t, "", "match", "--print=w", "{user,'$1'}", `{user,"x"}`).want(t, 0, lines("$1 = [120]"))
	etf := runSext(t, "", "etf", "encode", `<<"hi">>`).stdout
	runSext(t, etf, "etf", "decode").want(t, 0, lines(`<<"hi">>`))
	runSext(t, etf, "etf", "decode", "--print=w").want(t, 0, lines("<<104,105>>"))
	runSext(t, "", "decode", "--print=x", "00").want(t, 2, "", `invalid value "x" for flag -print: must be one of p, w, unicode`)
	if h := runSext(t, "", "help", "decode").stdout; !strings.Contains(h, "--print FORM") || !strings.Contains(h, "(default p)") {
		t.Errorf("help decode does not show --print:\n%s", h)
	}
}
