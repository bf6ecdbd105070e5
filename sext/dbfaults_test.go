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

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/store/storetest/seeds"
	"github.com/erlsext/sext/term"
)

// flushedStore writes n keys {k, I} into a Pebble store in dir and
// flushes them into tables, so that there is a table to damage.
func flushedStore(t *testing.T, dir string, n int) {
	t.Helper()
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(kv, &store.Options{NoSync: true})
	b := s.NewBatch()
	for i := range n {
		b.Put(term.Tuple(term.Atom("k"), term.Int(int64(i))), bytes.Repeat([]byte("v"), 100))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := kv.DB().Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func dirFiles(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		if e.Name() == "LOCK" {
			continue
		}
		fi, _ := e.Info()
		fmt.Fprintf(&b, "%s %d\n", e.Name(), fi.Size())
	}
	return b.String()
}

// TestDBCorruptTable: a scan over a table with flipped bytes ends with
// one "sext:" line naming the table, exit status 1, and no stack dump
// (execDB fails the test on one).
func TestDBCorruptTable(t *testing.T) {
	dir := t.TempDir()
	flushedStore(t, dir, 20000)
	var sst string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".sst") {
			sst = e.Name()
		}
	}
	path := filepath.Join(dir, sst)
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 1000 {
		t.Fatalf("table %q: %d bytes, %v", sst, len(data), err)
	}
	for i := len(data) / 2; i < len(data)/2+64; i++ {
		data[i] ^= 0xFF
	}
	os.WriteFile(path, data, 0o644)

	for _, args := range [][]string{
		{"scan", "{k, '_'}", "--count"},
		{"stats", "--exact"},
		{"check"},
	} {
		r := execDB(t, "", append([]string{"db", "--dir", dir}, args...)...)
		if r.code != 1 {
			t.Errorf("%q on a corrupt table: exit %d, want 1", args, r.code)
		}
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		var corrupt []string
		for _, l := range lines {
			if strings.Contains(l, "data corrupt") {
				corrupt = append(corrupt, l)
			}
		}
		if len(corrupt) != 1 || !strings.HasPrefix(corrupt[0], "sext: ") || !strings.Contains(corrupt[0], sst) {
			t.Errorf("%q on a corrupt table: stderr %q, want one sext: line naming %s", args, r.stderr, sst)
		}
		// A count the error cut short is not printed as if it were the
		// total: stdout stays empty and stderr says how far it got.
		if args[0] == "scan" && (r.stdout != "" || !strings.Contains(r.stderr, "sext: no count: the scan stopped after ")) {
			t.Errorf("scan --count on a corrupt table: stdout %q, stderr %q; want no count and a note", r.stdout, r.stderr)
		}
	}
}

// TestDBMarkerRemoved: without its manifest marker a store's directory
// is refused by every command, put included, with no hint to create a
// store, and no file changes.
func TestDBMarkerRemoved(t *testing.T) {
	dir := t.TempDir()
	flushedStore(t, dir, 5000)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "marker.manifest.") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	before := dirFiles(t, dir)
	for _, args := range [][]string{{"get", "{k, 1}"}, {"scan", "'_'"}, {"put", "{k, 1}", "x"}, {"load", "-"}, {"check", "--fix"}} {
		r := execDB(t, "{k, 2}\ty\n", append([]string{"db", "--dir", dir}, args...)...)
		r.expect(t, 1, text(""), "no manifest marker", "refusing")
		if strings.Contains(r.stderr, "creates a store") {
			t.Errorf("%q suggests creating a store over the files: %q", args, r.stderr)
		}
	}
	if after := dirFiles(t, dir); after != before {
		t.Errorf("files changed:\n%s\nwant:\n%s", after, before)
	}
}

var durableRE = regexp.MustCompile(`loading: ([0-9,]+) keys, ([0-9,]+) durable`)

// TestDBLoadSIGKILL kills a load with SIGKILL after it has reported some
// keys durable: every key it reported is there after the kill, with its
// value; the store opens, and every key in it decodes.
func TestDBLoadSIGKILL(t *testing.T) {
	const n = 400000
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "load.txt")
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "{k, %d}\tv%d\n", i, i)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for trial := range 3 {
		dir := filepath.Join(dir, strconv.Itoa(trial))
		cmd := exec.Command(buildDB(t), "db", "--dir", dir, "load", "--batch", strconv.Itoa(50+trial*100), "--progress", "20ms", file)
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
			m := durableRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			d, _ := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
			durable = d
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
		if durable == 0 || durable >= n {
			t.Fatalf("trial %d: killed after %d keys were reported durable, want some but not all", trial, durable)
		}

		s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
		if err != nil {
			t.Fatalf("trial %d: the store does not open after the kill: %v", trial, err)
		}
		// Keys {k, I} sort by I: the first durable keys of a scan are
		// those reported, in order. (A Get of each of the hundreds of
		// thousands took most of the test's time.)
		next := int64(0)
		for e, err := range s.Scan(ctx, term.Tuple(term.Atom("k"), term.Atom("_")), store.ScanOptions{}) {
			if err != nil {
				s.Close()
				t.Fatalf("trial %d: scan: %v", trial, err)
			}
			if next == durable {
				break
			}
			if id := e.Key.Elems()[1]; !id.IsInt64() || id.Int64() != next || string(e.Value) != fmt.Sprintf("v%d", next) {
				s.Close()
				t.Fatalf("trial %d: key {k,%d} of %d reported durable: the store holds %v = %q in its place", trial, next, durable, e.Key, e.Value)
			}
			next++
		}
		if next != durable {
			s.Close()
			t.Fatalf("trial %d: %d keys reported durable, the store holds %d of them", trial, durable, next)
		}
		r, err := s.Check(ctx, store.CheckOptions{})
		if err != nil || r.Foreign != 0 || r.NonCanonical != 0 || r.Keys < durable {
			t.Errorf("trial %d: Check after the kill = %+v, %v; want %d or more keys, all decoding", trial, r, err, durable)
		}
		t.Logf("trial %d: killed after %d keys reported durable; %d keys in the store", trial, durable, r.Keys)
		s.Close()
	}
}

// TestDBLoadInterrupt interrupts a load as Ctrl-C would: it stops
// between batches, closes the store and says how many keys it stored,
// all of them durable, and they are all there.
func TestDBLoadInterrupt(t *testing.T) {
	const n = 400000
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "load.txt")
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "{k, %d}\tv%d\n", i, i)
	}
	os.WriteFile(file, b.Bytes(), 0o644)
	cmd := exec.Command(buildDB(t), "db", "--dir", dir, "load", "--batch", "1", "--progress", "20ms", file)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var rest []string
	reports := 0
	for sc.Scan() {
		if durableRE.MatchString(sc.Text()) {
			if reports++; reports == 3 {
				cmd.Process.Signal(os.Interrupt)
			}
			continue
		}
		rest = append(rest, sc.Text())
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("interrupted load: %v, want exit status 1; stderr %q", err, rest)
	}
	m := regexp.MustCompile(`^sext: interrupted: ([0-9,]+) keys stored, all durable$`).FindStringSubmatch(strings.Join(rest, "\n"))
	if m == nil {
		t.Fatalf("interrupted load said %q", rest)
	}
	stored, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Check(ctx, store.CheckOptions{})
	if err != nil || r.Keys != stored || !r.Clean() {
		t.Errorf("after the interrupt: %+v, %v; want %d keys, clean", r, err, stored)
	}
	if stored == 0 || stored >= n {
		t.Errorf("interrupt after %d of %d keys, want some but not all", stored, n)
	}
}

// TestDBCheck seeds a Pebble store with foreign, legacy-bignum and
// unsorted-map keys and runs scan, stats --exact, check and check --fix
// on it, before and after.
func TestDBCheck(t *testing.T) {
	dir := t.TempDir()
	execDB(t, "{k, 1}\tone\n{k, 2}\ttwo\n", "db", "--dir", dir, "load", "-").expect(t, 0, text(""))
	seeds := seeds.New(t)
	kv, err := pebblekv.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	seedKeys(t, kv, seeds)
	kv.Close()
	checkCLI(t, seeds, func(stdin string, args ...string) dbResult {
		t.Helper()
		return execDB(t, stdin, append([]string{"db", "--dir", dir}, args...)...)
	}, func() {
		kv, err := pebblekv.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer kv.Close()
		wb := kv.NewBatch()
		wb.Delete(seeds.Foreign)
		if err := wb.Commit(ctx, true); err != nil {
			t.Fatal(err)
		}
	})
}

func seedKeys(t *testing.T, kv store.KV, seeds seeds.Seeds) {
	t.Helper()
	wb := kv.NewBatch()
	wb.Set(seeds.Foreign, []byte("foreign"))
	wb.Set(seeds.Legacy, []byte("legacy"))
	wb.Set(seeds.Unsorted, []byte("unsorted"))
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
}

// checkCLI runs the check story on a store holding {k,1}, {k,2} and the
// seeds; dropForeign removes the foreign key behind the command's back.
func checkCLI(t *testing.T, seeds seeds.Seeds, db func(stdin string, args ...string) dbResult, dropForeign func()) {
	t.Helper()
	legacy, unsorted := seeds.LegacyTerm.String(), seeds.UnsortedTerm.String()
	// Before: a scan shows the keys and says which are not canonical.
	r := db("", "scan", "'_'")
	r.expect(t, 1, text(legacy+"\tlegacy\n", "{k,1}\tone\n", "{k,2}\ttwo\n", unsorted+"\tunsorted\n"),
		"not a sext encoding", "not in canonical form: "+legacy, "not in canonical form: "+unsorted)
	db("", "get", legacy).expect(t, 1, text(""), "not found")
	r = db("", "stats", "--exact")
	r.expect(t, 1, nil, "1 foreign keys", "2 non-canonical keys")
	r = db("", "check")
	r.expect(t, 1, text("keys           5\n", "foreign        1\n", "non-canonical  2\n", "torn logs      0\n"), "not a sext encoding", "check --fix rewrites it")

	// The fix: both rewritten, values kept; the foreign key stays, so the
	// status is still 1.
	r = db("", "check", "--fix")
	r.expect(t, 1, text("keys           5\n", "foreign        1\n", "non-canonical  2\n", "rewritten      2\n", "conflicts      0\n", "torn logs      0\n"),
		"rewritten as "+legacy, "rewritten as "+unsorted)
	db("", "get", legacy).expect(t, 0, text("legacy\n"))
	db("", "get", unsorted).expect(t, 0, text("unsorted\n"))
	db("", "check").expect(t, 1, text("keys           5\n", "foreign        1\n", "non-canonical  0\n", "torn logs      0\n"))
	db("", "del", legacy).expect(t, 0, text(""))
	db("", "scan", "{big, '_'}").expect(t, 0, text(""))

	dropForeign()
	db("", "check").expect(t, 0, text("keys           3\n", "foreign        0\n", "non-canonical  0\n", "torn logs      0\n"))
	db("", "check", "--fix").expect(t, 0, nil)
	db("", "stats", "--exact").expect(t, 0, nil)
}

// TestDBTornLog: a store whose log was cut short says so when a command
// opens it, and check reports it until check --fix clears the note.
func TestDBTornLog(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := s.Put(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte("synced")); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	var log string
	for _, e := range ents {
		if e.Name() == "LOCK" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), ".log") && len(data) > 1000 {
			log, data = e.Name(), data[:len(data)/2]
		}
		os.WriteFile(filepath.Join(crashed, e.Name()), data, 0o644)
	}
	s.Close()
	if log == "" {
		t.Fatal("no write-ahead log with the keys in it")
	}
	r := execDB(t, "", "db", "--dir", crashed, "scan", "'_'", "--count")
	r.expect(t, 0, nil, "sext: warning: ", log, "torn record", "check --fix clears")
	if n, _ := strconv.Atoi(strings.TrimSpace(r.stdout)); n == 0 || n >= 1000 {
		t.Errorf("%d keys after the torn log, want some but not all", n)
	}
	execDB(t, "", "db", "--dir", crashed, "check").expect(t, 1, nil, log)
	execDB(t, "", "db", "--dir", crashed, "check", "--fix").expect(t, 0, nil, log)
	r = execDB(t, "", "db", "--dir", crashed, "check")
	r.expect(t, 0, nil)
	if r.stderr != "" {
		t.Errorf("check after --fix: stderr %q, want none", r.stderr)
	}
}

// TestDBUTF8Atoms: the codec flags reach the store, so a key with a
// UTF-8 atom can be stored and read back.
func TestDBUTF8Atoms(t *testing.T) {
	dir := t.TempDir()
	k := "{'café€', 1}"
	execDB(t, "", "db", "--dir", dir, "put", k, "x").expect(t, 1, text(""), "--utf8-atoms")
	execDB(t, "", "db", "--utf8-atoms", "--dir", dir, "put", k, "x").expect(t, 0, text(""))
	execDB(t, "", "db", "--utf8-atoms", "--dir", dir, "get", k).expect(t, 0, text("x\n"))
	execDB(t, "", "db", "--utf8-atoms", "--dir", dir, "scan", "{'café€', '_'}").expect(t, 0, text("{'café€',1}\tx\n"))
	execDB(t, "", "db", "--dir", dir, "--max-depth", "-1", "stats").expect(t, 2, text(""), "--max-depth")
}

// TestDBScanLoadKeepsCR: a value ending in CR, as scan prints it, loads
// back with its CR (load cut it off as if it were a CRLF line end); a
// file with CRLF line ends loads with --crlf.
func TestDBScanLoadKeepsCR(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	execDB(t, "", "db", "--dir", from, "put", "{r, 1}", "x\r").expect(t, 0, text(""))
	execDB(t, "", "db", "--dir", from, "put", "{r, 2}", "\r").expect(t, 0, text(""))
	dump := execDB(t, "", "db", "--dir", from, "scan", "{r, '_'}")
	dump.expect(t, 0, text("{r,1}\tx\r\n", "{r,2}\t\r\n"))
	execDB(t, dump.stdout, "db", "--dir", to, "load", "-").expect(t, 0, text(""), "stored 2 keys")
	execDB(t, "", "db", "--dir", to, "get", "{r, 1}").expect(t, 0, text("x\r\n"))
	execDB(t, "", "db", "--dir", to, "get", "{r, 2}").expect(t, 0, text("\r\n"))

	execDB(t, "{s, 1}\ta\r\n{s, 2}\tb\r\n", "db", "--dir", to, "load", "--crlf", "-").expect(t, 0, text(""), "stored 2 keys")
	execDB(t, "", "db", "--dir", to, "scan", "{s, '_'}").expect(t, 0, text("{s,1}\ta\n", "{s,2}\tb\n"))
}

// TestDBPutStoreErrorNotTerm: a put the store refuses (here an etcd
// cluster that does not answer) is reported as get and del report a
// store's failure, not as a fault of the TERM argument.
func TestDBPutStoreErrorNotTerm(t *testing.T) {
	r := execDB(t, "", "db", "--etcd", "127.0.0.1:1", "--timeout", "200ms", "put", "{a, 1}", "x")
	r.expect(t, 1, text(""), "sext: store: backend unavailable")
	if strings.Contains(r.stderr, "TERM") {
		t.Errorf("put to a cluster that does not answer: %q blames the TERM", r.stderr)
	}
}
