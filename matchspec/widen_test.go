package matchspec_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/specgen"
	"github.com/erlsext/sext/matchspec"
)

// TestPlanWidensWithinAllowance: planning works within an allowance
// measured in the spec's size, and what it cannot pay for it leaves out,
// widening the plan: guards unread, variables not substituted, spans
// joined into one, clause lists into one range. With allowances from none
// to a little, selecting over the plan still returns exactly what running
// the spec on every key returns, forward and reverse.
func TestPlanWidensWithinAllowance(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := specgen.New(rapid.Uint64().Draw(rt, "seed"))
		restore := matchspec.SetPlanAllowance(
			rapid.IntRange(0, 300).Draw(rt, "work"),
			rapid.IntRange(0, 400).Draw(rt, "bytes"),
			rapid.IntRange(-16, 8).Draw(rt, "entries")) // below 0, fewer than 4 a range
		defer restore()
		spec, err := matchspec.Compile(g.Spec())
		if err != nil {
			rt.Fatalf("Compile: %v", err)
		}
		spec.Plan() // planned now, within the allowance
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

// TestPlanWidenedStillNarrows: the widenings are what a spec beyond an
// allowance gets, not a plan of everything. 20,000 alternatives on a
// clause's first variable (far past 256 substitutions) still read only
// their own numbers; 600 clauses, every other one a wildcard, whose
// ranges would list 300 clauses each, read one range listing them all.
func TestPlanWidenedStillNarrows(t *testing.T) {
	spec, err := matchspec.Parse(clause1(balanced("orelse", 0, 20000, func(i int) string { return fmt.Sprintf("{'==','$1',%d}", i) })))
	if err != nil {
		t.Fatal(err)
	}
	plan := spec.Plan()
	pre, _ := sext.Prefix(mustTerm(t, "{k,'_'}"))
	for _, r := range plan {
		if !bytes.HasPrefix(r.Lower, pre) {
			t.Fatalf("a range starts at %x, outside the clause's prefix %x", r.Lower, pre)
		}
	}
	if len(plan) < 20000 {
		t.Errorf("%d ranges for 20,000 numbers", len(plan))
	}

	cs := make([]string, 600)
	for i := range cs {
		cs[i] = "{'_',[],['$_']}"
		if i%2 == 1 {
			cs[i] = fmt.Sprintf("{{k,%d},[],['$_']}", i)
		}
	}
	spec, err = matchspec.Parse("[" + strings.Join(cs, ",") + "]")
	if err != nil {
		t.Fatal(err)
	}
	plan = spec.Plan()
	if len(plan) != 1 || plan[0].Lower != nil || plan[0].Upper != nil || len(plan[0].Clauses) != 600 {
		t.Errorf("overlapping clauses: %d ranges, the first %x to %x with %d clauses; want one of everything with 600", len(plan), plan[0].Lower, plan[0].Upper, len(plan[0].Clauses))
	}
}
