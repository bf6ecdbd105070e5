package store_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
)

// TestTableModelCrash: a child process runs the model's random steps on
// a Pebble store with synced writes, saying "done N" after each, and is
// killed with SIGKILL after a random number of them. On opening the
// store again, and after CheckTables with Fix has finished whatever
// build or drop the kill cut short, the store agrees with the model
// after the steps reported done, or after one more (the step the kill
// may have landed in, which either committed or did not): objects,
// count, indexes and a clean CheckTables. In half the rounds the kill
// waits for a build or drop of an index to report its first step, so
// that it lands inside one.
func TestTableModelCrash(t *testing.T) {
	if dir := os.Getenv("SEXT_TABLE_CRASH_DIR"); dir != "" {
		seed, _ := strconv.ParseUint(os.Getenv("SEXT_TABLE_CRASH_SEED"), 10, 64)
		tbCrashChild(dir, seed)
		return
	}
	ctx := context.Background()
	rounds := testsize.Pick(6, 20)
	for round := range rounds {
		seed := uint64(round)*7919 + 1
		steps := tbSteps(rand.New(rand.NewPCG(seed, 28)), 80)
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestTableModelCrash$")
		cmd.Env = append(os.Environ(), "SEXT_TABLE_CRASH_DIR="+dir, fmt.Sprint("SEXT_TABLE_CRASH_SEED=", seed))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAt := int(seed % 70)
		done, ready := 0, false
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			inside := false
			switch n, ok := strings.CutPrefix(line, "done "); {
			case line == "ready":
				ready = true
			case line == "step":
				inside = true
			case ok:
				done, _ = strconv.Atoi(n)
			default:
				t.Logf("child: %s", line)
			}
			if ready && done >= killAt && (round%2 == 0 || inside) {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		for sc.Scan() { // what the child said before it died
			if n, ok := strings.CutPrefix(sc.Text(), "done "); ok {
				done, _ = strconv.Atoi(n)
			}
		}
		cmd.Wait()
		if !ready {
			t.Fatalf("round %d: the child ended before it made its table", round)
		}
		s, err := pebblestore.Open(ctx, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		fix, err := s.CheckTables(ctx, store.TableCheckOptions{Fix: true})
		if err != nil {
			t.Fatal(err)
		}
		m := newTBModel()
		for _, st := range steps[:done] {
			next := m.clone()
			if next.apply(st) == nil {
				m = next
			}
		}
		why := tbAgree(ctx, s, m)
		if why != "" && done < len(steps) {
			after := m.clone()
			if after.apply(steps[done]) == nil {
				if why2 := tbAgree(ctx, s, after); why2 == "" {
					why = ""
				} else {
					why += "; and after the step in flight, " + why2
				}
			}
		}
		if why != "" {
			t.Fatalf("round %d (seed %d), killed after %d steps reported done (check with Fix: %+v): %s", round, seed, done, fix, why)
		}
		t.Logf("round %d: killed after step %d; CheckTables with Fix found %+v", round, done, fix)
		s.Close()
	}
}

// tbCrashChild runs the steps of seed on the store in dir until killed.
func tbCrashChild(dir string, seed uint64) {
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	if err := s.CreateTable(ctx, tbDef); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("ready")
	for i, st := range tbSteps(rand.New(rand.NewPCG(seed, 28)), 80) {
		st.run(ctx, s, func(int64) { fmt.Println("step") }) // refusals are the model's to predict
		fmt.Printf("done %d\n", i+1)
	}
	s.Close()
	os.Exit(0)
}
