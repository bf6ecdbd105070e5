package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// TestSelectUsesIndex: a select whose one clause fixes what an index
// holds, or bounds it by guards, and whose key prefix does not bound it,
// reads that index's entries; its rows, in both directions and by pages
// of tokens, are those the plan gives on a store without the index.
func TestSelectUsesIndex(t *testing.T) {
	ctx := context.Background()
	open := func(indexed bool) *store.Store {
		s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		b := s.NewBatch()
		for i := range 2000 {
			b.Put(term.Tuple(term.Atom("order"), term.Int(int64(i%50)), term.Desc(term.Int(int64(1000+i%13))), term.Int(int64(i%400))), []byte(fmt.Sprint(i)))
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		if indexed {
			if err := s.CreateIndex(ctx, "order_id", term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	plain, indexed := open(false), open(true)
	rows := func(s *store.Store, spec *matchspec.Spec, opts store.SelectOptions) ([]string, store.SelectStats) {
		t.Helper()
		var st store.SelectStats
		opts.Stats = &st
		var out []string
		for r, err := range s.Select(ctx, spec, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%v=%s:%v", r.Key, r.Value, r.Result.Term))
		}
		return out, st
	}
	for _, tc := range []struct {
		spec  string
		index string // the index the select must use, or none
		wide  bool   // it reads most of the index: no fewer keys than the plan
	}{
		{spec: "[{{order,'_','_',7},[],['$_']}]", index: "order_id"},
		{spec: "[{{order,'$1','_',7},[{'=/=','$1',20}],[{{'$1'}}]}]", index: "order_id"},
		{spec: "[{{order,'$1','_',7},[{'>','$1',20}],[{{'$1'}}]}]"}, // the guard bounds the plan: it is kept
		{spec: "[{{order,'_',#Desc<1003>,7},[],['$_']}]", index: "order_id"},
		{spec: "[{{order,'_','_',999},[],['$_']}]", index: "order_id"},          // no such order
		{spec: "[{{order,7,'_',7},[],['$_']}]"},                                 // the prefix bounds it
		{spec: "[{{order,'_','_',7},[],['$_']},{{order,1,'_','_'},[],['$_']}]"}, // two clauses
		// Guards on the indexed variable: the index's range of values.
		{spec: "[{{order,'_','_','$1'},[{'==','$1',7}],['$_']}]", index: "order_id"},
		{spec: "[{{order,'_','_','$1'},[{'>=','$1',10},{'<','$1',13}],['$_']}]", index: "order_id"},
		{spec: "[{{order,'$2',#Desc<'$3'>,'$1'},[{'>=','$1',390},{'<','$3',1005}],[{{'$1','$2','$3'}}]}]", index: "order_id"},
		{spec: "[{{order,'_','_','$1'},[{'orelse',{'<','$1',2},{'>=','$1',398.5}}],['$_']}]", index: "order_id"},
		{spec: "[{{order,'_','_','$1'},[{'>','$1',3},{'<','$1',2}],['$_']}]", index: "order_id"}, // nothing
		{spec: "[{{order,'_','_','$1'},[{is_integer,'$1'}],['$_']}]", index: "order_id", wide: true},
		{spec: "[{{order,'_','_','$1'},[{'=/=','$1',7}],['$_']}]"},                         // no bound
		{spec: "[{{order,'_','_','$1'},[],['$_']}]"},                                       // no guard
		{spec: "[{{order,'$2','_','$1'},[{'>=','$1',10},{'<','$2',25}],[{{'$2','$1'}}]}]"}, // the plan is bounded
	} {
		spec := matchspec.MustParse(tc.spec)
		for _, reverse := range []bool{false, true} {
			want, wst := rows(plain, spec, store.SelectOptions{Reverse: reverse})
			got, st := rows(indexed, spec, store.SelectOptions{Reverse: reverse})
			if st.Index != tc.index {
				t.Errorf("%s: used index %q, want %q", tc.spec, st.Index, tc.index)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s reverse=%v: %d rows\n%v\nwant %d\n%v", tc.spec, reverse, len(got), got, len(want), want)
			}
			if tc.index != "" && !tc.wide && st.KeysRead >= wst.KeysRead/10 {
				t.Errorf("%s: read %d keys through the index, %d without", tc.spec, st.KeysRead, wst.KeysRead)
			}
			// Pages of 2 by tokens give the same rows, and the whole
			// paging reads at most twice the keys the plan reads once
			// (a page races the plan against the index's entries).
			const page = 2
			var paged []string
			after := ""
			var read, pages int64
			for range len(want)/page + 2 {
				var last store.Row
				var st store.SelectStats
				n := 0
				for r, err := range indexed.Select(ctx, spec, store.SelectOptions{Reverse: reverse, Limit: page, After: after, Stats: &st}) {
					if err != nil {
						t.Fatal(err)
					}
					paged = append(paged, fmt.Sprintf("%v=%s:%v", r.Key, r.Value, r.Result.Term))
					last, n = r, n+1
				}
				read, pages = read+st.KeysRead, pages+1
				if n < page {
					break
				}
				after = last.Continuation()
			}
			if bound := 2*wst.KeysRead + 2*pages; read > bound {
				t.Errorf("%s reverse=%v: %d pages read %d keys, want at most %d", tc.spec, reverse, pages, read, bound)
			}
			if !slices.Equal(paged, want) {
				t.Errorf("%s reverse=%v paged: %v, want %v", tc.spec, reverse, paged, want)
			}
		}
	}
}

// TestExplainSelect: ExplainSelect reports the decision Select makes,
// and the entries' range it gives holds exactly the keys Select reads.
func TestExplainSelect(t *testing.T) {
	ctx := context.Background()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	for i := range 600 {
		b.Put(term.Tuple(term.Atom("order"), term.Int(int64(i%20)), term.Int(int64(i)), term.Int(int64(i%150))), nil)
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateIndex(ctx, "order_id", term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec   string
		index  string    // the index Select reads, or none
		value  term.Term // the index value it reads: a constant, or the variable
		ranges int       // the ranges of entries it reads
		sorted bool      // of a range of values
		keys   int64     // the entries it reads
	}{
		{"[{{order,'_','_',7},[],['$_']}]", "order_id", term.Int(7), 1, false, 4},
		{"[{{order,'$1','_',7},[{'=/=','$1',7}],['$1']}]", "order_id", term.Int(7), 1, false, 4},
		{"[{{order,'_','_',999},[],['$_']}]", "order_id", term.Int(999), 1, false, 0},
		{"[{{order,7,'_',7},[],['$_']}]", "", term.Term{}, 0, false, 0}, // the prefix bounds it
		{"[{{order,'_','_',7},[],['$_']},{{order,1,'_','_'},[],['$_']}]", "", term.Term{}, 0, false, 0},
		{"[{{order,'_','_','$1'},[],['$_']}]", "", term.Term{}, 0, false, 0}, // no guard bounds '$1'
		// 7 and 7.0: two values of one class.
		{"[{{order,'_','_','$1'},[{'==','$1',7}],['$_']}]", "order_id", term.Atom("$1"), 2, true, 4},
		{"[{{order,'_','_','$1'},[{'>=','$1',10},{'<','$1',13}],['$_']}]", "order_id", term.Atom("$1"), 1, true, 12},
		{"[{{order,'_','_','$1'},[{'orelse',{'<','$1',1},{'>','$1',148.5}}],['$_']}]", "order_id", term.Atom("$1"), 2, true, 8},
	} {
		spec := matchspec.MustParse(tc.spec)
		plan, err := s.ExplainSelect(ctx, spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if !slices.EqualFunc(plan.Ranges, spec.Plan(), func(a, b matchspec.Range) bool {
			return bytes.Equal(a.Lower, b.Lower) && bytes.Equal(a.Upper, b.Upper) && slices.Equal(a.Clauses, b.Clauses)
		}) {
			t.Errorf("%s: ranges %v, want the spec's plan %v", tc.spec, plan.Ranges, spec.Plan())
		}
		var p store.IndexPlan
		ok := plan.Index != nil
		if ok {
			p = *plan.Index
		}
		var st store.SelectStats
		for _, err := range s.Select(ctx, spec, store.SelectOptions{Stats: &st, KeysOnly: true}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		if p.Name != st.Index || ok != (st.Index != "") {
			t.Errorf("%s: ExplainSelect says %q (ok %v), Select read %q", tc.spec, p.Name, ok, st.Index)
		}
		if p.Name != tc.index {
			t.Errorf("%s: index %q, want %q", tc.spec, p.Name, tc.index)
		}
		if !ok {
			continue
		}
		if !term.Equal(p.Value, tc.value) || len(p.Ranges) != tc.ranges || p.Sorted != tc.sorted {
			t.Errorf("%s: value %v, %d ranges, sorted %v; want %v, %d, %v", tc.spec, p.Value, len(p.Ranges), p.Sorted, tc.value, tc.ranges, tc.sorted)
		}
		// The ranges, read through the seam, hold what Select read.
		var n int64
		for _, r := range p.Ranges {
			if !slices.Equal(r.Clauses, []int{0}) {
				t.Errorf("%s: clauses %v, want [0]", tc.spec, r.Clauses)
			}
			it, err := s.KV().NewIter(ctx, r.Lower, r.Upper, false)
			if err != nil {
				t.Fatal(err)
			}
			for it.Next() {
				n++
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if n != tc.keys || n != st.KeysRead || int64(st.Ranges) != int64(len(p.Ranges)) {
			t.Errorf("%s: %d entries in %d ranges, Select read %d in %d; want %d", tc.spec, n, len(p.Ranges), st.KeysRead, st.Ranges, tc.keys)
		}
	}
	s.Close()
	if _, err := s.ExplainSelect(ctx, matchspec.MustParse("[{{order,'_','_',7},[],['$_']}]")); !errors.Is(err, store.ErrClosed) {
		t.Errorf("ExplainSelect on a closed store: %v, want ErrClosed", err)
	}
}

// TestIndexRangePagesProperty: for random keys {k, Id, V} and guards that
// bound V, where an index on V answers the select, pages of random size
// resumed by tokens, in both directions and with or without values, give
// the rows a store without the index gives in one select; and the whole
// paging reads at most twice the keys the plan reads once, and twice the
// index's entries a page (the plan and the entries race a key of each in
// turn).
func TestIndexRangePagesProperty(t *testing.T) {
	ctx := context.Background()
	open := func() *store.Store {
		s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	plain, indexed := open(), open()
	if err := indexed.CreateIndex(ctx, "by_v", term.Tuple(term.Atom("k"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	var stored []term.Term
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(rt, "keys")
		values := rapid.IntRange(1, 80).Draw(rt, "values") // few: many keys a value; many: one each
		for _, s := range []*store.Store{plain, indexed} {
			b := s.NewBatch()
			for _, k := range stored {
				b.Delete(k)
			}
			if err := s.Apply(ctx, b); err != nil {
				rt.Fatal(err)
			}
		}
		stored = stored[:0]
		for i := range n {
			stored = append(stored, term.Tuple(term.Atom("k"), term.Int(int64(i)), term.Int(int64(rapid.IntRange(0, values-1).Draw(rt, "v")))))
		}
		for _, s := range []*store.Store{plain, indexed} {
			b := s.NewBatch()
			for i, k := range stored {
				b.Put(k, []byte(fmt.Sprint(i)))
			}
			if err := s.Apply(ctx, b); err != nil {
				rt.Fatal(err)
			}
		}
		lo := rapid.IntRange(0, values).Draw(rt, "lo")
		hi := rapid.IntRange(lo, values+1).Draw(rt, "hi")
		body := rapid.SampledFrom([]string{"['$_']", "[{{'$2','$1'}}]"}).Draw(rt, "body")
		spec := matchspec.MustParse(fmt.Sprintf("[{{k,'$2','$1'},[{'>=','$1',%d},{'<','$1',%d}],%s}]", lo, hi, body))
		opts := store.SelectOptions{Reverse: rapid.Bool().Draw(rt, "reverse"), KeysOnly: rapid.Bool().Draw(rt, "keysOnly")}
		show := func(r store.Row) string { return fmt.Sprintf("%v=%s:%v", r.Key, r.Value, r.Result.Term) }
		var want []string
		var planRead store.SelectStats
		opts.Stats = &planRead
		for r, err := range plain.Select(ctx, spec, opts) {
			if err != nil {
				rt.Fatal(err)
			}
			want = append(want, show(r))
		}
		opts.Limit = rapid.IntRange(1, 7).Draw(rt, "page")
		var got []string
		var read, pages int64
		for range len(want) + 2 {
			var st store.SelectStats
			opts.Stats = &st
			rows, last := 0, store.Row{}
			for r, err := range indexed.Select(ctx, spec, opts) {
				if err != nil {
					rt.Fatal(err)
				}
				got = append(got, show(r))
				rows, last = rows+1, r
			}
			read, pages = read+st.KeysRead, pages+1
			if rows < opts.Limit {
				break
			}
			opts.After = last.Continuation()
		}
		if !slices.Equal(got, want) {
			rt.Fatalf("%s in pages of %d: %v\nwant %v", spec, opts.Limit, got, want)
		}
		if bound := 2*planRead.KeysRead + 2*pages; read > bound {
			rt.Fatalf("%s in %d pages of %d read %d keys, want at most %d", spec, pages, opts.Limit, read, bound)
		}
	})
}
