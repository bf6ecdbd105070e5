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
	execDB(t, "", "db", "--dir", dir, "explain", `[{'_',[{'>','$1',1}],[x]}]`).expect(t, 2, text(""), "SPEC: matchspec: clause 1, guard 1: argument 1: variable not bound")
	execDB(t, "", "db", "--dir", dir, "select", `[{'_',[],[x]`).expect(t, 2, text(""), "SPEC: column")
}

// TestDBExplainIndex: on a store with an index on the order id, explain
// of query 5's spec prints the index select reads, and --count gives
// what that select reads and yields; a spec the key's prefix bounds
// explains as it did before the index existed.
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
		keys, rows int64  // what select reads and yields
	}{
		{"query 5", "[{{order,'_','_',150},[],['$_']}]", "order_id", 1, 1},
		{"query 5, the guard rejects", "[{{order,'$1','_',150},[{'=/=','$1',10}],['$1']}]", "order_id", 1, 0},
		{"no such order", "[{{order,'_','_',999},[],['$_']}]", "order_id", 0, 0},
		{"prefix-bounded", "[{{order,3,'_','_'},[],['$_']}]", "", 15, 15},
		{"guarded range", rangeSpec, "", 0, 0},
		{"two clauses", "[{{order,'_','_',150},[],['$_']},{{order,1,'_','_'},[],['$_']}]", "", 300, 16},
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
			for _, l := range strings.Split(strings.TrimSuffix(counted, "\n"), "\n") {
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
		f := strings.Split(strings.TrimSuffix(counted, "\n"), "\t")
		want := []string{"index " + tc.index, "", "", "1", strconv.FormatInt(st.KeysRead, 10), strconv.FormatInt(st.Rows, 10)}
		if len(f) != len(want) || f[0] != want[0] || f[3] != want[3] || f[4] != want[4] || f[5] != want[5] || strings.Contains(counted, "\n1\t") {
			t.Errorf("%s: explain --count printed %q, want one line %q (bounds aside)", tc.name, counted, want)
		}
		// The bounds are those of the index entries (in the reserved range,
		// below every key: 00), the same without --count.
		if !strings.HasPrefix(f[1], "00") || f[1] >= f[2] || plain != strings.Join(f[:4], "\t")+"\n" {
			t.Errorf("%s: explain printed %q, explain --count %q", tc.name, plain, counted)
		}
	}
}
