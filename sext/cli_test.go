package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/term"
)

// The tests run the command as a subprocess, end to end, as a user would.
// The command is this test binary: started with asCommandEnv set, it runs
// main instead of the tests, which spares a build of the command (a
// compile and a link, 4 s of CPU). A race build builds the command apart,
// without the detector, as a user would: the crash tests time their
// kills by the command's progress, which the detector slows several
// times.

// asCommandEnv, set to 1, makes the test binary the command.
const asCommandEnv = "SEXT_TEST_RUN_COMMAND"

var (
	sextBin string // the command
	testDir string // a directory for the tests, removed when they end
)

func TestMain(m *testing.M) {
	if os.Getenv(asCommandEnv) == "1" {
		main() // exits
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sext-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testDir = dir
	if raceBuild {
		sextBin = filepath.Join(dir, "sext")
		build := exec.Command("go", "build", "-o", sextBin, ".")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building sext:", err)
			return 1
		}
	} else {
		if sextBin, err = os.Executable(); err != nil {
			fmt.Fprintln(os.Stderr, "the test binary's path:", err)
			return 1
		}
		os.Setenv(asCommandEnv, "1") // inherited by every command a test starts
	}
	return m.Run()
}

type result struct {
	stdout, stderr string
	code           int
}

// runSext runs the command with stdin and args.
func runSext(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return sextBytes(t, []byte(stdin), args...)
}

func sextBytes(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(sextBin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running sext %q: %v", args, err)
		}
		code = ee.ExitCode()
	}
	r := result{out.String(), errb.String(), code}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("sext %q panicked:\n%s", args, r.stderr)
	}
	return r
}

// want checks the exit status and stdout, and that stderr holds each of
// the fragments (an empty list: stderr must be empty).
func (r result) want(t *testing.T, code int, stdout string, stderr ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d\nstdout: %q\nstderr: %q", r.code, code, r.stdout, r.stderr)
	}
	if r.stdout != stdout {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.stdout, stdout)
	}
	if len(stderr) == 0 && r.stderr != "" {
		t.Errorf("unexpected stderr: %q", r.stderr)
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q does not contain %q", r.stderr, s)
		}
	}
}

func lines(s ...string) string {
	if len(s) == 0 {
		return ""
	}
	return strings.Join(s, "\n") + "\n"
}

// column reads one TAB-separated column of a testdata file.
func column(t *testing.T, file string, col int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		out = append(out, strings.Split(l, "\t")[col])
	}
	return out
}

func upper(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s)
	}
	return out
}

// sameTerms checks that each line of got parses to a term equal to the
// term text in want.
func sameTerms(t *testing.T, got string, want []string) {
	t.Helper()
	gl := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(gl) != len(want) {
		t.Fatalf("%d lines, want %d", len(gl), len(want))
	}
	for i := range want {
		g, err1 := term.Parse(gl[i])
		w, err2 := term.Parse(want[i])
		if err1 != nil || err2 != nil || !term.Equal(g, w) {
			t.Errorf("line %d: got %s, want %s (%v, %v)", i+1, gl[i], want[i], err1, err2)
		}
	}
}

func TestHelp(t *testing.T) {
	r := runSext(t, "", "help")
	r.want(t, 0, r.stdout)
	for _, c := range []string{"encode", "decode", "prefix", "match", "sort", "compare"} {
		if !strings.Contains(r.stdout, "\n  "+c+" ") {
			t.Errorf("sext help does not list %s:\n%s", c, r.stdout)
		}
		h := runSext(t, "", "help", c)
		h.want(t, 0, h.stdout)
		if !strings.HasPrefix(h.stdout, "usage: sext "+c) {
			t.Errorf("sext help %s:\n%s", c, h.stdout)
		}
		runSext(t, "", c, "-h").want(t, 0, h.stdout)
		runSext(t, "", c, "--help").want(t, 0, h.stdout)
	}
	// Help for a command that does not exist is a usage error, not help.
	if r := runSext(t, "", "help", "frob"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "frob"`) {
		t.Errorf("sext help frob: status %d, stderr %q", r.code, r.stderr)
	}
	enc := runSext(t, "", "help", "encode").stdout
	for _, f := range []string{"--format", "--utf8-atoms", "--legacy", "--desc"} {
		if !strings.Contains(enc, f) {
			t.Errorf("encode help lacks %s", f)
		}
	}
	// No command: the list, status 2. Unknown command and flag: status 2.
	if r := runSext(t, ""); r.code != 2 || !strings.Contains(r.stdout, "commands:") {
		t.Errorf("sext with no command: %+v", r)
	}
	if r := runSext(t, "", "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "unknown command") {
		t.Errorf("unknown command: %+v", r)
	}
	runSext(t, "", "encode", "--bogus", "a").want(t, 2, "", "flag provided but not defined", "usage: sext encode")
	runSext(t, "", "encode", "--format=xml", "a").want(t, 2, "", "must be one of hex, sb32, raw")
	runSext(t, "", "decode", "--decoder=magic", "0A00000002").want(t, 2, "", "recursive, cps")
	runSext(t, "", "decode", "--max-depth", "-1", "0A00000002").want(t, 2, "", "must not be negative")
}

func TestEncodeVectors(t *testing.T) {
	terms, hex := column(t, "encode.tsv", 0), upper(column(t, "encode.tsv", 1))
	runSext(t, lines(terms...), "encode").want(t, 0, lines(hex...))
	// Either case of hex decodes, with both decoders.
	for _, dec := range []string{"cps", "recursive"} {
		r := runSext(t, strings.ToLower(lines(hex...)), "decode", "--decoder="+dec)
		r.want(t, 0, r.stdout)
		sameTerms(t, r.stdout, terms)
	}
	// A few as arguments.
	runSext(t, "", "encode", terms[0], terms[1], terms[2]).want(t, 0, lines(hex[:3]...))
	runSext(t, "", "decode", hex[0], hex[1], hex[2]).want(t, 0, lines(terms[:3]...))
}

func TestEncodeFormats(t *testing.T) {
	terms, sb := column(t, "sb32.tsv", 0), column(t, "sb32.tsv", 1)
	runSext(t, lines(terms...), "encode", "--format=sb32").want(t, 0, lines(sb...))
	r := runSext(t, lines(sb...), "decode", "--format", "sb32")
	r.want(t, 0, r.stdout)
	sameTerms(t, r.stdout, terms)
	runSext(t, lines(terms...), "encode", "--format=hex").want(t, 0, lines(column(t, "sb32.tsv", 2)...))

	rev, revHex := column(t, "reverse.tsv", 0), upper(column(t, "reverse.tsv", 1))
	runSext(t, lines(rev...), "encode", "--desc").want(t, 0, lines(revHex...))
	r = runSext(t, lines(revHex...), "decode")
	r.want(t, 0, r.stdout)
	wantDesc := make([]string, len(rev))
	for i, s := range rev {
		wantDesc[i] = "#Desc<" + s + ">"
	}
	sameTerms(t, r.stdout, wantDesc)

	leg, legHex := column(t, "legacy.tsv", 0), upper(column(t, "legacy.tsv", 1))
	runSext(t, lines(leg...), "encode", "--legacy").want(t, 0, lines(legHex...))
	runSext(t, lines(legHex...), "decode").want(t, 0, lines(leg...))
	if r := runSext(t, "", "encode", "2147483648"); r.stdout == lines(legHex[0]) {
		t.Errorf("encode without --legacy wrote the legacy layout")
	}
}

func TestNegativeAndMisplacedArgs(t *testing.T) {
	runSext(t, "", "encode", "-1").want(t, 0, lines("09FFFFFFFD"))
	runSext(t, "", "encode", "--format=sb32", "-1").want(t, 0, lines("17VVVVVT"))
	runSext(t, "", "encode", "--", "-1").want(t, 0, lines("09FFFFFFFD"))
	runSext(t, "", "encode", "1", "--desc").want(t, 1, lines("0A00000002"), "argument 2", "flags must come before")
}

func TestBadLines(t *testing.T) {
	in := "{a,1}\n\n{b,\n\"ab\"\r\n[1,,2]\n-1\n"
	runSext(t, in, "encode").want(t, 1,
		lines("10000000020CB080080A00000002", "110A000000C20A000000C402", "09FFFFFFFD"),
		"sext: line 3: column 4: ", "sext: line 5: column 4: unexpected ','")
	hex := "0A00000002\nZZ\n10000000020CB08008\n0A0000000\n  0a00000004  \n0A00000002FF\n"
	runSext(t, hex, "decode").want(t, 1, lines("1", "2"),
		"sext: line 2: column 1: invalid text encoding",
		"sext: line 3: byte 9: truncated input",
		"sext: line 4: column 10: invalid text encoding: odd length",
		"sext: line 6: byte 5: trailing bytes")
	runSext(t, "0A00000002\n17VVVVVT\n17VVVV!T\n", "decode", "--format=sb32").want(t, 1, lines("-1"),
		"sext: line 1: column 11: invalid text encoding", "sext: line 3: column 7: invalid text encoding: not an sb32 digit")
	runSext(t, "", "decode", "0A00000002", "0B").want(t, 1, lines("1"), "sext: argument 2: byte 1: truncated input")
	// Every invalid vector is refused with one message a line.
	data, err := os.ReadFile("../testdata/invalid.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(string(data), "\n")
	for _, dec := range []string{"cps", "recursive"} {
		r := sextBytes(t, data, "decode", "--decoder", dec)
		r.want(t, 1, "", "sext: line 1: byte ")
		if got := strings.Count(r.stderr, "\nsext: line ") + 1; got != n {
			t.Errorf("%s: %d error lines for %d invalid inputs", dec, got, n)
		}
	}
	runSext(t, "{x\n", "prefix").want(t, 1, "", "sext: line 1: column 3: ")
	runSext(t, "[1,2]\n[\n", "sort").want(t, 1, lines("[1,2]"), "sext: line 2: column 2: ")
	runSext(t, "", "encode", "'Ω'").want(t, 1, "", "argument 1: ", "--utf8-atoms")
}

func TestRaw(t *testing.T) {
	const tm = `{a,<<1,2,10,13,0,255>>,[10|"\n"],-12345678901234567890}`
	enc := runSext(t, "", "encode", "--format=raw", tm)
	enc.want(t, 0, enc.stdout)
	hex := runSext(t, "", "encode", tm).stdout
	if got := fmt.Sprintf("%X\n", enc.stdout); got != hex {
		t.Fatalf("raw %s, hex %s", got, hex)
	}
	r := runSext(t, enc.stdout, "decode", "--format=raw")
	r.want(t, 0, r.stdout)
	sameTerms(t, r.stdout, []string{tm})
	runSext(t, enc.stdout, "decode", "--format=raw", "--decoder=recursive").want(t, 0, r.stdout)
	// From stdin too; exactly one term.
	runSext(t, "\n"+tm+"\n", "encode", "--format=raw").want(t, 0, enc.stdout)
	runSext(t, "", "encode", "--format=raw", "a", "b").want(t, 2, "", "exactly one term")
	runSext(t, "a\nb\n", "encode", "--format=raw").want(t, 2, "", "exactly one term")
	runSext(t, "", "encode", "--format=raw").want(t, 2, "", "exactly one term")
	runSext(t, "", "encode", "--format=raw", "{").want(t, 1, "", "argument 1: column 2")
	runSext(t, enc.stdout, "decode", "--format=raw", "0A").want(t, 2, "", "no arguments")
	runSext(t, enc.stdout[:9], "decode", "--format=raw").want(t, 1, "", "sext: input: byte ")
	runSext(t, "", "prefix", "--format=raw", "{a,'_'}").want(t, 0, "\x10\x00\x00\x00\x02\x0c\xb0\x80\x08")
}

func TestPrefix(t *testing.T) {
	pats, hex := column(t, "prefix.tsv", 0), upper(column(t, "prefix.tsv", 1))
	runSext(t, lines(pats...), "prefix").want(t, 0, lines(hex...))
	pats, sb := column(t, "prefix_sb32.tsv", 0), column(t, "prefix_sb32.tsv", 1)
	runSext(t, lines(pats...), "prefix", "--format=sb32").want(t, 0, lines(sb...))

	runSext(t, "", "prefix", "--range", "{a,'_'}").want(t, 0, lines("10000000020CB08008", "10000000020CB08009"))
	runSext(t, "", "prefix", "--range", "'_'").want(t, 0, "\n\n")
	runSext(t, "'$1'\n", "prefix", "--range").want(t, 0, "\n\n")
	runSext(t, "", "prefix", "--range", "{a,'_'}", "'_'", "[1|'_']").want(t, 0,
		lines("10000000020CB08008", "10000000020CB08009", "", "", "110A00000002", "110A00000003"))
	runSext(t, "", "prefix", "--range", "--format=sb32", "{a,'_'}", "'_'").want(t, 0,
		lines("200000021IO802", "200000021IO803", "", ""))
	if got := sb32Successor("0V9V"); got != "0VA" {
		t.Errorf("sb32Successor: %q", got)
	}
	if got := sb32Successor("VV"); got != "" {
		t.Errorf("sb32Successor: %q", got)
	}
	runSext(t, "", "prefix", "--range", "--format=raw", "a").want(t, 2, "", "--range")
	runSext(t, "", "prefix", "--utf8-atoms", "{'Ω','_'}").want(t, 0, lines("10000000020CE76A4008"))
	runSext(t, "", "prefix", "{'Ω','_'}").want(t, 1, "", "--utf8-atoms")
	// A bare _ is the wildcard, as in an Erlang pattern.
	runSext(t, "", "prefix", "--range", "_").want(t, 0, "\n\n")
	runSext(t, "{a, _}\n", "prefix", "--range").want(t, 0, lines("10000000020CB08008", "10000000020CB08009"))
	runSext(t, "", "prefix", "{a, _X}").want(t, 1, "", "column 5: variable _X is not a term")
}

func TestUTF8Atoms(t *testing.T) {
	runSext(t, "", "encode", "--utf8-atoms", "'Ω'").want(t, 0, lines("0CE76A4008"))
	runSext(t, "", "decode", "--utf8-atoms", "0CE76A4008").want(t, 0, lines("'Ω'"))
	runSext(t, "", "encode", "'ü'").want(t, 0, lines("0CFE0008"))
	runSext(t, "", "decode", "0CFE0008").want(t, 0, lines("ü"))
	if r := runSext(t, "", "encode", "--utf8-atoms", "'ü'"); r.stdout == lines("0CFE0008") || r.code != 0 {
		t.Errorf("--utf8-atoms made no difference: %+v", r)
	}
}

func TestMatch(t *testing.T) {
	runSext(t, "", "match", "{user,'$1',['$2'|'_']}", "{user,42,[a,b,c]}").want(t, 0, lines("$1 = 42", "$2 = a"))
	runSext(t, "", "match", "{'$1','$1'}", "{x,x}").want(t, 0, lines("$1 = x"))
	runSext(t, "", "match", "'_'", "{x,x}").want(t, 0, "")
	runSext(t, "", "match", "_", "{x,x}").want(t, 0, "")
	runSext(t, "", "match", "{user, _, '$1'}", "{user,42,x}").want(t, 0, lines("$1 = x"))
	runSext(t, "", "match", "a", "_").want(t, 2, "", "TERM: column 1: variable _ is not a term")
	runSext(t, "", "match", "-1", "-1").want(t, 0, "")
	runSext(t, "", "match", "{'$1','$1'}", "{x,y}").want(t, 1, "", "no match")
	runSext(t, "", "match", "{a,'_'}", "{a,b,c}").want(t, 1, "", "no match")
	runSext(t, "", "match", "{a,", "a").want(t, 2, "", "PATTERN: column 4")
	runSext(t, "", "match", "a", "]").want(t, 2, "", "TERM: column 1")
	runSext(t, "", "match", "a").want(t, 2, "", "usage: sext match")
	runSext(t, "", "match", "a", "b", "c").want(t, 2, "", "usage: sext match")
}

func TestSort(t *testing.T) {
	in := lines("{b,1}", "2", `"ab"`, "a", "1.0", "1", "#Desc<1>", "<<>>", "#Desc<2>", "-1.0", "a")
	runSext(t, in, "sort").want(t, 0,
		lines("#Desc<2>", "#Desc<1>", "-1.0", "1", "1.0", "2", "a", "a", "{b,1}", `"ab"`, "<<>>"))
	runSext(t, in, "sort", "--reverse", "--unique").want(t, 0,
		lines("<<>>", `"ab"`, "{b,1}", "a", "2", "1.0", "1", "-1.0", "#Desc<1>", "#Desc<2>"))
	// The order.txt vectors come back in order from shuffled input.
	order := column(t, "order.txt", 0)
	shuffled := make([]string, 0, len(order))
	for i := len(order) - 1; i >= 0; i -= 2 {
		shuffled = append(shuffled, order[i])
	}
	for i := 0; i < len(order); i += 2 {
		shuffled = append(shuffled, order[i])
	}
	r := runSext(t, lines(shuffled...), "sort")
	r.want(t, 0, r.stdout)
	sameTerms(t, r.stdout, order)
	runSext(t, "a\n", "sort", "x").want(t, 2, "", "no arguments")
}

func TestCompare(t *testing.T) {
	runSext(t, "", "compare", "1", "1.0").want(t, 0, lines("-1"))
	runSext(t, "", "compare", "{a,1}", "{a,1}").want(t, 0, lines("0"))
	runSext(t, "", "compare", "b", "a").want(t, 0, lines("1"))
	runSext(t, "", "compare", "-2", "-1").want(t, 0, lines("-1"))
	runSext(t, "", "compare", "#Desc<1>", "#Desc<2>").want(t, 0, lines("1"))
	runSext(t, "", "compare", "a").want(t, 2, "", "usage: sext compare")
	runSext(t, "", "compare", "a", "{").want(t, 2, "", "B: column 2")
}

func TestCanonicalAndDepth(t *testing.T) {
	legacy := "0bc0402010000800" // 2147483648, pre-2013 bignum
	runSext(t, "", "decode", legacy).want(t, 0, lines("2147483648"))
	runSext(t, "", "decode", "--canonical", legacy).want(t, 1, "", "argument 1: byte ", "not canonical")
	runSext(t, legacy+"\n0A00000002\n", "decode", "--canonical").want(t, 1, lines("1"), "line 1: ")

	deep := runSext(t, "", "encode", strings.Repeat("[", 10)+strings.Repeat("]", 10)).stdout
	for _, dec := range []string{"cps", "recursive"} {
		runSext(t, deep, "decode", "--max-depth", "5", "--decoder", dec).want(t, 1, "", "line 1: byte 5: nesting too deep")
		runSext(t, deep, "decode", "--max-depth=10", "--decoder", dec).want(t, 0, lines(strings.Repeat("[", 10)+strings.Repeat("]", 10)))
	}
}

// Hostile input gets an error and a non-zero status, quickly.
func TestHostile(t *testing.T) {
	start := time.Now()
	deepHex := strings.Repeat("11", 1_000_000) + "\n0A00000002\n"
	for _, dec := range []string{"cps", "recursive"} {
		runSext(t, deepHex, "decode", "--decoder="+dec).want(t, 1, lines("1"), "line 1: byte 10000: nesting too deep")
	}
	// --max-depth passes to the recursive decoder no deeper than its
	// ceiling: an error, not a stack overflow that ends the process.
	runSext(t, deepHex, "decode", "--decoder=recursive", "--max-depth=100000000").want(t, 1, lines("1"), "line 1: byte 100000: nesting too deep")
	brackets := strings.Repeat("[", 1_000_000) + "\n"
	runSext(t, brackets+"a\n", "encode").want(t, 1, lines("0CB08008"), "line 1: column 10001: nesting")
	runSext(t, brackets, "prefix").want(t, 1, "", "line 1: column 10001: nesting")
	runSext(t, brackets, "sort").want(t, 1, "", "line 1: column 10001: nesting")
	runSext(t, "", "compare", strings.Repeat("{", 100_000), "a").want(t, 2, "", "A: column 10001: nesting")
	runSext(t, "", "match", strings.Repeat("[", 100_000), "a").want(t, 2, "", "PATTERN: column 10001: nesting")
	// A tuple that claims 2^32-1 elements.
	runSext(t, "", "decode", "10FFFFFFFF").want(t, 1, "", "argument 1: byte ")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("hostile inputs took %v", d)
	}
}

// Lines have no length limit: 64 MB and more (16 MB and more in a quick
// run, testsize). The test runs beside the etcd tests, which mostly wait.
func TestLongLines(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat(" ", testsize.Pick(16<<20, 64<<20))
	runSext(t, "a\n"+pad+"{a,1}\nb\n", "encode").want(t, 0,
		lines("0CB08008", "10000000020CB080080A00000002", "0CB10008"))
	runSext(t, pad+"0A00000002"+pad+"\n", "decode").want(t, 0, lines("1"))

	// A real term of 1 MB through encode and decode.
	data := bytes.Repeat([]byte{7}, 1<<20)
	text := "<<" + strings.TrimSuffix(strings.Repeat("7,", len(data)), ",") + ">>"
	enc := runSext(t, text+"\n", "encode")
	enc.want(t, 0, enc.stdout)
	if len(enc.stdout) < 2*len(data) {
		t.Fatalf("encoding of 1 MB binary is %d hex digits", len(enc.stdout))
	}
	runSext(t, enc.stdout, "decode").want(t, 0, text+"\n")
}

// The reference's sb32 text of [[]|{}] sorts after that of [[]], against
// the terms' order; --ordered-sb32 keeps the order and reads back.
func TestOrderedSB32(t *testing.T) {
	terms := lines("[[]|{}]", "[[]]")
	ref := runSext(t, terms, "encode", "--format=sb32")
	ord := runSext(t, terms, "encode", "--format=sb32", "--ordered-sb32")
	rs := strings.Fields(ref.stdout)
	ob := strings.Fields(ord.stdout)
	if len(rs) != 2 || len(ob) != 2 {
		t.Fatalf("encode: %q, %q", ref.stdout, ord.stdout)
	}
	if rs[0] < rs[1] {
		t.Errorf("the reference's sb32 now keeps the order (%s < %s): update the docs", rs[0], rs[1])
	}
	if ob[0] >= ob[1] {
		t.Errorf("--ordered-sb32 texts %s, %s do not sort as the terms", ob[0], ob[1])
	}
	runSext(t, ord.stdout, "decode", "--format=sb32", "--ordered-sb32").want(t, 0, terms)
	p := runSext(t, "", "prefix", "--format=sb32", "--ordered-sb32", "[[]|'_']")
	if p.code != 0 || !strings.HasPrefix(ob[0], strings.TrimSpace(p.stdout)) {
		t.Errorf("prefix %q is not a prefix of %s", p.stdout, ob[0])
	}
}

// TestMaxIntDigits: an integer longer than the parser's default limit,
// which decode prints, reads back through --max-int-digits.
func TestMaxIntDigits(t *testing.T) {
	long := strings.Repeat("9", 5000)
	if r := runSext(t, "", "encode", long); r.code != 1 || !strings.Contains(r.stderr, "MaxIntDigits") {
		t.Fatalf("encode of 5,000 digits by default: status %d, stderr %q", r.code, r.stderr)
	}
	for _, digits := range []string{"-1", "5000"} {
		enc := runSext(t, "", "encode", "--max-int-digits", digits, long)
		if enc.code != 0 {
			t.Fatalf("--max-int-digits %s: status %d, stderr %q", digits, enc.code, enc.stderr)
		}
		if dec := runSext(t, "", "decode", strings.TrimSpace(enc.stdout)); strings.TrimSpace(dec.stdout) != long {
			t.Fatalf("decode of the encoding: %q", dec.stdout[:min(40, len(dec.stdout))])
		}
		if r := runSext(t, "", "match", "--max-int-digits", digits, "'_'", long); r.code != 0 {
			t.Errorf("match --max-int-digits %s: status %d, stderr %q", digits, r.code, r.stderr)
		}
	}
}
