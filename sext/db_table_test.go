package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/erlsext/sext/internal/etcdcluster"
)

// TestDBTable runs the table commands end to end: create, list, info,
// write (with refusals that write nothing), read, delete, select and
// explain with --table (paged, reverse, through an index, a head of
// another record refused), an index made unique and dropped, check,
// load and drop.
func TestDBTable(t *testing.T) {
	dir := t.TempDir()
	db := func(args ...string) result { return runSext(t, "", append([]string{"db", "--dir", dir}, args...)...) }
	runSext(t, "", "db", "--dir", dir, "put", "k", "v").want(t, 0, "")
	db("table", "create", "person", "name", "age", "email").want(t, 0, "")
	db("table", "create", "person", "x").want(t, 1, "", "a table of that name exists")
	db("table", "create", "kv", "--type", "set").want(t, 0, "")
	db("table", "create", "bad", "--type", "bag", "a").want(t, 2, "", "bag tables are not supported")
	db("table", "list").want(t, 0, lines("person\tperson\tname,age,email\t2\tordered_set\tready", "kv\t-\t-\t1\tset\tready"))
	db("write", "person", `{person, <<"ann">>, 31, <<"ann@x">>}`, `{person, <<"bob">>, 42, <<"bob@x">>}`).want(t, 0, "")
	db("write", "person", `{person, <<"cy">>, 7, <<"cy@x">>}`, `{person, <<"dee">>, 1}`).want(t, 2, "", "OBJECT 2", "a person record has 4", "nothing written")
	db("write", "person", `{user, <<"cy">>, 7, <<"cy@x">>}`).want(t, 2, "", "not a person record")
	db("write", "kv", `{k, 1}`, `{k, 2}`, `{j, 3}`).want(t, 0, "")
	db("read", "person", `<<"ann">>`).want(t, 0, lines(`{person,<<"ann">>,31,<<"ann@x">>}`))
	db("read", "person", `<<"cy">>`).want(t, 1, "", "not found")
	db("read", "nope", `1`).want(t, 1, "", "no such table")
	db("read", "kv", `k`).want(t, 0, lines(`{k,2}`))
	db("table", "info", "person").want(t, 0, lines("table\tperson", "record\tperson", "attributes\tname age email",
		"keypos\t2", "type\tordered_set", "state\tready", "count\t2"))

	db("table", "index", "person", "email", "--unique").want(t, 0, "", "indexed person by email: read 2 objects")
	db("write", "person", `{person, <<"eve">>, 50, <<"ann@x">>}`).want(t, 1, "", "unique index conflict", `<<"ann">> holds <<"ann@x">>`)
	db("write", "person", `{person, <<"cy">>, 50, <<"cy@x">>}`).want(t, 0, "")

	spec := `[{{person,'$1','$2','_'},[{'>','$2',30}],['$1']}]`
	db("select", "--table", "person", spec).want(t, 0, lines(`<<"ann">>`, `<<"bob">>`, `<<"cy">>`))
	db("select", "--table", "person", "--reverse", spec).want(t, 0, lines(`<<"cy">>`, `<<"bob">>`, `<<"ann">>`))
	db("select", "--table", "person", "[{'_',[],['$_']}]", "--keys-only").want(t, 0, lines(`<<"ann">>`, `<<"bob">>`, `<<"cy">>`))
	page := db("select", "--table", "person", "--limit", "2", spec)
	page.want(t, 0, lines(`<<"ann">>`, `<<"bob">>`), "next: t1.")
	tok := strings.TrimSpace(strings.TrimPrefix(page.stderr, "next: "))
	db("select", "--table", "person", "--after", tok, spec).want(t, 0, lines(`<<"cy">>`))
	db("select", "--table", "kv", "--after", tok, "[{[x],[],['$_']}]").want(t, 2, "", "cannot match", "is not a tuple")
	db("select", "--table", "kv", "--after", tok, "[{{k,'_'},[],['$_']}]").want(t, 1, "", "continuation token is for another read")
	db("select", "--table", "person", "[{{'$1','$2'},[],['$2']}]").want(t, 2, "", "the specification cannot match the table's objects", "has 2 elements")
	db("select", "--table", "person", `[{{person,'_','_',<<"bob@x">>},[],['$_']}]`).want(t, 0, lines(`{person,<<"bob">>,42,<<"bob@x">>}`))
	db("select", "[{'_',[],['$_']}]").want(t, 0, lines("k\tv")) // the key store's select, as before

	ex := db("explain", "--table", "person", "--count", `[{{person,'_','_',<<"bob@x">>},[],['$_']}]`)
	if ex.code != 0 || !strings.HasPrefix(ex.stdout, "reads\tindex email unique\nwhy\t") || !strings.HasSuffix(ex.stdout, "count\t2\t1\n") {
		t.Errorf("explain through the index:\n%s%s", ex.stdout, ex.stderr)
	}
	ex = db("explain", "--table", "person", "--count", `[{{person,<<"b">>,'_','_'},[],['$_']}]`)
	if ex.code != 0 || !strings.HasPrefix(ex.stdout, "reads\ttable person\nwhy\tthe key slots narrow") || !strings.HasSuffix(ex.stdout, "count\t0\t0\n") {
		t.Errorf("explain of a key:\n%s%s", ex.stdout, ex.stderr)
	}

	db("delete", "person", `<<"bob">>`, `<<"nobody">>`).want(t, 0, "")
	db("table", "info", "person").want(t, 0, lines("table\tperson", "record\tperson", "attributes\tname age email",
		"keypos\t2", "type\tordered_set", "state\tready", "index\temail unique ready", "count\t2"))
	db("table", "check").want(t, 0, "", "checked 2 tables: 4 objects, 2 index entries")
	db("table", "index", "person", "email", "--drop").want(t, 0, "")

	file := filepath.Join(t.TempDir(), "people.txt")
	os.WriteFile(file, []byte("{person, <<\"fay\">>, 20, <<\"f@x\">>}\n\n{person, oops\n{person, <<\"gil\">>, 21}\n{person, <<\"hal\">>, 22, <<\"h@x\">>}\n"), 0o644)
	db("load", "--table", "person", file).want(t, 1, "", "people.txt:3: column", "people.txt:4:", "a person record has 4", "2 bad lines left out", "stored 2 objects in person")
	db("table", "info", "person").want(t, 0, lines("table\tperson", "record\tperson", "attributes\tname age email",
		"keypos\t2", "type\tordered_set", "state\tready", "count\t4"))
	db("table", "drop", "person").want(t, 0, "")
	db("table", "list").want(t, 0, lines("kv\t-\t-\t1\tset\tready"))
	db("get", "k").want(t, 0, lines("v"))
}

var tableDurableRE = regexp.MustCompile(`loading: ([0-9,]+) keys, ([0-9,]+) durable`)

// TestDBTableLoadSIGKILL kills a load into a table with an index with
// SIGKILL after it has reported some objects durable. Then table info
// answers at once with the count, which is the exact number of objects
// the table holds (a select of them all), at least what was reported
// durable, and table check finds every index entry in place.
func TestDBTableLoadSIGKILL(t *testing.T) {
	const n = 300000
	file := filepath.Join(t.TempDir(), "orders.txt")
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "{order, %d, %d, <<\"r%d\">>}\n", i, i%97, i)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for trial := range 3 {
		dir := filepath.Join(t.TempDir(), strconv.Itoa(trial))
		db := func(args ...string) result { return runSext(t, "", append([]string{"db", "--dir", dir}, args...)...) }
		runSext(t, "", "db", "--dir", dir, "put", "k", "v").want(t, 0, "")
		db("table", "create", "orders", "id", "customer", "ref", "--record", "order").want(t, 0, "")
		db("table", "index", "orders", "ref", "--unique").want(t, 0, "", "indexed")
		cmd := exec.Command(sextBin, "db", "--dir", dir, "load", "--table", "orders", "--batch", strconv.Itoa(100+trial*300), "--progress", "20ms", file)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		durable, reports := int64(0), 0
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			m := tableDurableRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			durable, _ = strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
			if reports++; reports == 3+trial*2 {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("trial %d: load ended with %v before the kill (reports: %d); make the file longer", trial, err, reports)
		}
		info := db("table", "info", "orders")
		m := regexp.MustCompile(`(?m)^count\t([0-9]+)$`).FindStringSubmatch(info.stdout)
		if info.code != 0 || m == nil {
			t.Fatalf("trial %d: table info: %q %q", trial, info.stdout, info.stderr)
		}
		count, _ := strconv.ParseInt(m[1], 10, 64)
		all := db("select", "--table", "orders", "[{'_',[],[true]}]")
		if rows := int64(strings.Count(all.stdout, "\n")); all.code != 0 || rows != count {
			t.Fatalf("trial %d: info counts %d, a select of every object gives %d (%q)", trial, count, rows, all.stderr)
		}
		if durable == 0 || count < durable || count >= n {
			t.Fatalf("trial %d: %d objects after the kill; %d were reported durable, of %d", trial, count, durable, n)
		}
		db("table", "check").want(t, 0, "", fmt.Sprintf("%s objects, %s index entries", commas(count), commas(count)))
		t.Logf("trial %d: killed with %d objects reported durable; %d there, counted exactly", trial, durable, count)
	}
}

// TestDBTableEtcd runs the table commands on a cluster of its own
// (etcdcluster.SuiteMembers: one member in a quick run): a load in
// batches that fit etcd's default of 128 writes a transaction, which the
// cluster keeps (with a unique index, each object's condition and entry
// count toward them), the count, a select through the index, a refusal.
func TestDBTableEtcd(t *testing.T) {
	t.Parallel()
	c := etcdcluster.Start(t, etcdcluster.Options{Members: etcdcluster.SuiteMembers(), MaxTxnOps: 128})
	eps := strings.Join(c.Endpoints(), ",")
	db := func(stdin string, args ...string) result {
		t.Helper()
		return runSext(t, stdin, append([]string{"db", "--etcd", eps}, args...)...)
	}
	db("", "table", "create", "orders", "id", "customer", "ref", "--record", "order").want(t, 0, "")
	db("", "table", "index", "orders", "ref", "--unique").want(t, 0, "", "indexed orders by ref: read 0 objects")
	var in strings.Builder
	for i := range 500 {
		fmt.Fprintf(&in, "{order, %d, %d, <<\"r%d\">>}\n", i, i%7, i)
	}
	in.WriteString("{order, 500, 1, <<\"r3\">>}\n") // r3 is taken
	db(in.String(), "load", "--table", "orders", "-").want(t, 1, "", "stdin:501: ", "unique index conflict", "stored 500 objects in orders")
	db("", "table", "info", "orders").want(t, 0, lines("table\torders", "record\torder", "attributes\tid customer ref",
		"keypos\t2", "type\tordered_set", "state\tready", "index\tref unique ready", "count\t500"))
	db("", "select", "--table", "orders", `[{{order,'$1','_',<<"r42">>},[],['$1']}]`).want(t, 0, lines("42"))
	db("", "explain", "--table", "orders", "--count", `[{{order,'_','_',<<"r42">>},[],['$_']}]`)
	db("", "delete", "orders", "42").want(t, 0, "")
	db("", "table", "check").want(t, 0, "", "499 objects, 499 index entries")
}
