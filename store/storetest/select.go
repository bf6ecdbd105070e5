package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/specgen"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// SelectConfig sizes RunSelect: a remote backend may want fewer keys
// and specifications than an embedded one. The defaults are the full
// size's; a quick run (see the package doc) takes a third of them.
type SelectConfig struct {
	Keys  int // random keys stored; 0 means 3000 (1000 quick)
	Specs int // random specifications run; 0 means 300 (100 quick)
}

// RunSelect checks Store.Select on a backend: for random keys and random
// match specifications (several clauses, guards on the variable that
// bounds the scan and on others, every body form), Select returns exactly
// what running the specification on every key returns, in order, forward
// and reverse, with and without values; and paging by continuation
// tokens, pages of any size, concatenates to the same rows. Then tokens
// that must be refused, writes between pages, cancellation, foreign
// keys, guards that bound an indexed variable, which read only the
// index's range of values, and binary prefixes (<<"ali",_/binary>>) in
// selects, scans, index scans and range scans, which read only the keys
// whose binary starts with the prefix, also beside writers and index
// maintenance. Every KV open returns is wrapped with Checked, so a
// misuse of a cursor or a batch fails the test.
func RunSelect(t *testing.T, open func(t *testing.T) store.KV, cfg SelectConfig) {
	if cfg.Keys <= 0 {
		cfg.Keys = testsize.Pick(1000, 3000)
	}
	if cfg.Specs <= 0 {
		cfg.Specs = testsize.Pick(100, 300)
	}
	open = checkedOpen(open)
	t.Run("BruteForce", func(t *testing.T) { testSelectBruteForce(t, open, cfg) })
	t.Run("Tokens", func(t *testing.T) { testSelectTokens(t, open) })
	t.Run("WritesBetweenPages", func(t *testing.T) { testSelectWrites(t, open) })
	t.Run("Context", func(t *testing.T) { testSelectContext(t, open) })
	t.Run("ForeignKeys", func(t *testing.T) { testSelectForeign(t, open) })
	t.Run("IndexRanges", func(t *testing.T) { testSelectIndexRanges(t, open, cfg) })
	t.Run("BinaryPrefix", func(t *testing.T) { testBinaryPrefix(t, open, cfg) })
}

type selRow struct {
	key    []byte
	value  string
	clause int
	result term.Term
	whole  bool
}

func (r selRow) String() string {
	k, _ := sext.Decode(r.key)
	return fmt.Sprintf("%s=%q clause %d: %s", k, r.value, r.clause, r.result)
}

func rowOf(t *testing.T, r store.Row) selRow {
	t.Helper()
	k, err := sext.Encode(r.Key)
	if err != nil {
		t.Fatal(err)
	}
	return selRow{k, string(r.Value), r.Result.Clause, r.Result.Term, r.Result.Whole}
}

func sameSelRows(a, b []selRow) bool {
	return slices.EqualFunc(a, b, func(x, y selRow) bool {
		return bytes.Equal(x.key, y.key) && x.value == y.value && x.clause == y.clause &&
			x.whole == y.whole && term.Equal(x.result, y.result)
	})
}

// collectSel runs a select to its end; it returns the rows and the last
// row's continuation.
func collectSel(t *testing.T, s *store.Store, spec *matchspec.Spec, opts store.SelectOptions) ([]selRow, string) {
	t.Helper()
	var rows []selRow
	next := ""
	for r, err := range s.Select(context.Background(), spec, opts) {
		if err != nil {
			t.Fatalf("Select %s: %v", spec, err)
		}
		rows = append(rows, rowOf(t, r))
		next = r.Continuation()
	}
	return rows, next
}

func testSelectBruteForce(t *testing.T, open func(t *testing.T) store.KV, cfg SelectConfig) {
	s := newStore(t, open)
	g := specgen.New(15)
	type kv struct {
		enc   []byte
		key   term.Term
		value string
	}
	var all []kv
	seen := map[string]bool{}
	l := newLoader(t, s, 100) // within etcd's default writes per transaction
	for n := 0; len(all) < cfg.Keys; n++ {
		k := g.Key()
		enc, err := sext.Encode(k)
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(enc)] {
			continue
		}
		seen[string(enc)] = true
		v := fmt.Sprint("v", n)
		all = append(all, kv{enc, k, v})
		l.put(k, []byte(v))
	}
	l.done()
	slices.SortFunc(all, func(x, y kv) int { return bytes.Compare(x.enc, y.enc) })
	var rowsTotal, readTotal, keysTotal int64
	for n := range cfg.Specs {
		spec, err := matchspec.Compile(g.Spec())
		if err != nil {
			t.Fatal(err)
		}
		m := spec.NewMatcher()
		var want []selRow
		for _, x := range all {
			if r, ok := m.Match(x.key); ok {
				want = append(want, selRow{x.enc, x.value, r.Clause, r.Term, r.Whole})
			}
		}
		var st store.SelectStats
		got, _ := collectSel(t, s, spec, store.SelectOptions{Stats: &st})
		if !sameSelRows(got, want) {
			t.Fatalf("spec %d %s forward:\n got %v\nwant %v", n, spec, got, want)
		}
		rowsTotal, readTotal, keysTotal = rowsTotal+st.Rows, readTotal+st.KeysRead, keysTotal+int64(len(all))
		rev := slices.Clone(want)
		slices.Reverse(rev)
		got, _ = collectSel(t, s, spec, store.SelectOptions{Reverse: true})
		if !sameSelRows(got, rev) {
			t.Fatalf("spec %d %s reverse:\n got %v\nwant %v", n, spec, got, rev)
		}
		got, _ = collectSel(t, s, spec, store.SelectOptions{KeysOnly: true})
		keysOnly := slices.Clone(want)
		for i := range keysOnly {
			keysOnly[i].value = ""
		}
		if !sameSelRows(got, keysOnly) {
			t.Fatalf("spec %d %s keys only:\n got %v\nwant %v", n, spec, got, keysOnly)
		}
		// Pages of a random size, each resumed from the last one's token.
		for _, reverse := range []bool{false, true} {
			size := 1 + g.R.IntN(7)
			w := want
			if reverse {
				w = rev
			}
			var paged []selRow
			after := ""
			for pages := 0; ; pages++ {
				page, next := collectSel(t, s, spec, store.SelectOptions{Limit: size, Reverse: reverse, After: after})
				paged = append(paged, page...)
				if len(page) < size {
					break
				}
				if pages > len(w)+1 {
					t.Fatalf("spec %s: paging does not end", spec)
				}
				after = next
			}
			if !sameSelRows(paged, w) {
				t.Fatalf("spec %d %s in pages of %d, reverse %v:\n got %v\nwant %v", n, spec, size, reverse, paged, w)
			}
		}
	}
	t.Logf("%d specs over %d keys: %d rows, %d keys read of %d (the plans skipped %.0f%%)",
		cfg.Specs, len(all), rowsTotal, readTotal, keysTotal, 100*(1-float64(readTotal)/float64(keysTotal)))
}

func mustSpec(t *testing.T, text string) *matchspec.Spec {
	t.Helper()
	spec, err := matchspec.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func putAll(t *testing.T, s *store.Store, kvs ...string) {
	t.Helper()
	for i := 0; i < len(kvs); i += 2 {
		k, err := term.Parse(kvs[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, k, []byte(kvs[i+1])); err != nil {
			t.Fatal(err)
		}
	}
}

func selectErr(s *store.Store, ctx context.Context, spec *matchspec.Spec, opts store.SelectOptions) error {
	for _, err := range s.Select(ctx, spec, opts) {
		if err != nil {
			return err
		}
	}
	return nil
}

func testSelectTokens(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	putAll(t, s, "{p,1}", "a", "{p,2}", "b", "{p,3}", "c")
	spec := mustSpec(t, `[{{p,'$1'},[],['$1']}]`)
	_, tok := collectSel(t, s, spec, store.SelectOptions{Limit: 1})
	if !strings.HasPrefix(tok, "s1.") {
		t.Fatalf("token %q", tok)
	}
	rows, _ := collectSel(t, s, spec, store.SelectOptions{After: tok})
	if len(rows) != 2 || rows[0].result.String() != "2" {
		t.Errorf("resumed after {p,1}: %v, want 2 and 3", rows)
	}
	other := mustSpec(t, `[{{p,'$1'},[],['$_']}]`)
	if err := selectErr(s, context.Background(), other, store.SelectOptions{After: tok}); !errors.Is(err, store.ErrTokenMismatch) {
		t.Errorf("another spec's token: %v, want ErrTokenMismatch", err)
	}
	if err := selectErr(s, context.Background(), spec, store.SelectOptions{After: tok, Reverse: true}); !errors.Is(err, store.ErrTokenMismatch) {
		t.Errorf("a forward token in reverse: %v, want ErrTokenMismatch", err)
	}
	flipped := []byte(tok)
	flipped[len(flipped)/2] ^= 1
	for _, bad := range []string{"x", "s1.", "s1.!!!", "s1.AAAA", string(flipped), tok[:len(tok)-2], "s1." + strings.Repeat("A", 200000)} {
		err := selectErr(s, context.Background(), spec, store.SelectOptions{After: bad})
		if !errors.Is(err, store.ErrToken) {
			t.Errorf("token %.40q: %v, want ErrToken", bad, err)
		}
	}
}

// testSelectWrites pins what a resumed select sees of writes made between
// pages: it reads on from just after the last row's key, so it sees what
// was written, changed or deleted beyond that key, and nothing before it.
func testSelectWrites(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	for i := 1; i <= 10; i++ {
		putAll(t, s, fmt.Sprintf("{p,%d}", i), "old")
	}
	spec := mustSpec(t, `[{{p,'$1'},[{'>','$1',2}],['$_']}]`)
	for _, reverse := range []bool{false, true} {
		page, tok := collectSel(t, s, spec, store.SelectOptions{Limit: 3, Reverse: reverse})
		want := "{p,3}=old {p,4}=old {p,5}=old"
		ahead, behind, gone, changed := "{p,5.5}", "{p,4.5}", "{p,6}", "{p,7}"
		if reverse {
			want = "{p,10}=old {p,9}=old {p,8}=old"
			ahead, behind, gone, changed = "{p,7.5}", "{p,8.5}", "{p,7}", "{p,6}"
		}
		if got := rowsText(page); got != want {
			t.Fatalf("first page (reverse %v): %s, want %s", reverse, got, want)
		}
		putAll(t, s, ahead, "new", behind, "new", changed, "changed")
		gk, _ := term.Parse(gone)
		if err := s.Delete(ctx, gk); err != nil {
			t.Fatal(err)
		}
		rest, _ := collectSel(t, s, spec, store.SelectOptions{Reverse: reverse, After: tok})
		want = "{p,5.5}=new {p,7}=changed {p,8}=old {p,9}=old {p,10}=old"
		if reverse {
			want = "{p,7.5}=new {p,6}=changed {p,5}=old {p,4}=old {p,3}=old"
		}
		if got := rowsText(rest); got != want {
			t.Errorf("resumed (reverse %v): %s\nwant %s", reverse, got, want)
		}
		// Put the store back as it was for the other direction.
		for _, k := range []string{"{p,5.5}", "{p,4.5}", "{p,7.5}", "{p,8.5}"} {
			x, _ := term.Parse(k)
			s.Delete(ctx, x)
		}
		for i := 1; i <= 10; i++ {
			putAll(t, s, fmt.Sprintf("{p,%d}", i), "old")
		}
	}
}

func rowsText(rows []selRow) string {
	var b []string
	for _, r := range rows {
		k, _ := sext.Decode(r.key)
		b = append(b, fmt.Sprintf("%s=%s", k, r.value))
	}
	return strings.Join(b, " ")
}

func testSelectContext(t *testing.T, open func(t *testing.T) store.KV) {
	s := newStore(t, open)
	for i := range 50 {
		putAll(t, s, fmt.Sprintf("{p,%d}", i), "v")
	}
	spec := mustSpec(t, `[{{p,'_'},[],['$_']}]`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var last error
	for _, err := range s.Select(ctx, spec, store.SelectOptions{}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) || n != 10 {
		t.Errorf("cancelled after 10 rows: %d rows, error %v; want 10 and context.Canceled", n, last)
	}
}

func testSelectForeign(t *testing.T, open func(t *testing.T) store.KV) {
	s, kv := newStoreKV(t, open)
	putAll(t, s, "{p,1}", "a", "{p,3}", "c")
	pre, err := sext.Prefix(term.Tuple(term.Atom("p"), term.Atom("_")))
	if err != nil {
		t.Fatal(err)
	}
	wb := kv.NewBatch()
	wb.Set(append(bytes.Clone(pre), 0x0A, 0xFF), []byte("junk")) // a cut-short integer
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	var bad int
	rows, _ := collectSel(t, s, mustSpec(t, `[{{p,'$1'},[],['$1']}]`), store.SelectOptions{OnBadKey: func([]byte, error) { bad++ }})
	if len(rows) != 2 || bad != 1 {
		t.Errorf("rows %v, %d bad keys; want 2 rows and 1 bad key", rows, bad)
	}
}
