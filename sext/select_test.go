package main

import (
	"path/filepath"
	"strings"
	"testing"
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
	execDB(t, "", "db", "--dir", dir, "select", "--after", tok, rangeSpec).expect(t, 1, text(""), "for another select")
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
