package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// TestSelectIndexHeadPatterns: where an index's variable stands, a head
// may hold a pattern rather than a constant. A map pattern matches maps
// with more keys than it names, so it is no constant value to look up:
// the select reads its plan and finds every map it matches. A binary
// prefix is read as the index's entries of the values in its range. Each
// gives the rows a store without the index gives.
func TestSelectIndexHeadPatterns(t *testing.T) {
	ctx := context.Background()
	open := func(indexed bool) *store.Store {
		s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		b := s.NewBatch()
		for i := range 300 {
			var v term.Term
			switch i % 3 {
			case 0:
				v = term.Map(term.MapEntry{Key: term.Atom("a"), Value: term.Int(1)})
			case 1:
				v = term.Map(term.MapEntry{Key: term.Atom("a"), Value: term.Int(1)}, term.MapEntry{Key: term.Atom("b"), Value: term.Int(2)})
			default:
				v = term.Binary(fmt.Appendf(nil, "%c%d", 'A'+i%5, i))
			}
			b.Put(term.Tuple(term.Atom("k"), term.Int(int64(i)), v), []byte(fmt.Sprint(i)))
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		if indexed {
			if err := s.CreateIndex(ctx, "by_v", term.Tuple(term.Atom("k"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	plain, indexed := open(false), open(true)
	rows := func(s *store.Store, spec *matchspec.Spec, reverse bool) ([]string, store.SelectStats) {
		t.Helper()
		var st store.SelectStats
		var out []string
		for r, err := range s.Select(ctx, spec, store.SelectOptions{Reverse: reverse, Stats: &st}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%v=%s", r.Key, r.Value))
		}
		return out, st
	}
	for _, c := range []struct {
		spec  string
		index string
		rows  int
	}{
		{`[{{k,'_',#{a => 1}},[],['$_']}]`, "", 200},
		{`[{{k,'_',<<"C",_/binary>>},[],['$_']}]`, "by_v", 20},
		{`[{{k,'_',<<"C1",_/binary>>},[],['$_']}]`, "by_v", 8},
		{`[{{k,'_',<<_/binary>>},[],['$_']}]`, "by_v", 100},
	} {
		spec := matchspec.MustParse(c.spec)
		p, err := indexed.ExplainSelect(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if name := ""; p.Index != nil && p.Index.Name != c.index || p.Index == nil && c.index != name {
			t.Errorf("%s: ExplainSelect gives %+v, want index %q", c.spec, p.Index, c.index)
		}
		for _, reverse := range []bool{false, true} {
			want, _ := rows(plain, spec, reverse)
			got, st := rows(indexed, spec, reverse)
			if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != c.rows || st.Index != c.index {
				t.Errorf("%s reverse %v: %d rows through %q, want the plan's %d rows (%d) through %q", c.spec, reverse, len(got), st.Index, len(want), c.rows, c.index)
			}
			if c.index != "" && st.KeysRead != int64(c.rows) {
				t.Errorf("%s reverse %v: read %d entries, want the %d of the values", c.spec, reverse, st.KeysRead, c.rows)
			}
		}
	}
}
