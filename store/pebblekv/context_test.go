package pebblekv_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// TestContext: the embedded backend honours a cancelled context before
// every call, and a cursor stops within 256 keys of its context being
// cancelled.
func TestContext(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 5000)
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckCancelled(t, s, term.Tuple(term.Atom("k"), term.Int(1)), map[string]func(context.Context) error{
		"Sync":  s.Sync,
		"Check": func(ctx context.Context) error { _, err := s.Check(ctx, store.CheckOptions{}); return err },
	})
	storetest.CheckScanCancel(t, s, 1000, 1000+256)
}

// TestNoSyncSyncSurvivesSIGKILL re-runs the test binary as a child that
// writes with NoSync, calls Sync after every 500 keys and reports the
// count, and keeps writing; the parent kills it with SIGKILL after a few
// reports. Every key the child reported synced is there. (Without Sync,
// NoSync writes live in the child's memory and SIGKILL loses them: the
// reason NoSync no longer promises to survive a crash of the process.)
func TestNoSyncSyncSurvivesSIGKILL(t *testing.T) {
	if dir := os.Getenv("PEBBLEKV_SYNC_CHILD"); dir != "" {
		syncChild(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoSyncSyncSurvivesSIGKILL$")
	cmd.Env = append(os.Environ(), "PEBBLEKV_SYNC_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	synced, reports := 0, 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		n, ok := strings.CutPrefix(sc.Text(), "synced ")
		if !ok {
			continue
		}
		synced, _ = strconv.Atoi(n)
		if reports++; reports == 5 {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	cmd.Wait()
	if reports < 5 {
		t.Fatalf("child reported %d times before it ended", reports)
	}
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range synced {
		if v, err := s.Get(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i)))); err != nil || string(v) != fmt.Sprint(i) {
			t.Fatalf("key %d of %d reported synced: %q, %v", i, synced, v, err)
		}
	}
	t.Logf("killed after %d keys reported synced; all %d there", synced, synced)
}

func syncChild(dir string) {
	s, err := pebblestore.Open(ctx, dir, &pebblestore.Options{Store: store.Options{NoSync: true}})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		if err := s.Put(ctx, term.Tuple(term.Atom("k"), term.Int(int64(i))), []byte(fmt.Sprint(i))); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if (i+1)%500 == 0 {
			if err := s.Sync(ctx); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
			fmt.Printf("synced %d\n", i+1)
		}
	}
}
