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

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// TestDBIndex runs every index subcommand end to end.
func TestDBIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db := func(args ...string) dbResult {
		t.Helper()
		return execDB(t, "", append([]string{"db", "--dir", dir}, args...)...)
	}
	load := "{order, 1, a, 10}\tx\n{order, 2, b, 11}\ty\n{order, 2, c, 10}\tz\n{item, 7}\tw\n"
	execDB(t, load, "db", "--dir", dir, "load", "-").expect(t, 0, text(""))
	db("index", "create", "oid", "{order, '_', '_', '$1'}").expect(t, 0, text(""), "indexed oid: read 3 keys")
	db("index", "create", "oid", "{order, '$1', '_', '_'}").expect(t, 1, text(""), "index of that name exists")
	db("index", "create", "bad", "{order, '_'}").expect(t, 2, text(""), "no '$N' variable")
	db("index", "create", "two", "{order, '$2', '_', '$1'}").expect(t, 0, text(""))
	db("index", "list").expect(t, 0, text("oid\t{order,'_','_','$1'}\tready\n", "two\t{order,'$2','_','$1'}\tready\n"))
	db("put", "{order, 3, d, 10}", "new").expect(t, 0, text(""))
	db("index", "scan", "oid", "10").expect(t, 0, text("{order,1,a,10}\tx\n", "{order,2,c,10}\tz\n", "{order,3,d,10}\tnew\n"))
	db("index", "scan", "oid", "'_'", "--count").expect(t, 0, text("4\n"))
	db("index", "scan", "two", "{10, '_'}", "--reverse").expect(t, 0, text("{order,3,d,10}\tnew\n", "{order,2,c,10}\tz\n", "{order,1,a,10}\tx\n"))
	// A range of values is half-open, as every range is; --to, which
	// scan's ranges take through their end, is refused here.
	db("index", "scan", "oid", "11", "--before", "12").expect(t, 0, text("{order,2,b,11}\ty\n"))
	db("index", "scan", "oid", "10", "--before", "11", "--count").expect(t, 0, text("3\n"))
	db("index", "scan", "oid", "11", "--before", "11").expect(t, 0, text(""))
	db("index", "scan", "oid", "11", "--to", "12").expect(t, 2, text(""), "flag provided but not defined: -to")
	// Paging with the token.
	r := db("index", "scan", "oid", "'_'", "--limit", "3")
	r.expect(t, 0, text("{order,1,a,10}\tx\n", "{order,2,c,10}\tz\n", "{order,3,d,10}\tnew\n"), "next: i1.")
	tok := strings.TrimSpace(strings.TrimPrefix(r.stderr, "next: "))
	db("index", "scan", "oid", "'_'", "--limit", "3", "--after", tok).expect(t, 0, text("{order,2,b,11}\ty\n"))
	db("index", "scan", "oid", "10", "--after", tok).expect(t, 1, text(""), "for another read: it was made by the index scan")
	db("index", "scan", "oid", "'_'", "--after", "junk").expect(t, 1, text(""), "malformed continuation token: does not start with \"i1.\"")
	db("index", "scan", "nope", "1").expect(t, 1, text(""), "no such index")
	// The data commands see no index entries.
	db("scan", "'_'", "--count").expect(t, 0, text("5\n"))
	db("stats", "--exact").expect(t, 0, nil)
	db("check").expect(t, 0, nil)
	db("index", "check").expect(t, 0, nil)
	db("del", "{order, 1, a, 10}").expect(t, 0, text(""))
	db("index", "scan", "oid", "10", "--count").expect(t, 0, text("2\n"))

	// Break an index behind the store's back: check finds it, --fix
	// repairs it.
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := sext.Encode(term.Tuple(term.Atom("order"), term.Int(2), term.Atom("b"), term.Int(11)))
	wb := kv.NewBatch()
	wb.Delete(k) // leaves two orphan entries
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	kv.Close()
	db("index", "check").expect(t, 1, nil, "index oid: orphan entry for {order,2,b,11}", "index two: orphan entry")
	db("index", "check", "--fix").expect(t, 0, nil, "(fixed)")
	db("index", "check").expect(t, 0, nil)
	db("index", "drop", "two").expect(t, 0, text(""))
	db("index", "drop", "two").expect(t, 1, text(""), "no such index")
	db("index", "list").expect(t, 0, text("oid\t{order,'_','_','$1'}\tready\n"))
	db("index", "check").expect(t, 0, nil)
}

var indexingRE = regexp.MustCompile(`indexing: ([0-9,]+) keys`)

// TestDBIndexSIGKILL kills a load into a store with an index, then a
// build of a second index, each with SIGKILL: the data and the indexes
// stay consistent (index check exits 0 after the load), and an
// interrupted build is reported unfinished and finished by --fix.
func TestDBIndexSIGKILL(t *testing.T) {
	const n = 300000
	file := filepath.Join(t.TempDir(), "load.txt")
	var b bytes.Buffer
	for i := range n {
		// Every tenth line overwrites an earlier key, so index entries
		// are rewritten as well as added.
		id := i
		if i%10 == 9 {
			id = i / 2
		}
		fmt.Fprintf(&b, "{k, %d, %d}\tv%d\n", id%97, id, i)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "db")
	execDB(t, "", "db", "--dir", dir, "put", "{k, 0, -1}", "first").expect(t, 0, text(""))
	execDB(t, "", "db", "--dir", dir, "index", "create", "by_id", "{k, '_', '$1'}").expect(t, 0, nil)

	killAfter := func(re *regexp.Regexp, reports int, args ...string) {
		t.Helper()
		cmd := exec.Command(buildDB(t), append([]string{"db", "--dir", dir}, args...)...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		seen := 0
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if re.MatchString(sc.Text()) {
				if seen++; seen == reports {
					cmd.Process.Signal(syscall.SIGKILL)
					break
				}
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("%q ended with %v before the kill (%d reports); make the file longer", args, err, seen)
		}
	}
	// Killed after 12 progress reports at testsize's full size, 6 in a
	// quick run: fewer keys for the checks after the kill to read.
	killAfter(durableRE, testsize.Pick(6, 12), "load", "--batch", "500", "--progress", "20ms", file)
	r := execDB(t, "", "db", "--dir", dir, "index", "check")
	r.expect(t, 0, nil)
	keys := countLine(t, r.stdout, "keys")
	if keys < 1000 || keys >= n {
		t.Fatalf("killed after %d keys; want some but not all", keys)
	}
	t.Logf("load killed with %d keys stored; index check: clean", keys)
	count := execDB(t, "", "db", "--dir", dir, "index", "scan", "by_id", "'_'", "--count")
	count.expect(t, 0, text(fmt.Sprintln(keys)))

	// Kill a build midway: the index is left building, which check
	// reports and --fix finishes.
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	killAfter(indexingRE, 2, "index", "create", "--progress", "2ms", "by_cust", "{k, '$1', '_'}")
	execDB(t, "", "db", "--dir", dir, "index", "list").expect(t, 0, text("by_id\t{k,'_','$1'}\tready\n", "by_cust\t{k,'$1','_'}\tbuilding\n"))
	execDB(t, "", "db", "--dir", dir, "index", "scan", "by_cust", "3").expect(t, 1, text(""), "not built yet")
	execDB(t, "", "db", "--dir", dir, "index", "check").expect(t, 1, nil, "index by_cust: unfinished", "index by_cust: missing entry")
	execDB(t, "", "db", "--dir", dir, "index", "check", "--fix").expect(t, 0, nil)
	execDB(t, "", "db", "--dir", dir, "index", "check").expect(t, 0, nil)
	execDB(t, "", "db", "--dir", dir, "index", "scan", "by_cust", "'_'", "--count").expect(t, 0, text(fmt.Sprintln(keys)))
}

// countLine reads the number on the line of index check's output that
// starts with name.
func countLine(t *testing.T, out, name string) int64 {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == name {
			n, err := strconv.ParseInt(strings.ReplaceAll(f[1], ",", ""), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	t.Fatalf("no %q line in %q", name, out)
	return 0
}

// TestDemoIndex: the demo answers query 5 through the index, with the
// same row as the scan, and leaves an index that checks clean.
func TestDemoIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	r := execDB(t, "", "demo", "--dir", dir, "--n", "20000")
	r.expect(t, 0, nil)
	for _, s := range []string{
		"9. query 5 again, through an index on the order id", "CreateIndex order_id {order,'_','_','$1'}",
		"built in ", "(20,000 keys read", "IndexScan order_id 10000: 1 row in ", "1,000 other ids: median ",
		"the full scan of query 5 took ", " times as long as the median look-up",
		"10. the same as a match specification: the planner reads the index",
		"Select [{{order,'_','_',10000},[],['$_']}]", "\n   index order_id: 00", "1 row in ", ", 1 key read, through index order_id",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("demo output lacks %q:\n%s", s, r.stdout)
		}
	}
	scan := execDB(t, "", "db", "--dir", dir, "scan", "{order, '_', '_', 10000}")
	scan.expect(t, 0, nil)
	if strings.Count(scan.stdout, "\n") != 1 {
		t.Fatalf("scan for order 10000: %q", scan.stdout)
	}
	execDB(t, "", "db", "--dir", dir, "index", "scan", "order_id", "10000").expect(t, 0, &scan.stdout)
	row := strings.SplitN(scan.stdout, "\t", 2)[0]
	if !strings.Contains(r.stdout, row) || strings.Count(r.stdout, row) != 2 {
		t.Errorf("the demo does not print %s for both query 5 and 6:\n%s", row, r.stdout)
	}
	execDB(t, "", "db", "--dir", dir, "index", "check").expect(t, 0, nil)
}

// TestDBIndexEtcd: the index commands on an etcd cluster of its own
// (etcdcluster.SuiteMembers: one member in a quick run), and a load whose
// default batch leaves room in each transaction for two indexes' entries
// (the cluster keeps etcd's default of 128 writes a transaction).
func TestDBIndexEtcd(t *testing.T) {
	t.Parallel() // beside TestDBEtcd: each waits on a cluster of its own
	c := etcdcluster.Start(t, etcdcluster.Options{Members: etcdcluster.SuiteMembers(), MaxTxnOps: 128})
	eps := strings.Join(c.Endpoints(), ",")
	db := func(stdin string, args ...string) dbResult {
		t.Helper()
		return execDB(t, stdin, append([]string{"db", "--etcd", eps}, args...)...)
	}
	db("", "index", "create", "by_id", "{k, '_', '$1'}").expect(t, 0, nil, "indexed by_id: read 0 keys")
	db("", "index", "create", "by_cust", "{k, '$1', '_'}").expect(t, 0, nil)
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "{k, %d, %d}\tv%d\n", i%7, i, i)
	}
	db(b.String(), "load", "-").expect(t, 0, text(""), "stored 1,000 keys")
	db("", "index", "check").expect(t, 0, nil)
	db("", "index", "scan", "by_id", "'_'", "--count").expect(t, 0, text("1000\n"))
	db("", "index", "scan", "by_cust", "3", "--count").expect(t, 0, text("143\n"))
	db("", "index", "scan", "by_id", "500").expect(t, 0, text("{k,3,500}\tv500\n"))
	if r := db("", "stats"); r.code != 0 || !strings.Contains(r.stdout, "keys       1,000 (counted by the cluster)") {
		t.Errorf("stats counts the index entries too, or fails:\n%s%s", r.stdout, r.stderr)
	}
	db("", "index", "drop", "by_cust").expect(t, 0, text(""))
	db("", "index", "list").expect(t, 0, text("by_id\t{k,'_','$1'}\tready\n"))
	db("", "index", "check").expect(t, 0, nil)
}
