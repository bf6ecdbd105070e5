package matchspec_test

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/specgen"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// Unless -rapid.checks is given, each property runs testsize's count:
// 1,000 cases by default, 10,000 under CI or SEXT_TEST_SIZE=full, 100
// with -short.
func TestMain(m *testing.M) { testsize.Main(m) }

type row struct {
	key    []byte
	clause int
	result term.Term
}

func (r row) String() string {
	k, _ := sext.Decode(r.key)
	return fmt.Sprintf("%s -> clause %d: %s", k, r.clause, r.result)
}

// bruteForce runs the spec on every key, as ets:select would.
func bruteForce(spec *matchspec.Spec, keys [][]byte) []row {
	m := spec.NewMatcher()
	var out []row
	for _, k := range keys {
		t, err := sext.Decode(k)
		if err != nil {
			panic(err)
		}
		if r, ok := m.Match(t); ok {
			out = append(out, row{k, r.Clause, r.Term})
		}
	}
	return out
}

// planned reads only the plan's ranges of the sorted keys, in the given
// direction, trying each range's clauses.
func planned(spec *matchspec.Spec, keys [][]byte, reverse bool) (rows []row, read int) {
	m := spec.NewMatcher()
	plan := spec.Plan()
	for n := range plan {
		rg := plan[n]
		if reverse {
			rg = plan[len(plan)-1-n]
		}
		lo := sort.Search(len(keys), func(i int) bool { return bytes.Compare(keys[i], rg.Lower) >= 0 })
		hi := len(keys)
		if rg.Upper != nil {
			hi = sort.Search(len(keys), func(i int) bool { return bytes.Compare(keys[i], rg.Upper) >= 0 })
		}
		var part []row
		for _, k := range keys[lo:max(lo, hi)] {
			read++
			t, _ := sext.Decode(k)
			if r, ok := m.MatchClauses(t, rg.Clauses); ok {
				part = append(part, row{k, r.Clause, r.Term})
			}
		}
		if reverse {
			slices.Reverse(part)
		}
		rows = append(rows, part...)
	}
	return rows, read
}

func sameRows(a, b []row) bool {
	return slices.EqualFunc(a, b, func(x, y row) bool {
		return bytes.Equal(x.key, y.key) && x.clause == y.clause && term.Equal(x.result, y.result)
	})
}

// TestPlanEqualsBruteForce: over random sorted keys and random specs,
// selecting over the planned ranges returns exactly what running the spec
// on every key returns, in order, forward and reverse; and the plan's
// ranges ascend without overlapping.
func TestPlanEqualsBruteForce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := specgen.New(rapid.Uint64().Draw(rt, "seed"))
		spec, err := matchspec.Compile(g.Spec())
		if err != nil {
			rt.Fatalf("Compile: %v", err)
		}
		var keys [][]byte
		for range 200 {
			b, err := sext.Encode(g.Key())
			if err != nil {
				rt.Fatal(err)
			}
			keys = append(keys, b)
		}
		slices.SortFunc(keys, bytes.Compare)
		keys = slices.CompactFunc(keys, bytes.Equal)
		checkPlanShape(rt, spec)
		want := bruteForce(spec, keys)
		got, _ := planned(spec, keys, false)
		if !sameRows(got, want) {
			rt.Fatalf("spec %s\nplan %s\nforward:\n got %v\nwant %v", spec, explain(spec), got, want)
		}
		got, _ = planned(spec, keys, true)
		slices.Reverse(want)
		if !sameRows(got, want) {
			rt.Fatalf("spec %s\nplan %s\nreverse:\n got %v\nwant %v", spec, explain(spec), got, want)
		}
	})
}

func checkPlanShape(t interface{ Fatalf(string, ...any) }, spec *matchspec.Spec) {
	plan := spec.Plan()
	for i, r := range plan {
		if r.Upper != nil && bytes.Compare(r.Lower, r.Upper) >= 0 {
			t.Fatalf("range %d is empty or inverted: %s", i, explain(spec))
		}
		if i > 0 && (plan[i-1].Upper == nil || bytes.Compare(plan[i-1].Upper, r.Lower) > 0) {
			t.Fatalf("ranges %d and %d overlap: %s", i-1, i, explain(spec))
		}
		if len(r.Clauses) == 0 || !slices.IsSorted(r.Clauses) {
			t.Fatalf("range %d serves clauses %v", i, r.Clauses)
		}
	}
}

func explain(spec *matchspec.Spec) string {
	var b strings.Builder
	for _, r := range spec.Plan() {
		fmt.Fprintf(&b, "\n  [%s, %s) %v", sext.Hex.EncodeToString(r.Lower), sext.Hex.EncodeToString(r.Upper), r.Clauses)
	}
	return b.String()
}
