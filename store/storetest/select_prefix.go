package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// prefixBases begin the names of testBinaryPrefix's keys: names that
// start with "ali", and near misses: "alh", "alj", "alo" and "ala" share
// "ali"'s whole bytes in the encoding and differ only in the bits its
// range fixes past them.
var prefixBases = []string{"ali", "alice", "alix", "alia", "al", "alh", "alj", "alo", "ala", "a", "bob", "zed", "", "ali\xff"}

// prefixTests are the prefixes testBinaryPrefix reads: 0 to 8 bytes,
// whose ranges fix 0 to 7 bits past their whole bytes, and some that
// match nothing.
var prefixTests = []string{"ali", "alice", "alice-1", "alice-12", "al", "a", "", "alix", "ali\xff", "zed", "nobody"}

var atomUser, atomItem = term.Atom("user"), term.Atom("item")

// prefixKey is one key of testBinaryPrefix, with its encoding.
type prefixKey struct {
	enc  []byte
	key  term.Term
	name string
}

// sortedKeys returns the keys in the encoding's order.
func sortedKeys(t *testing.T, ks []term.Term, names []string) []prefixKey {
	t.Helper()
	out := make([]prefixKey, len(ks))
	for i, k := range ks {
		enc, err := sext.Encode(k)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = prefixKey{enc, k, names[i]}
	}
	slices.SortFunc(out, func(a, b prefixKey) int { return bytes.Compare(a.enc, b.enc) })
	return out
}

// starting returns the keys whose name starts with p, in order.
func starting(ks []prefixKey, p string) []prefixKey {
	var out []prefixKey
	for _, k := range ks {
		if strings.HasPrefix(k.name, p) {
			out = append(out, k)
		}
	}
	return out
}

func prefixSpec(t *testing.T, head term.Term, guards ...term.Term) *matchspec.Spec {
	t.Helper()
	spec, err := matchspec.Compile(term.List(term.Tuple(head, term.List(guards...), term.List(term.Atom("$_")))))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func sameKeys(rows []selRow, want []prefixKey) bool {
	return slices.EqualFunc(rows, want, func(r selRow, k prefixKey) bool { return bytes.Equal(r.key, k.enc) })
}

func entryKeysAre(t *testing.T, es []store.Entry, want []prefixKey) bool {
	t.Helper()
	return slices.EqualFunc(es, want, func(e store.Entry, k prefixKey) bool { return term.Equal(e.Key, k.key) })
}

// testBinaryPrefix: selects, scans, index scans and range scans with a
// binary prefix (<<"ali",_/binary>>) read exactly the keys whose binary
// starts with the prefix, counted at the KV seam and in SelectStats,
// however many keys share the prefix's whole bytes in the encoding; their
// rows are those of a brute-force filter, forward, reverse and in pages;
// ExplainSelect shows sext.PrefixRange's range, or the index's entries
// of the values in it. Then the same reads beside writers of keys next to
// the prefix's range and an index created, dropped and checked.
func testBinaryPrefix(t *testing.T, open func(t *testing.T) store.KV, cfg SelectConfig) {
	s, kv := newStoreKV(t, open)
	ck, ok := kv.(*CheckedKV)
	if !ok {
		t.Fatalf("the KV is %T, not the Checked one that counts keys read", kv)
	}
	n := cfg.Keys
	var users, items []term.Term
	names := make([]string, n)
	l := newLoader(t, s, 100) // within etcd's default writes per transaction
	for i := range n {
		names[i] = fmt.Sprintf("%s-%d", prefixBases[i%len(prefixBases)], i)
		users = append(users, term.Tuple(atomUser, term.Binary([]byte(names[i])), term.Int(int64(i))))
		items = append(items, term.Tuple(atomItem, term.Int(int64(i%37)), term.Binary([]byte(names[i]))))
		l.put(users[i], []byte(fmt.Sprint(i)))
		l.put(items[i], []byte(fmt.Sprint(i)))
	}
	l.done()
	userKeys, itemKeys := sortedKeys(t, users, names), sortedKeys(t, items, names)

	// Reads through the plan and by scans.
	var read, matched, wholeBytes int64
	for _, p := range prefixTests {
		bp := term.BinaryPrefix([]byte(p))
		head := term.Tuple(atomUser, bp, term.Atom("_"))
		want := starting(userKeys, p)
		spec := prefixSpec(t, head)
		plan, err := s.ExplainSelect(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, err := sext.PrefixRange(head)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Index != nil || len(plan.Ranges) != 1 || !bytes.Equal(plan.Ranges[0].Lower, lo) || !bytes.Equal(plan.Ranges[0].Upper, hi) {
			t.Errorf("ExplainSelect %s: %+v, want the one range [%x, %x)", spec, plan, lo, hi)
		}
		for _, rev := range []bool{false, true} {
			var st store.SelectStats
			got, _ := collectSel(t, s, spec, store.SelectOptions{Reverse: rev, Stats: &st})
			w := want
			if rev {
				w = slices.Clone(want)
				slices.Reverse(w)
			}
			if !sameKeys(got, w) || st.KeysRead != int64(len(want)) {
				t.Errorf("Select %s reverse %v: %d rows, %d keys read; want the %d keys whose name starts with %q", spec, rev, len(got), st.KeysRead, len(want), p)
			}
			// Pages of 7: each page reads only keys it yields.
			var paged []selRow
			var pageRead int64
			after := ""
			for range len(want)/7 + 2 {
				var pst store.SelectStats
				page, next := collectSel(t, s, spec, store.SelectOptions{Reverse: rev, Limit: 7, After: after, KeysOnly: true, Stats: &pst})
				paged, pageRead = append(paged, page...), pageRead+pst.KeysRead
				if len(page) < 7 {
					break
				}
				after = next
			}
			if !sameKeys(paged, w) || pageRead != int64(len(want)) {
				t.Errorf("Select %s reverse %v in pages of 7: %d rows, %d keys read; want %d", spec, rev, len(paged), pageRead, len(want))
			}
			before := ck.KeysRead()
			es := collect(t, s.Scan(ctx, head, store.ScanOptions{Reverse: rev, KeysOnly: rev}))
			if r := ck.KeysRead() - before; !entryKeysAre(t, es, w) || r != int64(len(want)) {
				t.Errorf("Scan %s reverse %v: %d entries, %d keys read; want %d", head, rev, len(es), r, len(want))
			}
		}
		// A guard on a variable after the prefix narrows the rows, not
		// the range.
		half := term.Tuple(term.Atom("<"), term.Atom("$1"), term.Int(int64(n/2)))
		var st store.SelectStats
		got, _ := collectSel(t, s, prefixSpec(t, term.Tuple(atomUser, bp, term.Atom("$1")), half), store.SelectOptions{Stats: &st})
		var lower []prefixKey
		for _, k := range want {
			if k.key.Elems()[2].Int64() < int64(n/2) {
				lower = append(lower, k)
			}
		}
		if !sameKeys(got, lower) || st.KeysRead != int64(len(want)) {
			t.Errorf("Select {user,%s,'$1'} with $1 < %d: %d rows, %d keys read; want %d rows of %d keys", bp, n/2, len(got), st.KeysRead, len(lower), len(want))
		}
		pre, err := sext.Prefix(head)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range userKeys {
			if bytes.HasPrefix(k.enc, pre) {
				wholeBytes++
			}
		}
		read, matched = read+st.KeysRead, matched+int64(len(want))
	}
	if wholeBytes <= read {
		t.Errorf("the prefixes' whole bytes hold %d keys, their ranges %d: no near misses tested", wholeBytes, read)
	}
	t.Logf("%d prefixes over %d users: %d keys read, %d matching; their whole bytes alone hold %d", len(prefixTests), n, read, matched, wholeBytes)

	// ScanRange: from the first name starting "alh" through the last
	// starting "ali", both included.
	from := term.Tuple(atomUser, term.BinaryPrefix([]byte("alh")), term.Atom("_"))
	to := term.Tuple(atomUser, term.BinaryPrefix([]byte("ali")), term.Atom("_"))
	want := append(starting(userKeys, "alh"), starting(userKeys, "ali")...)
	before := ck.KeysRead()
	es := collect(t, s.ScanRange(ctx, from, to, store.ScanOptions{KeysOnly: true}))
	if r := ck.KeysRead() - before; !entryKeysAre(t, es, want) || r != int64(len(want)) {
		t.Errorf("ScanRange(%s, %s): %d entries, %d keys read; want the %d whose names start alh or ali", from, to, len(es), r, len(want))
	}

	// The index path: a head whose prefix does not bound the scan reads
	// the index's entries of the values that start with the prefix.
	plain := map[string][]selRow{}
	for _, p := range prefixTests {
		var st store.SelectStats
		plain[p], _ = collectSel(t, s, prefixSpec(t, term.Tuple(atomItem, term.Atom("_"), term.BinaryPrefix([]byte(p)))), store.SelectOptions{Stats: &st})
		if st.Index != "" || st.KeysRead != int64(n) {
			t.Fatalf("without an index, {item,'_',<<%q,_/binary>>} read %d keys through %q, want the plan's %d items", p, st.KeysRead, st.Index, n)
		}
	}
	byName := term.Tuple(atomItem, term.Atom("_"), term.Atom("$1"))
	if err := s.CreateIndex(ctx, "by_name", byName, nil); err != nil {
		t.Fatal(err)
	}
	checkIndexed := func(t *testing.T, p string, rev bool) {
		bp := term.BinaryPrefix([]byte(p))
		spec := prefixSpec(t, term.Tuple(atomItem, term.Atom("_"), bp))
		var st store.SelectStats
		got, _ := collectSel(t, s, spec, store.SelectOptions{Reverse: rev, Stats: &st})
		w := plain[p]
		if rev {
			w = reversed(w)
		}
		n := int64(len(starting(itemKeys, p)))
		if !sameSelRows(got, w) || st.Index != "by_name" || st.KeysRead != n {
			t.Errorf("Select %s reverse %v: %d rows, %d keys read through %q; want %d rows, the %d entries of by_name", spec, rev, len(got), st.KeysRead, st.Index, len(w), n)
		}
	}
	// In pages of 3, each page races the plan against the entries and
	// yields the rows of whichever ends first: the same rows.
	checkPaged := func(t *testing.T, p string) {
		spec := prefixSpec(t, term.Tuple(atomItem, term.Atom("_"), term.BinaryPrefix([]byte(p))))
		var paged []selRow
		after := ""
		for range len(plain[p])/3 + 2 {
			var st store.SelectStats
			page, next := collectSel(t, s, spec, store.SelectOptions{Limit: 3, After: after, Stats: &st})
			paged = append(paged, page...)
			if st.Index != "" && st.Index != "by_name" {
				t.Errorf("Select %s in pages of 3: a page read %q", spec, st.Index)
			}
			if len(page) < 3 {
				break
			}
			after = next
		}
		if !sameSelRows(paged, plain[p]) {
			t.Errorf("Select %s in pages of 3: %d rows, want %d", spec, len(paged), len(plain[p]))
		}
	}
	for _, p := range prefixTests {
		bp := term.BinaryPrefix([]byte(p))
		spec := prefixSpec(t, term.Tuple(atomItem, term.Atom("_"), bp))
		checkPaged(t, p)
		plan, err := s.ExplainSelect(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if ix := plan.Index; ix == nil || ix.Name != "by_name" || !ix.Sorted || !term.Equal(ix.Value, bp) || len(ix.Ranges) != 1 {
			t.Errorf("ExplainSelect %s: %+v, want by_name's entries of the values starting %q", spec, plan.Index, p)
		}
		checkIndexed(t, p, false)
		checkIndexed(t, p, true)
		// IndexScan of the prefix: by value, then key.
		want := starting(itemKeys, p)
		slices.SortStableFunc(want, func(a, b prefixKey) int { return strings.Compare(a.name, b.name) })
		before := ck.KeysRead()
		got := collectIndex(t, s.IndexScan(ctx, "by_name", bp, store.IndexScanOptions{KeysOnly: true}))
		r := ck.KeysRead() - before
		if !slices.EqualFunc(got, want, func(e store.IndexEntry, k prefixKey) bool { return term.Equal(e.Key, k.key) }) || r != int64(len(want)) {
			t.Errorf("IndexScan by_name %s: %d entries, %d keys read; want %d", bp, len(got), r, len(want))
		}
	}
	before = ck.KeysRead()
	vr := store.ValueRange{From: term.BinaryPrefix([]byte("ali")), Before: term.BinaryPrefix([]byte("alj"))}
	got := collectIndex(t, s.IndexScanRange(ctx, "by_name", vr, store.IndexScanOptions{KeysOnly: true}))
	if r, want := ck.KeysRead()-before, len(starting(itemKeys, "ali")); len(got) != want || r != int64(want) {
		t.Errorf("IndexScanRange by_name %v: %d entries, %d keys read; want the %d names that start ali", vr, len(got), r, want)
	}

	// Beside writers of near misses ("alh", "alj", "alo": the whole
	// bytes of "ali"'s range) and an index created, dropped and checked,
	// the reads of "ali" see the same rows and read the same keys: 8
	// rounds of them at testsize's full size, 4 in a quick run.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes, upkeep atomic.Int64
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := term.Binary(fmt.Appendf(nil, "%s~w%d", []string{"alh", "alj", "alo"}[i%3], i%50))
			b := s.NewBatch()
			u, it := term.Tuple(atomUser, name, term.Int(int64(i))), term.Tuple(atomItem, term.Int(int64(i%37)), name)
			if i%4 == 3 {
				b.Delete(u)
				b.Delete(it)
			} else {
				b.Put(u, []byte("w"))
				b.Put(it, []byte("w"))
			}
			if err := s.Apply(ctx, b); err != nil {
				t.Errorf("writer: %v", err)
				return
			}
			writes.Add(1)
		}
	}()
	go func() {
		defer wg.Done()
		byNum := term.Tuple(atomUser, term.Atom("_"), term.Atom("$1"))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			switch i % 3 {
			case 0:
				err = s.CreateIndex(ctx, "by_num", byNum, nil)
			case 1:
				_, err = s.CheckIndexes(ctx, store.IndexCheckOptions{})
			default:
				err = s.DropIndex(ctx, "by_num", nil)
			}
			if err != nil {
				t.Errorf("maintenance %d: %v", i%3, err)
				return
			}
			upkeep.Add(1)
		}
	}()
	head := term.Tuple(atomUser, term.BinaryPrefix([]byte("ali")), term.Atom("_"))
	spec := prefixSpec(t, head)
	want = starting(userKeys, "ali")
	rounds := testsize.Pick(4, 8)
	for range rounds {
		var st store.SelectStats
		got, _ := collectSel(t, s, spec, store.SelectOptions{Stats: &st})
		if !sameKeys(got, want) || st.KeysRead != int64(len(want)) {
			t.Errorf("beside writers, Select %s: %d rows, %d keys read; want %d", spec, len(got), st.KeysRead, len(want))
		}
		if es := collect(t, s.Scan(ctx, head, store.ScanOptions{Reverse: true})); len(es) != len(want) {
			t.Errorf("beside writers, Scan %s: %d entries, want %d", head, len(es), len(want))
		}
		checkIndexed(t, "ali", false)
		checkPaged(t, "ali")
	}
	close(stop)
	wg.Wait()
	t.Logf("%d rounds of reads beside %d batches written and %d index creations, checks and drops", rounds, writes.Load(), upkeep.Load())
}
