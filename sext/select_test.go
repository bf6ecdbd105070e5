package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
)

const shopLines = "{order,400,#Desc<10>,1}\ta\n{order,500,#Desc<20>,2}\tb\n{order,500.0,#Desc<30>,3}\tc\n" +
	"{order,999.5,#Desc<40>,4}\td\n{order,1000,#Desc<50>,5}\te\n{user,7}\tf\n"

const rangeSpec = `[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`

func shop(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "db")
	execDB(t, shopLines, "db", "--dir", dir, "load", "-").expect(t, 0, nil)
	return dir
}

func TestDBSelect(t *testing.T) {
	dir := shop(t)
	all := "{order,500,#Desc<20>,2}\tb\n{order,500.0,#Desc<30>,3}\tc\n{order,999.5,#Desc<40>,4}\td\n"
	execDB(t, "", "db", "--dir", dir, "select", rangeSpec).expect(t, 0, text(all))
	execDB(t, "", "db", "--dir", dir, "select", "--reverse", rangeSpec).expect(t, 0,
		text("{order,999.5,#Desc<40>,4}\td\n{order,500.0,#Desc<30>,3}\tc\n{order,500,#Desc<20>,2}\tb\n"))
	execDB(t, "", "db", "--dir", dir, "select", "--keys-only", rangeSpec).expect(t, 0,
		text("{order,500,#Desc<20>,2}\n{order,500.0,#Desc<30>,3}\n{order,999.5,#Desc<40>,4}\n"))
	// Other bodies print their term; two clauses, the first that matches wins.
	two := `[{{order,'$1','_','$2'},[{'<','$1',600}],[{{low,'$2'}}]},{{order,'_','_','$2'},[],['$2']},{{user,'$1'},[],['$$']}]`
	execDB(t, "", "db", "--dir", dir, "select", two).expect(t, 0, text("[7]\n{low,1}\n{low,2}\n{low,3}\n4\n5\n")) // {user,7} is the shorter tuple: first
}

// TestDBSelectPages: pages of two, each resumed from the token on the
// last line of stderr, give all rows once.
func TestDBSelectPages(t *testing.T) {
	dir := shop(t)
	spec := `[{{'_','$1','_','_'},[],['$1']}]`
	var got []string
	after := ""
	for pages := 0; pages < 5; pages++ {
		args := []string{"db", "--dir", dir, "select", "--limit", "2", spec}
		if after != "" {
			args = append(args, "--after", after)
		}
		r := execDB(t, "", args...)
		r.expect(t, 0, nil)
		got = append(got, strings.Fields(r.stdout)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "next: ") {
			break
		}
		after = strings.TrimPrefix(last, "next: ")
	}
	if want := "400 500 500.0 999.5 1000"; strings.Join(got, " ") != want {
		t.Errorf("pages gave %v, want %s", got, want)
	}
	// A token for another spec, or mistyped, is refused.
	r := execDB(t, "", "db", "--dir", dir, "select", "--limit", "1", spec)
	tok := strings.TrimPrefix(strings.TrimSpace(r.stderr), "next: ")
	execDB(t, "", "db", "--dir", dir, "select", "--after", tok, rangeSpec).expect(t, 1, text(""), "for another read: it was made by the match specification")
	execDB(t, "", "db", "--dir", dir, "select", "--after", tok+"x", spec).expect(t, 1, text(""), "malformed continuation token")
	execDB(t, "", "db", "--dir", dir, "select", "--reverse", "--after", tok, spec).expect(t, 1, text(""), "resumes a forward select")
}

func TestDBExplain(t *testing.T) {
	dir := shop(t)
	spec := `[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']},{{order,'_','_','_'},[],[x]}]`
	r := execDB(t, "", "db", "--dir", dir, "explain", "--count", spec)
	r.expect(t, 0, nil)
	// The second clause's range is cut in three around the first's:
	// keys below 500, from 500 up to 1000, and from 1000 on.
	want := [][]string{{"1", "2", "1", "1"}, {"2", "1,2", "3", "3"}, {"3", "2", "1", "1"}}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if lines[0] != "range\tlower\tupper\tclauses\tkeys\trows" {
		t.Errorf("explain --count header %q", lines[0])
	}
	lines = lines[1:]
	if len(lines) != len(want) {
		t.Fatalf("explain:\n%s\nwant %d ranges", r.stdout, len(want))
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 6 || f[0] != want[i][0] || f[3] != want[i][1] || f[4] != want[i][2] || f[5] != want[i][3] {
			t.Errorf("range line %q, want number, bounds, clauses, keys, rows %v", l, want[i])
		}
	}
	// The first range starts at the prefix of {order,'_','_','_'}: 16, arity 4, the atom.
	if !strings.HasPrefix(lines[0], "1\t10000000040CB7DCAC965B9008\t") {
		t.Errorf("first range %q", lines[0])
	}
	if r := execDB(t, "", "db", "--dir", dir, "explain", spec); !strings.HasPrefix(r.stdout, "range\tlower\tupper\tclauses\n1\t") {
		t.Errorf("explain without --count:\n%s", r.stdout)
	}
	execDB(t, "", "db", "--dir", dir, "explain", `[{'_',[{'>','$1',1}],[x]}]`).expect(t, 2, text(""), "SPEC: matchspec: clause 1, guard 1: argument 1: variable not bound")
	execDB(t, "", "db", "--dir", dir, "select", `[{'_',[],[x]`).expect(t, 2, text(""), "SPEC: column")
}

// TestDBExplainIndex: on a store with an index on the order id, explain
// of query 5's spec, or of guards that bound the order id, prints the
// index select reads, and --count gives what that select reads and
// yields; a spec the key's prefix bounds explains as it did before the
// index existed.
func TestDBExplainIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	var load strings.Builder
	for i := range 300 { // 20 customers, order ids 0 to 299
		fmt.Fprintf(&load, "{order,%d,#Desc<%d>,%d}\tv%d\n", i%20, 1000+i, i, i)
	}
	execDB(t, load.String(), "db", "--dir", dir, "load", "-").expect(t, 0, nil)
	cases := []struct {
		name, spec string
		index      string // "" when select reads the plan
		value      string // the value column, for an index
		ranges     int    // of the index's entries
		keys, rows int64  // what select reads and yields
	}{
		{"query 5", "[{{order,'_','_',150},[],['$_']}]", "order_id", "150", 1, 1, 1},
		{"query 5, the guard rejects", "[{{order,'$1','_',150},[{'=/=','$1',10}],['$1']}]", "order_id", "150", 1, 1, 0},
		{"no such order", "[{{order,'_','_',999},[],['$_']}]", "order_id", "999", 1, 0, 0},
		{"prefix-bounded", "[{{order,3,'_','_'},[],['$_']}]", "", "", 0, 15, 15},
		{"guarded range", rangeSpec, "", "", 0, 0, 0},
		{"two clauses", "[{{order,'_','_',150},[],['$_']},{{order,1,'_','_'},[],['$_']}]", "", "", 0, 300, 16},
		{"order ids 100 to 109", "[{{order,'$2','_','$1'},[{'>=','$1',100},{'<','$1',110},{'=/=','$2',3}],['$_']}]", "order_id",
			"'$1' (a range of values, keys sorted)", 1, 10, 9},
		{"order ids below 5 or from 295", "[{{order,'_','_','$1'},[{'orelse',{'<','$1',5},{'>=','$1',295}}],['$_']}]", "order_id",
			"'$1' (a range of values, keys sorted)", 2, 10, 10},
	}
	explain := func(count bool, spec string) string {
		t.Helper()
		args := []string{"db", "--dir", dir, "explain", spec}
		if count {
			args = []string{"db", "--dir", dir, "explain", "--count", spec}
		}
		r := execDB(t, "", args...)
		r.expect(t, 0, nil)
		return r.stdout
	}
	before := make([][2]string, len(cases))
	for i, tc := range cases {
		before[i] = [2]string{explain(false, tc.spec), explain(true, tc.spec)}
		if strings.HasPrefix(before[i][0], "index") {
			t.Fatalf("%s: explain names an index before there is one:\n%s", tc.name, before[i][0])
		}
	}
	execDB(t, "", "db", "--dir", dir, "index", "create", "order_id", "{order,'_','_','$1'}").expect(t, 0, text(""))
	for i, tc := range cases {
		plain, counted := explain(false, tc.spec), explain(true, tc.spec)
		if tc.index == "" {
			if plain != before[i][0] || counted != before[i][1] {
				t.Errorf("%s: explain changed with the index:\n%s%s\nwas\n%s%s", tc.name, plain, counted, before[i][0], before[i][1])
			}
			var keys, rows int64
			for _, l := range strings.Split(strings.TrimSuffix(counted, "\n"), "\n")[1:] {
				f := strings.Split(l, "\t")
				k, _ := strconv.ParseInt(f[len(f)-2], 10, 64)
				r, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
				keys, rows = keys+k, rows+r
			}
			if keys != tc.keys || rows != tc.rows {
				t.Errorf("%s: explain --count: %d keys, %d rows; want %d, %d:\n%s", tc.name, keys, rows, tc.keys, tc.rows, counted)
			}
			continue
		}
		// What select reads: its stats, and the rows the command prints.
		s, err := pebblestore.Open(ctx, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		var st store.SelectStats
		for _, err := range s.Select(ctx, matchspec.MustParse(tc.spec), store.SelectOptions{Stats: &st}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		sel := execDB(t, "", "db", "--dir", dir, "select", tc.spec)
		sel.expect(t, 0, nil)
		printed := int64(strings.Count(sel.stdout, "\n"))
		if st.Index != tc.index || st.KeysRead != tc.keys || st.Rows != tc.rows || printed != tc.rows {
			t.Fatalf("%s: select read index %q, %d keys, %d rows (%d printed); want %q, %d, %d", tc.name, st.Index, st.KeysRead, st.Rows, printed, tc.index, tc.keys, tc.rows)
		}
		// One line a range of entries under the header, the counts adding
		// up to what select read; without --count the same, less the
		// counts. The bounds are those of the index entries (in the
		// reserved range, below every key: 00).
		lines := strings.Split(strings.TrimSuffix(counted, "\n"), "\n")
		if lines[0] != "index\tvalue\tlower\tupper\tclauses\tentries\trows" || len(lines) != 1+tc.ranges {
			t.Errorf("%s: explain --count printed %q, want a header and %d lines", tc.name, counted, tc.ranges)
			continue
		}
		var entries, rows int64
		short := []string{"index\tvalue\tlower\tupper\tclauses"}
		for _, l := range lines[1:] {
			f := strings.Split(l, "\t")
			if len(f) != 7 || f[0] != tc.index || f[1] != tc.value || f[4] != "1" || !strings.HasPrefix(f[2], "00") || f[2] >= f[3] {
				t.Errorf("%s: explain --count line %q, want %s, %s, bounds from 00, clause 1", tc.name, l, tc.index, tc.value)
				continue
			}
			e, _ := strconv.ParseInt(f[5], 10, 64)
			r, _ := strconv.ParseInt(f[6], 10, 64)
			entries, rows = entries+e, rows+r
			short = append(short, strings.Join(f[:5], "\t"))
		}
		if entries != st.KeysRead || rows != st.Rows {
			t.Errorf("%s: explain --count: %d entries, %d rows; select read %d, took %d", tc.name, entries, rows, st.KeysRead, st.Rows)
		}
		if plain != strings.Join(short, "\n")+"\n" {
			t.Errorf("%s: explain printed %q, explain --count %q", tc.name, plain, counted)
		}
	}
}
