package matchspec_test

import (
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// BenchmarkMatch: the spec on one key that passes and one that
// fails its guards.
func BenchmarkMatch(b *testing.B) {
	spec := matchspec.MustParse(`[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`)
	m := spec.NewMatcher()
	keys := []term.Term{
		term.Tuple(term.Atom("order"), term.Int(700), term.Desc(term.Int(1740787200)), term.Int(7)),
		term.Tuple(term.Atom("order"), term.Int(70), term.Desc(term.Int(1740787200)), term.Int(7)),
	}
	for b.Loop() {
		for _, k := range keys {
			m.Match(k)
		}
	}
}
