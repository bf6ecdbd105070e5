package matchspec_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
)

// inPlan reports which clauses' ranges hold the key, or nil.
func inPlan(t *testing.T, spec *matchspec.Spec, key string) []int {
	t.Helper()
	k, err := sext.Encode(mustTerm(t, key))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range spec.Plan() {
		if bytes.Compare(k, r.Lower) >= 0 && (r.Upper == nil || bytes.Compare(k, r.Upper) < 0) {
			return r.Clauses
		}
	}
	return nil
}

// TestPlanBounds: the guards narrow the ranges exactly as far as sext's
// order of numbers allows, and no further.
func TestPlanBounds(t *testing.T) {
	tests := []struct {
		spec   string
		ranges int
		in     []string // keys inside the plan
		out    []string // keys outside it
	}{
		{
			spec:   `[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`,
			ranges: 1,
			in:     []string{"{order,500,a,b}", "{order,500.0,a,b}", "{order,999.5,x,y}", "{order,999,a,b}"},
			out:    []string{"{order,499.5,a,b}", "{order,1000,a,b}", "{order,1000.0,a,b}", "{order,499,a,b}", "{user,600,a,b}", "{order,600,a}"},
		},
		{
			spec:   `[{{order,'$1'},[{'>','$1',500},{'=<','$1',1000}],['$_']}]`,
			ranges: 1,
			in:     []string{"{order,500.5}", "{order,1000}", "{order,1000.0}"},
			out:    []string{"{order,500}", "{order,500.0}", "{order,1000.5}"},
		},
		{
			spec:   `[{{order,'$1'},[{'<','$1',-1}],['$_']}]`, // -1.0 sorts before -1
			ranges: 1,
			in:     []string{"{order,-1.5}", "{order,#Desc<1>}"},
			out:    []string{"{order,-1}", "{order,-1.0}", "{order,a}"},
		},
		{
			// Erlang's == ignores a reference's zero id words at the high end.
			spec:   `[{{ref,'$1'},[{'==','$1',#Ref<a@h,1,7>}],['$_']}]`,
			ranges: 1,
			in:     []string{"{ref,#Ref<a@h,1,7>}", "{ref,#Ref<a@h,1,7,0>}", "{ref,#Ref<a@h,1,7,0,0>}"},
			out:    []string{"{user,#Ref<a@h,1,7>}"},
		},
		{
			spec:   `[{{order,'$1'},[{'>=','$1',0}],['$_']}]`, // -0.0 == 0
			ranges: 1,
			in:     []string{"{order,-0.0}", "{order,0}", "{order,0.0}", "{order,a}", "{order,<<>>}"},
			out:    []string{"{order,-0.5}", "{order,-1}"},
		},
		{
			spec:   `[{{order,'$1'},[{is_atom,'$1'}],['$_']}]`,
			ranges: 1,
			in:     []string{"{order,a}", "{order,zzz}"},
			out:    []string{"{order,1}", "{order,{a}}", "{order,\"a\"}", "{order,<<\"a\">>}"},
		},
		{
			spec:   `[{{order,'$1'},[{is_list,'$1'}],['$_']}]`,
			ranges: 1,
			in:     []string{"{order,[]}", "{order,[a|b]}"},
			out:    []string{"{order,#{}}", "{order,<<>>}"},
		},
		{
			// == 7 is two literals, 7 and 7.0: the prefix runs on to '$2'.
			spec:   `[{{order,'$1','$2'},[{'==','$1',7},{'>','$2',100}],['$_']}]`,
			ranges: 2,
			in:     []string{"{order,7,101}", "{order,7.0,a}"},
			out:    []string{"{order,7,100}", "{order,7.5,200}", "{order,8,200}"},
		},
		{
			// orelse of =:= gives two literals; the and-ed bound applies to both.
			spec:   `[{{order,'$1','$2'},[{'orelse',{'=:=','$1',a},{'=:=','$1',c}},{'<','$2',5}],['$_']}]`,
			ranges: 2,
			in:     []string{"{order,a,4}", "{order,c,4.5}"},
			out:    []string{"{order,b,1}", "{order,a,5}", "{order,c,5.0}"},
		},
		{
			// Inside a Desc the bounds turn round.
			spec:   `[{{order,42,#Desc<'$1'>,'_'},[{'>=','$1',100},{'<','$1',200}],['$_']}]`,
			ranges: 1,
			in:     []string{"{order,42,#Desc<100>,x}", "{order,42,#Desc<199.5>,y}"},
			out:    []string{"{order,42,#Desc<99>,x}", "{order,42,#Desc<200>,x}", "{order,42,#Desc<200.0>,x}", "{order,43,#Desc<150>,x}"},
		},
		{
			// Guards that say nothing about '$1' leave the head's prefix.
			spec:   `[{{order,'$1'},[{'orelse',{'>','$1',5},{is_atom,'$2'}}],['$_']}]`,
			ranges: 0, // not checked: the head has no '$2', so this does not compile
		},
		{
			spec:   `[{{order,'$1','$2'},[{'not',{'<','$1',5}},{'>','$2',1}],['$_']}]`,
			ranges: 1,
			in:     []string{"{order,1,2}", "{order,9,2}"},
			out:    []string{"{user,1,2}"},
		},
		{
			// A guard that is never true: no ranges at all.
			spec:   `[{{order,'$1'},[{'andalso',{'<','$1',5},{'>','$1',10}}],['$_']}]`,
			ranges: 0,
			out:    []string{"{order,3}", "{order,11}"},
		},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			spec, err := matchspec.Parse(tc.spec)
			if err != nil {
				if tc.ranges == 0 && tc.in == nil && tc.out == nil {
					return
				}
				t.Fatal(err)
			}
			if n := len(spec.Plan()); n != tc.ranges {
				t.Errorf("%s: %d ranges, want %d:%s", tc.spec, n, tc.ranges, explain(spec))
			}
			for _, k := range tc.in {
				if inPlan(t, spec, k) == nil {
					t.Errorf("%s: %s is outside the plan:%s", tc.spec, k, explain(spec))
				}
			}
			for _, k := range tc.out {
				if cl := inPlan(t, spec, k); cl != nil {
					t.Errorf("%s: %s is inside the plan (clauses %v):%s", tc.spec, k, cl, explain(spec))
				}
			}
		})
	}
}

// TestPlanMergesClauses: overlapping clauses share ranges; each range
// lists the clauses that cover it, so a key two clauses match is read
// once and goes to the first.
func TestPlanMergesClauses(t *testing.T) {
	spec := matchspec.MustParse(`[
		{{order,'$1','_'},[{'>=','$1',10},{'<','$1',20}],[first]},
		{{order,'$1','_'},[{'>=','$1',15},{'<','$1',30}],[second]},
		{{user,'_'},[],[third]}]`)
	plan := spec.Plan()
	want := [][]int{{2}, {0}, {0, 1}, {1}} // {user,_} is the shorter tuple: first
	if len(plan) != len(want) {
		t.Fatalf("%d ranges, want %d:%s", len(plan), len(want), explain(spec))
	}
	for i, r := range plan {
		if fmt.Sprint(r.Clauses) != fmt.Sprint(want[i]) {
			t.Errorf("range %d serves %v, want %v:%s", i, r.Clauses, want[i], explain(spec))
		}
	}
	for key, wantCl := range map[string]string{"{order,12,x}": "[0]", "{order,17,x}": "[0 1]", "{order,25,x}": "[1]", "{user,1}": "[2]"} {
		if got := fmt.Sprint(inPlan(t, spec, key)); got != wantCl {
			t.Errorf("%s in the range of clauses %s, want %s", key, got, wantCl)
		}
	}
	r, ok := spec.Match(mustTerm(t, "{order,17,x}"))
	if !ok || r.Term.String() != "first" {
		t.Errorf("{order,17,x} gives %v, %v; want first", r.Term, ok)
	}
}
