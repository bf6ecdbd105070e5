package main

import (
	"github.com/erlsext/sext/internal/tmpfs"

	"bytes"
	"context"
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
	"time"
)

// smallDisk is a tmpfs of size for the test (tmpfs.Mount).
func smallDisk(t *testing.T, size string) string { return tmpfs.Mount(t, size) }

// execDBWithin runs sext as execDB does, but kills it after d and fails
// the test: a command stuck on a full disk must not hang the tests.
func execDBWithin(t *testing.T, d time.Duration, stdin string, args ...string) dbResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildDB(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sext %q did not end within %v; stderr: %.500s", args, d, errb.String())
	}
	r := dbResult{out.String(), errb.String(), 0}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running sext %q: %v", args, err)
	}
	for _, bad := range []string{"goroutine ", "panic", "background error"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("sext %q: stderr has %q: %.1000s", args, bad, r.stderr)
		}
	}
	return r
}

var storedRE = regexp.MustCompile(`([0-9,]+) keys were stored before the error, ([0-9,]+) reported durable`)

// TestDBDiskFull loads a file into a store on a 2 MiB tmpfs. The load
// ended in a re-panicked "no space left on device" with a goroutine
// dump, and every later command on the store spun in Pebble's open at
// full CPU, printing "background error" lines, deaf to SIGINT. Now the
// load ends with one line saying the disk is full and how many keys are
// durable; on the full disk scan and get read the store and put says
// the disk is full (without blaming the TERM); once the disk has room
// put works, and every key reported durable is there.
func TestDBDiskFull(t *testing.T) {
	mnt := smallDisk(t, "2m")
	dir := filepath.Join(mnt, "s")
	var b bytes.Buffer
	for i := range 40000 {
		fmt.Fprintf(&b, "{k, %d}\t%s\n", i, strings.Repeat("v", 100))
	}
	file := filepath.Join(t.TempDir(), "load.txt")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := execDBWithin(t, 30*time.Second, "", "db", "--dir", dir, "load", "--batch", "500", "--progress", "1ms", file)
	r.expect(t, 1, text(""), "no space left on device")
	m := storedRE.FindStringSubmatch(r.stderr)
	if m == nil || strings.Count(r.stderr, "no space left on device") != 1 {
		t.Fatalf("load onto a full disk said %q, want one line about the full disk and the keys durable", r.stderr)
	}
	durable, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	if durable == 0 {
		t.Fatalf("no keys durable before the disk filled: %q", r.stderr)
	}

	count := func() int {
		t.Helper()
		r := execDBWithin(t, 20*time.Second, "", "db", "--dir", dir, "scan", "{k, '_'}", "--count")
		if r.code != 0 {
			t.Fatalf("scan --count: exit %d, stderr %q", r.code, r.stderr)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(r.stdout))
		return n
	}
	if n := count(); n < durable {
		t.Errorf("scan --count on the full disk: %d keys, want at least the %d reported durable", n, durable)
	}
	execDBWithin(t, 20*time.Second, "", "db", "--dir", dir, "get", fmt.Sprintf("{k, %d}", durable-1)).expect(t, 0, text(strings.Repeat("v", 100)+"\n"))
	r = execDBWithin(t, 20*time.Second, "", "db", "--dir", dir, "put", "{x, 1}", "y")
	r.expect(t, 1, text(""), "no space left on device")
	if strings.Contains(r.stderr, "TERM") {
		t.Errorf("put onto a full disk blames the TERM: %q", r.stderr)
	}

	if err := syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT, "size=64m"); err != nil {
		t.Fatal(err)
	}
	execDBWithin(t, 20*time.Second, "", "db", "--dir", dir, "put", "{x, 1}", "y").expect(t, 0, text(""))
	if n := count(); n < durable {
		t.Errorf("scan --count once the disk has room: %d keys, want at least the %d reported durable", n, durable)
	}
}
