package matchspec_test

import (
	"bufio"
	"os"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// TestAgreesWithETS runs the specs that Erlang/OTP 25 ran with
// ets:match_spec_run (testdata/README.md) and wants the same results:
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
