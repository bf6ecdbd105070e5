package matchspec_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// FuzzParse: any text either fails to parse or compile with a typed
// error, or gives a spec whose plan is ordered and whose matcher runs on
// a few keys without panicking and agrees with the plan.
func FuzzParse(f *testing.F) {
	f.Add(`[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`)
	f.Add(`[{{'$1','$2'},[{'orelse',{'=:=','$1',a},{is_atom,'$2'}}],['$$']},{'_',[],[{{'$_'}}]}]`)
	f.Add(`[{{order,#Desc<'$1'>,[a|'$2']},[{'==','$1',0}],[{hd,'$2'}]}]`)
	f.Add(`[{#{a => '$1'},[{'not',{'>',{size,'$1'},2}}],[{element,1,'$1'}]}]`)
	f.Add(`[{{a,[b,'$1'],[]},[{'==','$1',{const,[c,[]]}}],[['$1']]},{{#{[x] => '$2'}},[],['$2']}]`)
	keys := []string{"{order,500,a,b}", "{order,#Desc<0.0>,[a,b]}", "{a,b}", "#{a => {x,y}}", "[]", "{order,0,[a]}"}
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := matchspec.Parse(text)
		if err != nil {
			var se *matchspec.SpecError
			var syn *term.SyntaxError
			if !errors.As(err, &se) && !errors.As(err, &syn) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		plan := spec.Plan()
		for i := 1; i < len(plan); i++ {
			if plan[i-1].Upper == nil || bytes.Compare(plan[i-1].Upper, plan[i].Lower) > 0 {
				t.Fatalf("ranges %d and %d overlap", i-1, i)
			}
		}
		m := spec.NewMatcher()
		for _, k := range keys {
			key, _ := term.Parse(k)
			r, ok := m.Match(key)
			if !ok {
				continue
			}
			enc, _ := sext.Encode(key)
			found := false
			for _, rg := range plan {
				if bytes.Compare(enc, rg.Lower) >= 0 && (rg.Upper == nil || bytes.Compare(enc, rg.Upper) < 0) {
					found = true
					if _, ok := m.MatchClauses(key, rg.Clauses); !ok {
						t.Fatalf("%s matches clause %d but not its range's clauses %v", k, r.Clause, rg.Clauses)
					}
				}
			}
			if !found {
				t.Fatalf("%s matches clause %d but lies in no range", k, r.Clause)
			}
		}
	})
}
