package storetest

import (
	"fmt"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// testSelectIndexRanges: a select whose guards bound the variable where
// an index's one variable stands, and whose key prefix does not bound
// the scan, reads only the index's entries of the values the guards
// allow (counted in SelectStats.KeysRead: exactly those entries, where
// the plan read every key), and ExplainSelect says so beforehand; its
// rows, forward and reverse, whole and in pages, are the plan's.
func testSelectIndexRanges(t *testing.T, open func(t *testing.T) store.KV, cfg SelectConfig) {
	s := newStore(t, open)
	n := cfg.Keys
	codes := make([]string, n)
	l := newLoader(t, s, 100) // within etcd's default writes per transaction
	for i := range n {
		// {item, Shop, <<Code>>}: codes "A0-0" .. "E9-…", a binary field
		// that guards bound by its first bytes.
		codes[i] = fmt.Sprintf("%c%d-%d", 'A'+i%5, (i/5)%10, i)
		l.put(term.Tuple(term.Atom("item"), term.Int(int64(i%37)), term.Binary([]byte(codes[i]))), []byte(fmt.Sprint(i)))
	}
	l.done()
	in := func(lo, hi string) func(string) bool {
		return func(c string) bool { return lo <= c && c < hi }
	}
	cases := []struct {
		spec   string
		ranges int                    // of entries the index read has
		holds  func(code string) bool // the entries it reads
	}{
		{`[{{item,'_','$1'},[{'>=','$1',<<"A1">>},{'<','$1',<<"A2">>}],['$_']}]`, 1, in("A1", "A2")},
		{`[{{item,'$2','$1'},[{'orelse',{'<','$1',<<"A1">>},{'>=','$1',<<"E9">>}},{'=/=','$2',3}],[{{'$2','$1'}}]}]`, 2,
			func(c string) bool { return c < "A1" || c >= "E9" }},
		{`[{{item,'_','$1'},[{'==','$1',<<"C4-1">>}],['$_']}]`, 1, func(c string) bool { return c == "C4-1" }},
		// Every key: a page's plan finds its rows long before the
		// entries are read.
		{`[{{item,'_','$1'},[{'>=','$1',<<"A">>}],['$_']}]`, 1, func(string) bool { return true }},
	}
	// Without the index: the plan reads every key.
	plain := make([][]selRow, len(cases))
	for i, c := range cases {
		spec := mustSpec(t, c.spec)
		var st store.SelectStats
		plain[i], _ = collectSel(t, s, spec, store.SelectOptions{Stats: &st})
		if st.Index != "" || st.KeysRead != int64(n) {
			t.Fatalf("%s without an index: read %d keys through %q, want all %d through the plan", c.spec, st.KeysRead, st.Index, n)
		}
	}
	if err := s.CreateIndex(ctx, "by_code", term.Tuple(term.Atom("item"), term.Atom("_"), term.Atom("$1")), nil); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		spec := mustSpec(t, c.spec)
		want := int64(0)
		for _, code := range codes {
			if c.holds(code) {
				want++
			}
		}
		p, err := s.ExplainSelect(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if p.Index == nil || p.Index.Name != "by_code" || !p.Index.Sorted || len(p.Index.Ranges) != c.ranges {
			t.Errorf("%s: ExplainSelect gives %+v, want index by_code, sorted, %d ranges", c.spec, p.Index, c.ranges)
		}
		for _, rev := range []bool{false, true} {
			var st store.SelectStats
			got, _ := collectSel(t, s, spec, store.SelectOptions{Reverse: rev, Stats: &st})
			wantRows := plain[i]
			if rev {
				wantRows = reversed(wantRows)
			}
			if !sameSelRows(got, wantRows) {
				t.Errorf("%s reverse=%v: %d rows through the index, %d through the plan", c.spec, rev, len(got), len(wantRows))
			}
			if st.Index != "by_code" || st.KeysRead != want || st.Ranges != c.ranges {
				t.Errorf("%s reverse=%v: read %d keys in %d ranges through %q, want the %d entries of the values in %d ranges of by_code", c.spec, rev, st.KeysRead, st.Ranges, st.Index, want, c.ranges)
			}
			// Pages of 7 by tokens give the same rows. Each page races
			// the plan against the entries, a key of each in turn: it
			// reads at most twice the entries (and ends on the index)
			// or twice what the plan read for its rows (and ends on
			// it), so the whole paging reads at most twice the keys
			// once and twice the entries once a page, not the entries
			// again on every page.
			var paged []selRow
			after := ""
			var read, pages int64
			for range len(wantRows)/7 + 2 {
				var pst store.SelectStats
				page, next := collectSel(t, s, spec, store.SelectOptions{Reverse: rev, Limit: 7, After: after, Stats: &pst})
				paged = append(paged, page...)
				read, pages = read+pst.KeysRead, pages+1
				if pst.KeysRead > 2*want+2 || pst.Index != "" && pst.Index != "by_code" {
					t.Errorf("%s reverse=%v: a page read %d keys through %q, want at most %d", c.spec, rev, pst.KeysRead, pst.Index, 2*want+2)
				}
				if len(page) < 7 {
					break
				}
				after = next
			}
			if !sameSelRows(paged, wantRows) {
				t.Errorf("%s reverse=%v: %d rows in pages, want %d", c.spec, rev, len(paged), len(wantRows))
			}
			if bound := min(2*int64(n), 2*want*pages) + 2*pages; read > bound {
				t.Errorf("%s reverse=%v: %d pages read %d keys, want at most %d", c.spec, rev, pages, read, bound)
			}
		}
	}
}

func reversed(rows []selRow) []selRow {
	out := make([]selRow, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r
	}
	return out
}
