package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// TestPrefixBinary: sext prefix of a pattern with a binary prefix prints
// sext.Prefix's bytes, and --range sext.PrefixRange's, narrowed by the
// bits the prefix fixes past its whole bytes (whole bytes only under a
// Desc). In sb32 the range's lower line is a text prefix of the text of
// every key that can match, and longer than the whole bytes' text where
// those bits fill a character; every such key's text lies below the
// upper line, and the near misses' texts are outside.
func TestPrefixBinary(t *testing.T) {
	patterns := []string{
		`{user, <<"ali", _/binary>>, '_'}`,
		`{user, <<"alice-1", _/binary>>}`,
		`{user, <<"alice-12", _/binary>>}`,
		`{user, <<_/binary>>}`,
		`{t, #Desc<<<"alice", _/binary>>>}`,
		`[a | <<"xy", _/binary>>]`,
		`<<255, 255, _/binary>>`,
	}
	for _, text := range patterns {
		p, err := term.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := sext.Prefix(p)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, err := sext.PrefixRange(p)
		if err != nil {
			t.Fatal(err)
		}
		runSext(t, "", "prefix", text).want(t, 0, lines(sext.Hex.EncodeToString(pre)))
		runSext(t, "", "prefix", "--range", text).want(t, 0, lines(sext.Hex.EncodeToString(lo), sext.Hex.EncodeToString(hi)))
	}
	// The bits past the whole bytes narrow the range: "ali" is 3 bytes,
	// 27 bits of framing, 3 bits into the byte after the whole ones.
	runSext(t, "", "prefix", `{user, <<"ali", _/binary>>, _}`).want(t, 0, lines("10000000030CBADCECB7200812B0DB2D"))
	runSext(t, "", "prefix", "--range", `{user, <<"ali", _/binary>>, _}`).want(t, 0,
		lines("10000000030CBADCECB7200812B0DB2D20", "10000000030CBADCECB7200812B0DB2D40"))

	names := []string{"", "a", "al", "ali", "alh", "alj", "alo", "alice", "alice-", "alice-1", "alice-12", "alice-123", "alice-2", "alicf", "b", "\xff\xff", "\xff\xff\x00", "\xff\xfe"}
	sb32Longer := 0
	for _, text := range patterns[:4] {
		p, _ := term.Parse(text)
		r := runSext(t, "", "prefix", "--range", "--format=sb32", text)
		r.want(t, 0, r.stdout)
		out := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(out) != 2 {
			t.Fatalf("prefix --range --format=sb32 %s: %q", text, r.stdout)
		}
		lower, upper := out[0], out[1]
		pre, _ := sext.Prefix(p)
		if whole := string(sext.SB32.AppendPrefix(nil, pre)); !strings.HasPrefix(lower, whole) {
			t.Errorf("%s: sb32 lower %s does not extend the prefix's text %s", text, lower, whole)
		} else if len(lower) > len(whole) {
			sb32Longer++
		}
		matched := 0
		for _, name := range names {
			for _, k := range []term.Term{
				term.Tuple(term.Atom("user"), term.Binary([]byte(name)), term.Int(1)),
				term.Tuple(term.Atom("user"), term.Binary([]byte(name))),
			} {
				enc, err := sext.Encode(k)
				if err != nil {
					t.Fatal(err)
				}
				_, match := sext.Match(p, k)
				sb := sext.SB32.EncodeToString(enc)
				in := strings.HasPrefix(sb, lower) && sb < upper
				if match && !in {
					t.Errorf("%s matches %s, whose sb32 %s lies outside [%s, %s)", text, k, sb, lower, upper)
				}
				if match {
					matched++
				}
				// In bytes the range holds exactly the matches.
				lo, hi, _ := sext.PrefixRange(p)
				if inBytes := bytes.Compare(enc, lo) >= 0 && bytes.Compare(enc, hi) < 0; inBytes != match {
					t.Errorf("%s on %s: match %v, in [lower, upper) %v", text, k, match, inBytes)
				}
			}
		}
		if matched == 0 {
			t.Errorf("%s matched none of the names", text)
		}
	}
	if sb32Longer == 0 {
		t.Error("no sb32 range was narrowed by a binary prefix's bits")
	}
}

func TestMatchBinaryPrefix(t *testing.T) {
	runSext(t, "", "match", `{user, <<"ali", _/binary>>, '$1'}`, `{user, <<"alice">>, 7}`).want(t, 0, lines("$1 = 7"))
	runSext(t, "", "match", `{user, <<"ali", _/binary>>}`, `{user, <<"ali">>}`).want(t, 0, "")
	runSext(t, "", "match", `[<<"a", _/binary>> | '$1']`, `[<<"ab">>, x]`).want(t, 0, lines("$1 = [x]"))
	runSext(t, "", "match", `<<"ali", _/binary>>`, `<<"al">>`).want(t, 1, "", "no match")
	runSext(t, "", "match", `<<"ali", _/binary>>`, `<<"ali", 1:3>>`).want(t, 1, "", "no match")
	runSext(t, "", "match", `<<"ali", _/binary>>`, `"alice"`).want(t, 1, "", "no match")
	runSext(t, "", "match", `'_'`, `<<"ali", _/binary>>`).want(t, 2, "", "TERM: a binary prefix")
}

// TestDBBinaryPrefix: db scan, scan --to, select, explain (with an index
// and without) and index scan take binary prefixes, and read only the
// keys (or entries) whose binary starts with the prefix: explain --count
// gives as many keys as rows.
func TestDBBinaryPrefix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	var load strings.Builder
	bases := []string{"ali", "alice", "alh", "alj", "alo", "al", "bob"}
	for i := range 70 {
		name := fmt.Sprintf("%s%d", bases[i%len(bases)], i)
		fmt.Fprintf(&load, "{user,<<%q>>,%d}\tu%d\n{item,%d,<<%q>>}\ti%d\n", name, i, i, i%3, name, i)
	}
	execDB(t, load.String(), "db", "--dir", dir, "load", "-").expect(t, 0, nil)
	var ali, aliAlice []string
	for i := range 70 {
		if b := bases[i%len(bases)]; b == "ali" || b == "alice" {
			ali = append(ali, fmt.Sprintf("{user,<<\"%s%d\">>,%d}\tu%d\n", b, i, i, i))
			if b == "alice" {
				aliAlice = append(aliAlice, fmt.Sprintf("{user,<<\"%s%d\">>,%d}\tu%d\n", b, i, i, i))
			}
		}
	}
	sortByName := func(ls []string) []string {
		out := append([]string(nil), ls...)
		// Keys sort by name's bytes (the names differ early).
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] < out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	}
	ali, aliAlice = sortByName(ali), sortByName(aliAlice)
	execDB(t, "", "db", "--dir", dir, "scan", `{user, <<"ali", _/binary>>, _}`).expect(t, 0, text(ali...))
	execDB(t, "", "db", "--dir", dir, "scan", "--count", `{user, <<"alice", _/binary>>, _}`).expect(t, 0, text(fmt.Sprintln(len(aliAlice))))
	// --to's keys are included: from the first "alh" name through the
	// last "ali" one.
	r := execDB(t, "", "db", "--dir", dir, "scan", "--count", `{user, <<"alh", _/binary>>, _}`, "--to", `{user, <<"ali", _/binary>>, _}`)
	r.expect(t, 0, text(fmt.Sprintln(len(ali)+10))) // ten alh names
	spec := `[{{user,<<"ali",_/binary>>,'$1'},[{'<','$1',35}],['$_']}]`
	var below []string
	for _, l := range ali {
		var n int
		fmt.Sscanf(l[strings.Index(l, ">>,")+3:], "%d", &n)
		if n < 35 {
			below = append(below, l)
		}
	}
	execDB(t, "", "db", "--dir", dir, "select", spec).expect(t, 0, text(below...))
	// explain --count: the one range holds the "ali" names and no other.
	r = execDB(t, "", "db", "--dir", dir, "explain", "--count", `[{{user,<<"ali",_/binary>>,'_'},[],['$_']}]`)
	r.expect(t, 0, nil)
	p, _ := term.Parse(`{user,<<"ali",_/binary>>,'_'}`)
	lo, hi, _ := sext.PrefixRange(p)
	want := fmt.Sprintf("range\tlower\tupper\tclauses\tkeys\trows\n1\t%s\t%s\t1\t%d\t%d\n", sext.Hex.EncodeToString(lo), sext.Hex.EncodeToString(hi), len(ali), len(ali))
	if r.stdout != want {
		t.Errorf("explain --count:\n%s\nwant\n%s", r.stdout, want)
	}

	// With an index on the item's name, a head with the prefix there reads
	// the index's entries of the names that start with it.
	execDB(t, "", "db", "--dir", dir, "index", "create", "by_name", "{item,'_','$1'}").expect(t, 0, nil)
	r = execDB(t, "", "db", "--dir", dir, "explain", "--count", `[{{item,'_',<<"ali",_/binary>>},[],['$_']}]`)
	r.expect(t, 0, nil)
	ls := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(ls) != 2 || ls[0] != "index\tvalue\tlower\tupper\tclauses\tentries\trows" ||
		!strings.HasPrefix(ls[1], "by_name\t<<\"ali\",_/binary>> (a range of values, keys sorted)\t") ||
		!strings.HasSuffix(ls[1], fmt.Sprintf("\t1\t%d\t%d", len(ali), len(ali))) {
		t.Errorf("explain of the index read:\n%s", r.stdout)
	}
	r = execDB(t, "", "db", "--dir", dir, "select", "--keys-only", `[{{item,'_',<<"ali",_/binary>>},[],['$_']}]`)
	r.expect(t, 0, nil)
	if n := strings.Count(r.stdout, "\n"); n != len(ali) || strings.Contains(r.stdout, "alh") {
		t.Errorf("select through the index: %d rows, want %d:\n%s", n, len(ali), r.stdout)
	}
	execDB(t, "", "db", "--dir", dir, "index", "scan", "--count", "by_name", `<<"ali",_/binary>>`).expect(t, 0, text(fmt.Sprintln(len(ali))))
	execDB(t, "", "db", "--dir", dir, "index", "scan", "--count", "by_name", `<<"alh",_/binary>>`, "--before", `<<"ali",_/binary>>`).expect(t, 0, text("10\n"))
}
