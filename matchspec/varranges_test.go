package matchspec_test

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// TestVarRanges: every value the guards accept for the variable lies in
// one of VarRanges' ranges (checked by running the spec on keys holding
// each of a spread of terms), the ranges narrow what the guards bound,
// and ok is false where they bound nothing.
func TestVarRanges(t *testing.T) {
	var values []term.Term
	for _, text := range []string{
		"-1", "0", "0.0", "-0.0", "1", "1.0", "2", "2.5", "3", "999", "1000", "1000.0", "1001",
		"a", "b", "'A1'", "zz", "[]", "[1]", "{a}", "{a,1}", `<<>>`, `<<"A">>`, `<<"A1">>`, `<<"A1x">>`,
		`<<"A2">>`, `<<"A20">>`, `<<"B">>`, "#Desc<1>",
	} {
		v, err := term.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	for _, c := range []struct {
		spec    string
		name    string
		ok      bool
		allowed int // how many of values lie in the ranges
	}{
		{`[{{k,'$1'},[{'>=','$1',<<"A1">>},{'<','$1',<<"A2">>}],['$_']}]`, "$1", true, 2},
		{`[{{k,'$1'},[{'>=','$1',1},{'<','$1',1000}],['$_']}]`, "$1", true, 6},
		{`[{{k,'$1'},[{'orelse',{'==','$1',a},{'==','$1',b}}],['$_']}]`, "$1", true, 2},
		{`[{{k,'$1'},[{is_binary,'$1'}],['$_']}]`, "$1", true, 7},
		{`[{{k,'$1'},[{'>','$1',3},{'<','$1',2}],['$_']}]`, "$1", true, 0},
		{`[{{k,'$1'},[],['$_']}]`, "$1", false, 0},
		{`[{{k,'$1'},[{'=/=','$1',a}],['$_']}]`, "$1", false, 0},
		{`[{{k,'$1'},[{'>','$1',1}],['$_']}]`, "$2", false, 0},
	} {
		spec := matchspec.MustParse(c.spec)
		ranges, ok := spec.VarRanges(0, c.name)
		if ok != c.ok {
			t.Errorf("%s: VarRanges(0, %s) ok = %v, want %v", c.spec, c.name, ok, c.ok)
		}
		if !ok {
			continue
		}
		in := 0
		for _, v := range values {
			enc, err := sext.Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			inside := false
			for _, r := range ranges {
				if bytes.Compare(enc, r.Lower) >= 0 && (r.Upper == nil || bytes.Compare(enc, r.Upper) < 0) {
					inside = true
				}
				if len(r.Clauses) != 1 || r.Clauses[0] != 0 {
					t.Errorf("%s: range clauses %v, want [0]", c.spec, r.Clauses)
				}
			}
			if inside {
				in++
			}
			if _, matched := spec.Match(term.Tuple(term.Atom("k"), v)); matched && !inside {
				t.Errorf("%s: %v passes the guards but lies in no range of %v", c.spec, v, ranges)
			}
		}
		if in != c.allowed {
			t.Errorf("%s: %d of the values lie in the ranges, want %d", c.spec, in, c.allowed)
		}
	}
	if _, ok := matchspec.MustParse(`[{{k,'$1'},[{'>','$1',1}],['$_']}]`).VarRanges(1, "$1"); ok {
		t.Error("VarRanges of a clause that does not exist: ok")
	}
}
