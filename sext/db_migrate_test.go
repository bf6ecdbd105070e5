package main

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
)

const migrateDescSpec = `[{{order,'$1','$2','$3'},[{is_integer,'$2'}],[{{order,'$1',#Desc<'$2'>,'$3'}}]}]`

// TestDBMigrate: a dry run shows what will move and changes nothing; the
// migration moves keys, values and index entries; a second run moves
// nothing; conflicts are printed and exit 1; a specification that cannot
// tell new keys from old, and a bad token, are usage errors.
func TestDBMigrate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db := func(args ...string) dbResult {
		t.Helper()
		return execDB(t, "", append([]string{"db", "--dir", dir}, args...)...)
	}
	execDB(t, "{order,1,100,7}\ta\n{order,1,200,8}\tb\n{order,2,150,9}\tc\n{note,1}\tn\n", "db", "--dir", dir, "load", "-").expect(t, 0, nil)
	db("index", "create", "by_id", "{order,'_','_','$1'}").expect(t, 0, nil)
	moves := text("move\t{order,1,100,7}\t{order,1,#Desc<100>,7}\n",
		"move\t{order,1,200,8}\t{order,1,#Desc<200>,8}\n",
		"move\t{order,2,150,9}\t{order,2,#Desc<150>,9}\n")
	db("migrate", "--dry-run", migrateDescSpec).expect(t, 0, moves, "dry run: would migrate 3 keys (read 3; 0 conflicts left; 0 already of the new layout)")
	db("scan", "{order,'_','_','_'}", "--count").expect(t, 0, text("3\n"))
	db("select", `[{{order,'_','$1','_'},[{is_integer,'$1'}],['$1']}]`).expect(t, 0, text("100\n200\n150\n"))
	db("migrate", "--batch", "2", migrateDescSpec).expect(t, 0, moves, "migrated 3 keys (read 3; 0 conflicts left")
	db("scan", "{order,'_','_','_'}").expect(t, 0, text("{order,1,#Desc<200>,8}\tb\n{order,1,#Desc<100>,7}\ta\n{order,2,#Desc<150>,9}\tc\n"))
	db("index", "scan", "by_id", "9").expect(t, 0, text("{order,2,#Desc<150>,9}\tc\n"))
	db("index", "check").expect(t, 0, nil)
	db("migrate", migrateDescSpec).expect(t, 0, text(""), "migrated 0 keys (read 3; 0 conflicts left; 0 already of the new layout)")
	db("migrate", "--samples", "0", `[{{order,'$1','_','$2'},[],[{{order,'$1','$2'}}]}]`).expect(t, 0, text(""), "migrated 3 keys")

	// {order,C,I} -> {last,C}: one move for each customer, the rest
	// conflicts, printed and left.
	db("migrate", `[{{order,'$1','_'},[],[{{last,'$1'}}]}]`).expect(t, 1,
		text("move\t{order,1,7}\t{last,1}\n", "move\t{order,2,9}\t{last,2}\n", "conflict\t{order,1,8}\t{last,1}\n"),
		"migrated 2 keys (read 3; 1 conflict left;")
	db("get", "{order,1,8}").expect(t, 0, text("b\n"))
	db("get", "{last,1}").expect(t, 0, text("a\n"))

	db("migrate", `[{{note,'$1'},[],[{{note,{element,2,'$_'}}}]}]`).expect(t, 2, text(""), "cannot define a migration: clause 1")
	db("migrate", "--after", "m1.AQ", migrateDescSpec).expect(t, 2, text(""), "malformed continuation token")
	db("migrate", "--after", "s1.AQ", migrateDescSpec).expect(t, 2, text(""), "continuation token is for another")
	db("migrate", "--batch", "-1", migrateDescSpec).expect(t, 2, text(""), "--batch must not be negative")
	db("migrate").expect(t, 2, text(""), "want one SPEC")
	r := execDB(t, "", "db", "migrate", "--help")
	r.expect(t, 0, nil)
	for _, s := range []string{"sext db --dir DIR migrate [--dry-run] [--after TOKEN] [--batch N]", "conflict<TAB>FROM<TAB>TO", "--after"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("help lacks %q:\n%s", s, r.stdout)
		}
	}
}

// resumeRE finds a progress line's token.
var resumeRE = regexp.MustCompile(`^migrating: .*; resume: --after (\S+)$`)

// killMigration starts sext db ARGS... migrate, kills it with SIGKILL
// after it has reported progress reports times, and returns the tokens
// it reported.
func killMigration(t *testing.T, reports int, args ...string) []string {
	t.Helper()
	cmd := exec.Command(buildDB(t), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := resumeRE.FindStringSubmatch(sc.Text()); m != nil {
			if tokens = append(tokens, m[1]); len(tokens) == reports {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the migration ended with %v before the kill (%d reports); give it more keys", err, len(tokens))
	}
	return tokens
}

// checkKilledMigration kills a migration of n orders midway, resumes it
// from its last token, and checks the store: every order in the new
// layout once with its value, its index entry right; then the same from
// the first token and from the start moves nothing.
func checkKilledMigration(t *testing.T, n, batch int, db func(stdin string, args ...string) dbResult, base []string) {
	var b strings.Builder
	var want strings.Builder
	for id := range n {
		fmt.Fprintf(&b, "{order,%d,%d,%d}\tv%d\n", id%11, 1000+id%97, id, id)
	}
	db(b.String(), "load", "-").expect(t, 0, nil)
	db("", "index", "create", "by_id", "{order,'_','_','$1'}").expect(t, 0, nil)
	tokens := killMigration(t, 4, append(base, "migrate", "--batch", fmt.Sprint(batch), "--progress", "1ms", migrateDescSpec)...)
	old := db("", "select", `[{{order,'_','$1','_'},[{is_integer,'$1'}],['$1']}]`).stdout
	left := strings.Count(old, "\n")
	if left == 0 || left == n {
		t.Fatalf("killed with %d of %d keys in the old layout; want some but not all", left, n)
	}
	t.Logf("killed after %d progress reports, %d of %d keys still to move", len(tokens), left, n)
	db("", "index", "check").expect(t, 0, nil)
	r := db("", "migrate", "--after", tokens[len(tokens)-1], migrateDescSpec)
	r.expect(t, 0, nil, "migrated ")
	for id := range n {
		fmt.Fprintf(&want, "{order,%d,#Desc<%d>,%d}\tv%d\n", id%11, 1000+id%97, id, id)
	}
	got := db("", "scan", "{order,'_','_','_'}")
	got.expect(t, 0, nil)
	if sorted(got.stdout) != sorted(want.String()) {
		t.Fatalf("after the resumed migration the store holds %d lines, not the %d orders in the new layout", strings.Count(got.stdout, "\n"), n)
	}
	db("", "index", "check").expect(t, 0, nil)
	db("", "index", "scan", "by_id", "'_'", "--count").expect(t, 0, text(fmt.Sprintln(n)))
	db("", "migrate", "--after", tokens[0], migrateDescSpec).expect(t, 0, text(""), "migrated 0 keys")
	db("", "migrate", migrateDescSpec).expect(t, 0, text(""), "migrated 0 keys", fmt.Sprintf("(read %s;", commas(int64(n))))
}

func sorted(lines string) string {
	ls := strings.Split(strings.TrimSuffix(lines, "\n"), "\n")
	slices.Sort(ls)
	return strings.Join(ls, "\n")
}

// TestDBMigrateSIGKILL kills sext db migrate with SIGKILL midway on
// Pebble and resumes it with the last token it reported: 40,000 orders
// at testsize's full size, 20,000 in a quick run (the kill comes after
// some hundreds).
func TestDBMigrateSIGKILL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	base := []string{"db", "--dir", dir}
	checkKilledMigration(t, testsize.Pick(20000, 40000), 200, func(stdin string, args ...string) dbResult {
		t.Helper()
		return execDB(t, stdin, append(base, args...)...)
	}, base)
}

// TestDBMigrateEtcdSIGKILL does the same on an etcd cluster of its own,
// with 3,000 orders and three members at testsize's full size, 1,500
// and one in a quick run (etcdcluster.SuiteMembers; TestDBEtcd kills
// members of three).
func TestDBMigrateEtcdSIGKILL(t *testing.T) {
	t.Parallel() // it waits on a cluster of its own
	c := etcdcluster.Start(t, etcdcluster.Options{Members: etcdcluster.SuiteMembers()})
	base := []string{"db", "--etcd", strings.Join(c.Endpoints(), ",")}
	checkKilledMigration(t, testsize.Pick(1500, 3000), 20, func(stdin string, args ...string) dbResult {
		t.Helper()
		return execDB(t, stdin, append(base, args...)...)
	}, base)
}
