package matchspec_test

import (
	"fmt"
	"strings"

	"github.com/erlsext/sext/matchspec"
)

// specFamilies are shapes of specification that grow with n, each a
// shape that planning or parsing once handled in more than linear time or
// memory, or might: alternatives chained left-deep (each orelse's left
// operand the chain so far) or in a balanced tree, conjunctions the same,
// guards alternating the two, long guard lists, many clauses, clauses
// overlapping so that each range would list them all, heads with many
// variables each pinned to a constant, a wide head substituted a few
// times, a long head prefix before a variable with many spans, nesting
// refused by the limits.
var specFamilies = []struct {
	name string
	spec func(n int) string
	ok   bool // Parse succeeds
}{
	{"orelse left-deep", func(n int) string {
		return clause1(leftDeep("orelse", n, func(i int) string { return fmt.Sprintf("{'==','$1',%d}", i) }))
	}, true},
	{"orelse balanced", func(n int) string {
		return clause1(balanced("orelse", 0, n, func(i int) string { return fmt.Sprintf("{'==','$1',%d}", i) }))
	}, true},
	{"orelse of ranges, balanced", func(n int) string {
		return clause1(balanced("orelse", 0, n, func(i int) string {
			return fmt.Sprintf("{'andalso',{'>','$1',%d},{'<','$1',%d}}", 4*i, 4*i+2)
		}))
	}, true},
	{"andalso left-deep", func(n int) string {
		return clause1(leftDeep("andalso", n, func(i int) string { return fmt.Sprintf("{'>','$1',%d}", i) }))
	}, true},
	{"andalso balanced", func(n int) string {
		return clause1(balanced("andalso", 0, n, func(i int) string { return fmt.Sprintf("{'/=','$1',%d}", i) }))
	}, true},
	{"andalso of orelse pairs", func(n int) string {
		// Each pair cuts a hole in what the ones before allow.
		return clause1(leftDeep("andalso", n, func(i int) string {
			return fmt.Sprintf("{'orelse',{'<','$1',%d},{'>','$1',%d}}", 4*i, 4*i+2)
		}))
	}, true},
	{"orelse and andalso alternating", func(n int) string {
		g := "{'==','$1',0}"
		for i := 1; i < n; i++ {
			op := "orelse"
			if i%2 == 0 {
				op = "andalso"
			}
			g = fmt.Sprintf("{'%s',{'==','$1',%d},%s}", op, i, g)
		}
		return clause1(g)
	}, true},
	{"guard list", func(n int) string {
		gs := make([]string, n)
		for i := range gs {
			gs[i] = fmt.Sprintf("{'>','$1',%d}", i)
		}
		return "[{{k,'$1'},[" + strings.Join(gs, ",") + "],['$_']}]"
	}, true},
	{"many clauses", func(n int) string {
		cs := make([]string, min(n, matchspec.MaxClauses))
		for i := range cs {
			cs[i] = fmt.Sprintf("{{k%d,'$1','_'},[{'>=','$1',%d},{'<','$1',%d}],['$_']}", i%7, i, i+1)
		}
		return "[" + strings.Join(cs, ",") + "]"
	}, true},
	{"clauses overlapping", func(n int) string {
		cs := make([]string, min(n, matchspec.MaxClauses))
		for i := range cs {
			if i%2 == 0 {
				cs[i] = "{'_',[],['$_']}" // every key
			} else {
				cs[i] = fmt.Sprintf("{{k,%d},[],['$_']}", i) // one key
			}
		}
		return "[" + strings.Join(cs, ",") + "]"
	}, true},
	{"variables pinned one by one", func(n int) string {
		vs, gs := make([]string, n), make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf("'$%d'", i+1)
			gs[i] = fmt.Sprintf("{'=:=','$%d',%d}", i+1, i)
		}
		return "[{{" + strings.Join(vs, ",") + "},[" + strings.Join(gs, ",") + "],['$_']}]"
	}, true},
	{"wide head, variable pinned to 4 constants", func(n int) string {
		// Each constant is substituted into the whole head: the most a
		// subterm of text costs.
		return "[{{'$1'" + strings.Repeat(",a", 8*n) + "},[" +
			balanced("orelse", 0, 4, func(i int) string { return fmt.Sprintf("{'=:=','$1',%d}", i) }) + "],['$_']}]"
	}, true},
	{"long prefix, many spans", func(n int) string {
		return fmt.Sprintf("[{{<<\"%s\">>,'$1'},[%s],['$_']}]", strings.Repeat("x", 8*n),
			balanced("orelse", 0, n, func(i int) string {
				return fmt.Sprintf("{'andalso',{'>','$1',%d},{'<','$1',%d}}", 4*i, 4*i+2)
			}))
	}, true},
	{"head nested", func(n int) string {
		n = min(n, 9000) // the nesting limit, with room for the spec's list and tuple
		return "[{" + strings.Repeat("{", n) + "'$1'" + strings.Repeat("}", n) + ",[],['$_']}]"
	}, true},
	{"#Desc nested, refused", func(n int) string {
		return "[{" + strings.Repeat("#Desc<", n) + "'$1'" + strings.Repeat(">", n) + ",[],['$_']}]"
	}, false},
}

func clause1(guard string) string { return "[{{k,'$1'},[" + guard + "],['$_']}]" }

// leftDeep chains n operands with op, the chain so far the left operand.
func leftDeep(op string, n int, leaf func(int) string) string {
	var b strings.Builder
	for range n - 1 {
		b.WriteString("{'" + op + "',")
	}
	b.WriteString(leaf(0))
	for i := 1; i < n; i++ {
		b.WriteString("," + leaf(i) + "}")
	}
	return b.String()
}

// balanced joins the operands lo..hi-1 with op in a balanced tree.
func balanced(op string, lo, hi int, leaf func(int) string) string {
	if hi-lo == 1 {
		return leaf(lo)
	}
	mid := (lo + hi) / 2
	return "{'" + op + "'," + balanced(op, lo, mid, leaf) + "," + balanced(op, mid, hi, leaf) + "}"
}
