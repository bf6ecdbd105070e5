package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

var ctx = context.Background()

// buildDB returns the path of the command the tests run (see TestMain).
func buildDB(t *testing.T) string {
	t.Helper()
	if sextBin == "" {
		t.Fatal("no sext command: TestMain set none")
	}
	return sextBin
}

type dbResult struct {
	stdout, stderr string
	code           int
}

// execDB runs the built command with stdin and args.
func execDB(t *testing.T, stdin string, args ...string) dbResult {
	t.Helper()
	cmd := exec.Command(buildDB(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := dbResult{out.String(), errb.String(), 0}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running sext %q: %v", args, err)
		}
		r.code = ee.ExitCode()
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("sext %q panicked:\n%s", args, r.stderr)
	}
	return r
}

// expect checks the exit status, stdout (unless it is nil) and that
// stderr holds each fragment.
func (r dbResult) expect(t *testing.T, code int, stdout *string, stderr ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d\nstdout: %q\nstderr: %q", r.code, code, r.stdout, r.stderr)
	}
	if stdout != nil && r.stdout != *stdout {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, *stdout)
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q does not contain %q", r.stderr, s)
		}
	}
}

func text(lines ...string) *string {
	s := strings.Join(lines, "")
	return &s
}

func TestDBPutGetDel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	k := "{user, 42, <<\"alice\">>}"
	execDB(t, "", "db", "--dir", dir, "put", k, "hello world").expect(t, 0, text(""))
	execDB(t, "", "db", "--dir", dir, "put", "{user, 43}", "").expect(t, 0, text(""))
	execDB(t, "", "db", "--dir", dir, "get", k).expect(t, 0, text("hello world\n"))
	execDB(t, "", "db", "--dir", dir, "get", "{user,43}").expect(t, 0, text("\n"))
	execDB(t, "", "db", "--dir", dir, "get", "{user, 44}").expect(t, 1, text(""), "not found: {user,44}")
	execDB(t, "", "db", "--dir", dir, "del", k).expect(t, 0, text(""))
	execDB(t, "", "db", "--dir", dir, "del", k).expect(t, 0, text("")) // not there: fine
	execDB(t, "", "db", "--dir", dir, "get", k).expect(t, 1, text(""), "not found")
	execDB(t, "", "db", "--dir", dir, "scan", "'_'").expect(t, 0, text("{user,43}\t\n"))
	// A bare _ is the wildcard in a pattern, as in Erlang; a TERM is no
	// pattern.
	execDB(t, "", "db", "--dir", dir, "scan", "_").expect(t, 0, text("{user,43}\t\n"))
	execDB(t, "", "db", "--dir", dir, "scan", "{user, _}", "--to", "_").expect(t, 0, text("{user,43}\t\n"))
	execDB(t, "", "db", "--dir", dir, "select", "[{{user, _}, [], ['$_']}]").expect(t, 0, text("{user,43}\t\n"))
	execDB(t, "", "db", "--dir", dir, "get", "_").expect(t, 2, text(""), "TERM: column 1: variable _ is not a term")
	// Flags after the operands, and a negative number as a term.
	execDB(t, "", "db", "--dir", dir, "put", "-5", "minus five").expect(t, 0, text(""))
	execDB(t, "", "db", "--dir", dir, "get", "-5").expect(t, 0, text("minus five\n"))
}

// orderBook is a small order book as load lines, with its keys in term
// order.
func orderBook(n int) (lines string, keys []term.Term, values map[string]string) {
	var b strings.Builder
	values = map[string]string{}
	for id := range n {
		k := fmt.Sprintf("{order, %d, #Desc<%d>, %d}", id%5, 1000+(id*37)%400, id)
		v := fmt.Sprintf("%d.%02d", id%97, id%100)
		fmt.Fprintf(&b, "%s\t%s\n", k, v)
		t, _ := term.Parse(k)
		keys = append(keys, t)
		values[t.String()] = v
	}
	slices.SortFunc(keys, term.Compare)
	return b.String(), keys, values
}

func TestDBScan(t *testing.T) {
	dir := t.TempDir()
	data, keys, values := orderBook(300)
	execDB(t, data, "db", "--dir", dir, "load", "-").expect(t, 0, text(""), "stored 300 keys")

	expectScan := func(pattern string, reverse bool, limit int) string {
		p, err := term.Parse(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, k := range keys {
			if _, ok := sext.Match(p, k); ok {
				lines = append(lines, k.String()+"\t"+values[k.String()]+"\n")
			}
		}
		if reverse {
			slices.Reverse(lines)
		}
		if limit > 0 && len(lines) > limit {
			lines = lines[:limit]
		}
		return strings.Join(lines, "")
	}
	for _, c := range []struct {
		pattern string
		reverse bool
		limit   int
	}{
		{"'_'", false, 0},
		{"{order, 3, '_', '_'}", false, 0},
		{"{order, 3, '_', '_'}", true, 0},
		{"{order, 3, '_', '_'}", false, 4},
		{"{order, 3, '_', '_'}", true, 2},
		{"{order, '_', #Desc<1111>, '_'}", false, 0},
		{"{order, '$1', '_', '$1'}", false, 0},
		{"{order, 9, '_', '_'}", false, 0},
	} {
		args := []string{"db", "--dir", dir, "scan", c.pattern}
		if c.reverse {
			args = append(args, "--reverse")
		}
		if c.limit > 0 {
			args = append(args, "--limit", strconv.Itoa(c.limit))
		}
		want := expectScan(c.pattern, c.reverse, c.limit)
		if want == "" && c.pattern != "{order, 9, '_', '_'}" {
			t.Fatalf("pattern %s matches nothing: a weak test", c.pattern)
		}
		execDB(t, "", args...).expect(t, 0, &want)
		n := strconv.Itoa(strings.Count(want, "\n"))
		execDB(t, "", append(args, "--count")...).expect(t, 0, text(n+"\n"))
	}

	// A range: customer 2's orders from time 1300 back to 1100. The
	// newer time comes first, as #Desc sorts it.
	var want []string
	for _, k := range keys {
		e := k.Elems()
		c, ts := e[1].Int64(), e[2].Inner().Int64()
		if c == 2 && ts >= 1100 && ts <= 1300 {
			want = append(want, k.String()+"\t"+values[k.String()]+"\n")
		}
	}
	got := strings.Join(want, "")
	args := []string{"db", "--dir", dir, "scan", "{order, 2, #Desc<1300>, '_'}", "--to", "{order, 2, #Desc<1100>, '_'}"}
	execDB(t, "", args...).expect(t, 0, &got)
	execDB(t, "", append(args, "--count")...).expect(t, 0, text(strconv.Itoa(len(want))+"\n"))
	slices.Reverse(want)
	execDB(t, "", append(args, "--reverse", "--limit", "3")...).expect(t, 0, text(want[:3]...))
}

func TestDBLoad(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "db")
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "{k, %d, <<\"%d\">>}\tvalue %d\n", i, i*7, i)
		switch i {
		case 10:
			b.WriteString("{k, 10,, x}\tbad\n") // line 12
		case 5000:
			b.WriteString("no tab here\n") // line 5003
		case 7000:
			b.WriteString("\n") // blank: skipped quietly
		}
	}
	file := filepath.Join(tmp, "data.tsv")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execDB(t, "", "db", "--dir", dir, "load", "--batch", "3000", file)
	r.expect(t, 1, text(""), file+":12: column 8: unexpected ','", file+":5003: no TAB", "2 bad lines left out", "stored 10,000 keys")
	execDB(t, "", "db", "--dir", dir, "scan", "{k, '_', '_'}", "--count").expect(t, 0, text("10000\n"))
	execDB(t, "", "db", "--dir", dir, "get", "{k, 9999, <<\"69993\">>}").expect(t, 0, text("value 9999\n"))
	execDB(t, "", "db", "--dir", dir, "stats", "--exact").expect(t, 0, nil)

	// From stdin, with CRLF line ends (--crlf); a value keeps its inner TABs.
	execDB(t, "{s, 1}\ta\tb\r\n{s, 2}\tc\r\n", "db", "--dir", dir, "load", "--crlf", "-").expect(t, 0, text(""), "stored 2 keys")
	execDB(t, "", "db", "--dir", dir, "scan", "{s, '_'}").expect(t, 0, text("{s,1}\ta\tb\n", "{s,2}\tc\n"))

	execDB(t, "", "db", "--dir", dir, "load", filepath.Join(tmp, "missing.tsv")).expect(t, 1, text(""), "missing.tsv")
}

func TestDBStats(t *testing.T) {
	dir := t.TempDir()
	data, _, _ := orderBook(1000)
	execDB(t, data, "db", "--dir", dir, "load", "-").expect(t, 0, text(""))
	r := execDB(t, "", "db", "--dir", dir, "stats", "--exact")
	r.expect(t, 0, nil)
	for _, s := range []string{"backend    pebble\n", "dir        " + dir + "\n", "keys       1,000 data keys (counted in ", "disk       ", "tables     "} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stats output lacks %q:\n%s", s, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "entries") {
		t.Errorf("stats --exact of a store without indexes counts entries:\n%s", r.stdout)
	}
	r = execDB(t, "", "db", "--dir", dir, "stats")
	r.expect(t, 0, nil)
	if !strings.Contains(r.stdout, "keys       ~") || strings.Contains(r.stdout, "index") {
		t.Errorf("stats without --exact:\n%s", r.stdout)
	}

	// With an index, Pebble's estimate counts its entries too: the line
	// says so, and --exact counts each apart.
	execDB(t, "", "db", "--dir", dir, "index", "create", "oid", "{order, '_', '_', '$1'}").expect(t, 0, text(""))
	r = execDB(t, "", "db", "--dir", dir, "stats")
	r.expect(t, 0, nil)
	if !strings.Contains(r.stdout, " data keys and index entries together (1 index; estimated from flushed tables; --exact counts each)\n") {
		t.Errorf("stats with an index:\n%s", r.stdout)
	}
	r = execDB(t, "", "db", "--dir", dir, "stats", "--exact")
	r.expect(t, 0, nil)
	if !strings.Contains(r.stdout, "keys       1,000 data keys (counted in ") ||
		!strings.Contains(r.stdout, "entries    1,001 index entries and the index catalog (1 index, counted)\n") {
		t.Errorf("stats --exact with an index:\n%s", r.stdout)
	}
}

func TestDBErrors(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "db")
	execDB(t, "", "db", "--dir", dir, "put", "{a, 1}", "x").expect(t, 0, text(""))

	// Bad terms name the operand and the column.
	execDB(t, "", "db", "--dir", dir, "put", "{a,,1}", "x").expect(t, 2, text(""), "TERM: column 4: ")
	execDB(t, "", "db", "--dir", dir, "get", "{a, 1").expect(t, 2, text(""), "TERM: column 6: unexpected end of input")
	execDB(t, "", "db", "--dir", dir, "scan", "{a, _X}").expect(t, 2, text(""), "PATTERN: column 5: ")
	execDB(t, "", "db", "--dir", dir, "scan", "'_'", "--to", "[1 2]").expect(t, 2, text(""), "--to: column 4: ")
	execDB(t, "", "db", "--dir", dir, "put", "{a, 1.0e400}", "x").expect(t, 2, text(""), "TERM: column")

	// Usage.
	execDB(t, "", "db", "put", "a", "b").expect(t, 2, text(""), "--dir DIR is required")
	execDB(t, "", "db", "--dir", dir).expect(t, 2, text(""), "missing subcommand")
	execDB(t, "", "db", "--dir", dir, "frob").expect(t, 2, text(""), `unknown subcommand "frob"`)
	execDB(t, "", "db", "--dir", dir, "get").expect(t, 2, text(""), "want one TERM")
	execDB(t, "", "db", "--dir", dir, "scan", "'_'", "--limit", "-1").expect(t, 2, text(""), "--limit must not be negative")
	execDB(t, "", "db", "--dir", dir, "scan", "'_'", "--bogus").expect(t, 2, text(""), "flag provided but not defined")

	// Help, from both ends.
	r := execDB(t, "", "help", "db")
	r.expect(t, 0, nil)
	if !strings.HasPrefix(r.stdout, "usage: sext db") || !strings.Contains(r.stdout, "scan PATTERN") {
		t.Errorf("sext help db:\n%s", r.stdout)
	}
	r = execDB(t, "", "db", "scan", "--help")
	r.expect(t, 0, nil)
	if !strings.HasPrefix(r.stdout, "usage: sext db --dir DIR scan PATTERN") || !strings.Contains(r.stdout, "--reverse") {
		t.Errorf("sext db scan --help:\n%s", r.stdout)
	}
	if r := execDB(t, "", "help"); !strings.Contains(r.stdout, "\n  db ") || !strings.Contains(r.stdout, "\n  demo ") {
		t.Errorf("sext help does not list db and demo:\n%s", r.stdout)
	}
	// "sext help db SUB", where a subcommand's usage error sends the
	// user, prints that subcommand's own help, as "sext db SUB --help".
	var subs [][]string
	for name := range dbSubs {
		subs = append(subs, []string{name})
	}
	for name := range dbIndexSubs {
		subs = append(subs, []string{"index", name})
	}
	for _, sub := range subs {
		own := execDB(t, "", append(append([]string{"db"}, sub...), "--help")...)
		own.expect(t, 0, nil)
		want := "usage: sext db --dir DIR " + strings.Join(sub, " ")
		if sub[0] == "watch" {
			want = "usage: sext db --etcd ENDPOINTS watch"
		}
		if !strings.HasPrefix(own.stdout, want) {
			t.Errorf("sext db %s --help:\n%s", strings.Join(sub, " "), own.stdout)
		}
		execDB(t, "", append([]string{"help", "db"}, sub...)...).expect(t, 0, &own.stdout)
	}
	execDB(t, "", "help", "db", "frob").expect(t, 2, text(""), `unknown subcommand "frob"`)
	execDB(t, "", "help", "encode", "frob").expect(t, 2, text(""), "encode has no subcommands")
	if r := execDB(t, "", "help", "etf", "encode"); r.code != 0 || !strings.HasPrefix(r.stdout, "usage: sext etf encode") {
		t.Errorf("sext help etf encode: status %d\n%s", r.code, r.stdout)
	}

	// Missing directories.
	missing := filepath.Join(tmp, "absent")
	for _, sub := range [][]string{{"get", "a"}, {"del", "a"}, {"scan", "'_'"}, {"stats"}} {
		execDB(t, "", append([]string{"db", "--dir", missing}, sub...)...).expect(t, 1, text(""), missing+": store: no such store directory")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a read-only command created %s", missing)
	}
	deep := filepath.Join(tmp, "no", "such", "parent")
	execDB(t, "", "db", "--dir", deep, "put", "a", "b").expect(t, 1, text(""), "no such store directory", "parent directory")
	execDB(t, "", "db", "--dir", filepath.Join(tmp, "empty"), "put", "a", "b").expect(t, 0, text("")) // created

	// A store another process has open.
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	execDB(t, "", "db", "--dir", dir, "get", "{a, 1}").expect(t, 1, text(""), dir+": store: directory is locked")
	execDB(t, "", "db", "--dir", dir, "put", "{a, 2}", "y").expect(t, 1, text(""), "locked")
	s.Close()
	execDB(t, "", "db", "--dir", dir, "get", "{a, 1}").expect(t, 0, text("x\n"))
}

// TestDBForeignKeys writes keys that are not sext encodings straight into
// Pebble, as another program sharing the store might.
func TestDBForeignKeys(t *testing.T) {
	dir := t.TempDir()
	execDB(t, "{f, 1}\tone\n{f, 2}\ttwo\n", "db", "--dir", dir, "load", "-").expect(t, 0, text(""))
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := sext.Encode(term.Tuple(term.Atom("f"), term.Int(1)))
	foreign := append(enc[:len(enc):len(enc)], 0x99)
	wb := kv.NewBatch()
	wb.Set(foreign, []byte("?"))
	wb.Set([]byte("plain text key"), []byte("?"))
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	kv.Close()

	r := execDB(t, "", "db", "--dir", dir, "scan", "{f, '_'}")
	r.expect(t, 1, text("{f,1}\tone\n{f,2}\ttwo\n"), "key "+sext.Hex.EncodeToString(foreign)+": not a sext encoding, skipped")
	r = execDB(t, "", "db", "--dir", dir, "scan", "'_'", "--count")
	r.expect(t, 1, text("2\n"), "key "+sext.Hex.EncodeToString([]byte("plain text key")))
	r = execDB(t, "", "db", "--dir", dir, "stats", "--exact")
	r.expect(t, 1, nil, "2 foreign keys")
	if !strings.Contains(r.stdout, "keys       2 ") || !strings.Contains(r.stdout, "foreign    2 keys") {
		t.Errorf("stats --exact with foreign keys:\n%s", r.stdout)
	}
}

func TestDemo(t *testing.T) {
	r := execDB(t, "", "demo", "--n", "20000")
	r.expect(t, 0, nil)
	for _, s := range []string{
		"an order book of 20,000 orders", "temporary, removed at the end",
		"loaded 20,000 keys in ", " keys/s",
		"1. customer 101's five latest orders", "5 rows in ",
		"2. customer 101's first order", "1 row in ",
		"3. customer 101's orders in March 2025", "ScanRange {order,101,#Desc<1743465599>,'_'} .. {order,101,#Desc<1740787200>,'_'}",
		"4. all orders of customers 96 to 105",
		"5. order 10000, whoever placed it", "{order,", ",10000}",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("demo output lacks %q:\n%s", s, r.stdout)
		}
	}
	dirLine := strings.SplitN(strings.SplitN(r.stdout, "store: ", 2)[1], " ", 2)[0]
	if _, err := os.Stat(dirLine); err == nil {
		t.Errorf("demo left its temporary store %s behind", dirLine)
	}

	// With --dir the store stays, flushed: the db command reads it.
	dir := filepath.Join(t.TempDir(), "shop")
	execDB(t, "", "demo", "--dir", dir, "--n", "20000").expect(t, 0, nil)
	execDB(t, "", "db", "--dir", dir, "scan", "{order, '_', '_', '_'}", "--count").expect(t, 0, text("20000\n"))
	execDB(t, "", "demo", "--n", "0").expect(t, 2, text(""), "--n must be at least 1")
}

// A key that cannot be encoded spoils the batch it would go in; load
// leaves out only its line, and the lines before it in that batch, put
// again into a new one, are stored with their values.
func TestDBLoadUnencodableKeyInBatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	data := "{k, 1}\tone\n{k, 2}\ttwo\n{'Ω', 3}\tbad\n{k, 4}\tfour\n{'日', 5}\tbad\n{k, 6}\tsix\n"
	execDB(t, data, "db", "--dir", dir, "load", "--batch", "100", "-").
		expect(t, 1, text(""), "sext: stdin:3: ", "sext: stdin:5: ", "--utf8-atoms", "2 bad lines left out", "stored 4 keys")
	execDB(t, "", "db", "--dir", dir, "scan", "{k, '_'}").
		expect(t, 0, text("{k,1}\tone\n", "{k,2}\ttwo\n", "{k,4}\tfour\n", "{k,6}\tsix\n"))

	// The same with values as terms, and batches the bad key falls inside.
	etfDir := filepath.Join(t.TempDir(), "db")
	data = "{k, 1}\t[1]\n{k, 2}\t{a,b}\n{'Ω', 3}\tx\n{k, 4}\t4.5\n"
	execDB(t, data, "db", "--dir", etfDir, "load", "--batch", "3", "--values", "etf", "-").
		expect(t, 1, text(""), "sext: stdin:3: ", "1 bad line left out", "stored 3 keys")
	execDB(t, "", "db", "--dir", etfDir, "scan", "--values", "etf", "{k, '_'}").
		expect(t, 0, text("{k,1}\t[1]\n", "{k,2}\t{a,b}\n", "{k,4}\t4.5\n"))
}
