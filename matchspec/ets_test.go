package matchspec_test

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// TestAgreesWithETS runs the specs that Erlang/OTP 25 ran with
// ets:match_spec_run, recorded with its answers, and wants the same results:
// which clause matched, guard semantics (Erlang's term order, exceptions
// that make a guard false), bodies ('$_', '$$', templates, 'EXIT' where a
// call in a body raised).
func TestAgreesWithETS(t *testing.T) {
	f, err := os.Open("testdata/ets_run.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, matched := 0, 0
	for line := 1; sc.Scan(); line++ {
		c, err := term.Parse(sc.Text())
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		parts := c.Elems()
		spec, err := matchspec.Compile(parts[0])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		got := term.Atom("nomatch")
		if r, ok := spec.Match(parts[1]); ok {
			got = term.Tuple(term.Atom("ok"), r.Term)
			matched++
		}
		if !term.Equal(got, parts[2]) {
			t.Errorf("line %d: spec %s on %s:\n got %s\nwant %s", line, parts[0], parts[1], got, parts[2])
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 || matched < 500 {
		t.Fatalf("only %d cases (%d matching): the data file is damaged", n, matched)
	}
}

// TestPlanAgreesWithETSSelect: reading only the plan's ranges of the
// sorted keys and trying each range's clauses, as Store.Select does, gives
// the rows ets:select and ets:select_reverse gave on an ordered_set
// holding the same keys, in the same order (recorded from OTP 25).
func TestPlanAgreesWithETSSelect(t *testing.T) {
	f, err := os.Open("testdata/ets_select.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	n, rows := 0, 0
	for line := 1; sc.Scan(); line++ {
		c, err := term.Parse(sc.Text())
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		parts := c.Elems()
		var keys [][]byte
		for _, k := range parts[0].Elems() {
			b, err := sext.Encode(k)
			if err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
			keys = append(keys, b)
		}
		slices.SortFunc(keys, bytes.Compare)
		spec, err := matchspec.Compile(parts[1])
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		for dir, want := range parts[2].Elems() {
			got, _ := planned(spec, keys, dir == 1)
			results := make([]term.Term, len(got))
			for i, r := range got {
				results[i] = r.result
			}
			if !term.Equal(term.List(results...), want) {
				t.Errorf("line %d, reverse %v: spec %s\n got %s\nwant %s", line, dir == 1, spec, term.List(results...), want)
			}
			rows += len(got)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 80 || rows < 1000 {
		t.Fatalf("only %d cases, %d rows: the data file is damaged", n, rows)
	}
	t.Logf("%d specs, %d rows in both directions", n, rows)
}
