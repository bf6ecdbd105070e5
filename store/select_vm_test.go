package store_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/internal/specgen"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// vmCase is one check of TestSelectAgreesWithETS: keys, in the encoding's
// order, and a specification, both from specgen seeded with seed.
type vmCase struct {
	seed  uint64
	drawn int // keys drawn from specgen, before erlangOrderKeys's filter
	keys  []term.Term
	spec  term.Term
}

// vmChecks is how many cases TestSelectAgreesWithETS runs: the number
// -rapid.checks gives, or testsize's count (1,000; 10,000 at full size;
// 100 with -short). The store package has no TestMain setting the flag
// for its properties: TestCheckFixProperty opens a Pebble store a case,
// and took 2m8s at 10,000 checks.
func vmChecks() int { return testsize.Checks() }

// vmBatch is how many cases go to the VM in one call.
const vmBatch = 500

// TestSelectAgreesWithETS: for random key sets and random specifications
// (specgen's Erlang mode: several clauses, guards on the variable that
// bounds the scan and on others, every body form, binary prefixes in
// heads, which ets runs as the guards specgen.ETS writes), Store.Select on a
// Pebble store holding the keys returns, forward and reverse and in pages
// resumed by tokens, the rows that OTP's ets:select and ets:select_reverse
// return on an ordered_set holding the same keys, in the same order
// (testdata/ets_select.erl). The keys are those on which Erlang's term
// order and the encoding's order agree: see erlangOrderKeys.
func TestSelectAgreesWithETS(t *testing.T) {
	vm := erlvm.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src, err := filepath.Abs("testdata/ets_select.erl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Eval(ctx, `{ok, M, B} = compile:file(binary_to_list(Src), [binary, return_errors]),
		{module, M} = code:load_binary(M, binary_to_list(Src), B).`,
		map[string]term.Term{"Src": term.Binary([]byte(src))}); err != nil {
		t.Fatalf("loading %s: %v", src, err)
	}

	var cases []vmCase
	for want := vmChecks(); len(cases) < want; {
		rapid.Check(t, func(rt *rapid.T) {
			seed := rapid.Uint64().Draw(rt, "seed")
			n := rapid.IntRange(0, 100).Draw(rt, "keys")
			g := &specgen.Gen{R: rand.New(rand.NewPCG(seed, seed^0xE75)), Erlang: true, Prefixes: true}
			cases = append(cases, vmCase{seed, n, erlangOrderKeys(rt, g, n), g.Spec()})
		})
		cases = cases[:min(len(cases), want)]
	}

	// A case deletes the last case's keys and writes its own. Deleted keys
	// stay in the engine's memtable as tombstones that every later
	// iterator steps over, so a fresh store every storeCases cases keeps
	// the cost of a case flat.
	const storeCases = 100
	var s *store.Store
	var stored []term.Term // the keys in s now
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	var st vmStats
	failures := 0
	for lo := 0; lo < len(cases); lo += vmBatch {
		part := cases[lo:min(lo+vmBatch, len(cases))]
		arg := make([]term.Term, len(part))
		for i, c := range part {
			arg[i] = term.Tuple(term.List(c.keys...), specgen.ETS(c.spec))
		}
		res, err := vm.Eval(ctx, "ets_select:run(Cases).", map[string]term.Term{"Cases": term.List(arg...)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind() != term.KindList || res.Len() != len(part) {
			t.Fatalf("the VM gave %d results for %d cases", res.Len(), len(part))
		}
		for i, c := range part {
			r := res.Elems()[i]
			if r.Kind() != term.KindTuple || r.Len() != 2 || r.Elems()[0].Kind() != term.KindList {
				t.Fatalf("%s\nthe VM gave %s", c.describe(lo+i), r)
			}
			if (lo+i)%storeCases == 0 {
				if s != nil {
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
				}
				if s, err = openChecked(t, t.TempDir(), &store.Options{NoSync: true}); err != nil {
					t.Fatal(err)
				}
				stored = nil
			}
			stored = replaceKeys(t, s, stored, c.keys)
			for dir, want := range r.Elems() {
				reverse := dir == 1
				got, paged, size := selectResults(t, s, c, reverse)
				why := ""
				switch {
				case !sameTerms(got, want.Elems()):
					why = "Store.Select"
				case !sameTerms(paged, want.Elems()):
					why, got = fmt.Sprintf("Store.Select in pages of %d", size), paged
				}
				if why != "" {
					t.Errorf("reverse %v: %s differs from ets in %s\n got %s\nwant %s",
						reverse, why, c.describe(lo+i), term.List(got...), want)
					if failures++; failures == 5 {
						t.FailNow()
					}
				}
			}
			st.add(c, r.Elems()[0])
		}
	}
	t.Logf("%d cases (%d with rows), %d keys (of %d drawn; %d holding maps, %d floats of integral value), %d rows each way; %d specs with binary prefixes, %d rows",
		st.cases, st.withRows, st.keys, st.drawn, st.maps, st.floats, st.rows, st.prefixCases, st.prefixRows)
	if st.prefixRows == 0 {
		t.Error("no spec with a binary prefix selected a row")
	}
}

// describe names case i for a failure: its seed and count, which
// reproduce it, and its keys and spec, which show it.
func (c vmCase) describe(i int) string {
	return fmt.Sprintf("case %d (seed %d, %d keys drawn)\nkeys %s\nspec %s", i, c.seed, c.drawn, term.List(c.keys...), c.spec)
}

// vmStats counts what the cases held, to show the test checked something.
type vmStats struct {
	cases, withRows, drawn, keys, maps, floats, rows int
	prefixCases, prefixRows                          int // cases whose spec holds a binary prefix, and their rows
}

// add counts case c, forward being ets:select's rows.
func (st *vmStats) add(c vmCase, forward term.Term) {
	st.cases++
	if forward.Len() > 0 {
		st.withRows++
	}
	st.rows += forward.Len()
	if contains(c.spec, isKind(term.KindBinaryPrefix)) {
		st.prefixCases++
		st.prefixRows += forward.Len()
	}
	st.drawn += c.drawn
	st.keys += len(c.keys)
	for _, k := range c.keys {
		if contains(k, isKind(term.KindMap)) {
			st.maps++
		}
		if contains(k, isIntegralFloat) {
			st.floats++
		}
	}
}

// erlangOrderKeys draws n keys from g and keeps those on which Erlang's
// term order (term.CompareErlang, itself checked against a VM in package
// etf) and the encoding's order agree, sorted in the encoding's order. A
// key is kept if it sorts strictly between its neighbours in both orders,
// so the kept keys ascend strictly in both: none is == to another (an
// ordered_set would hold only one), and ets walks them in the store's
// order. Keys holding a map or a float of integral value, where the
// orders can part (Erlang orders maps by size first; 500.0 ties 500 at
// any depth, where the encoding tells them apart), are kept when they
// keep to that order. Dropped outright: keys holding a pid, port or
// reference (the encoding orders them otherwise than Erlang; specgen's
// Erlang mode makes none), and keys holding 0.0 or -0.0, which OTP 25's
// =:= and matching do not tell apart while package matchspec, as OTP 27
// does, does (matchspec/doc.go): {x,'$1','$1'} matches {x,0.0,-0.0} in
// OTP 25's ets, not in Store.Select.
func erlangOrderKeys(t interface{ Fatalf(string, ...any) }, g *specgen.Gen, n int) []term.Term {
	type key struct {
		enc []byte
		k   term.Term
	}
	var keys []key
	for range n {
		k := g.Key()
		if contains(k, isKind(term.KindPid, term.KindPort, term.KindRef, term.KindDesc)) || contains(k, isFloatZero) {
			continue
		}
		enc, err := sext.Encode(k)
		if err != nil {
			t.Fatalf("Encode(%s): %v", k, err)
		}
		i, found := slices.BinarySearchFunc(keys, enc, func(x key, enc []byte) int { return bytes.Compare(x.enc, enc) })
		if found || i > 0 && term.CompareErlang(keys[i-1].k, k) >= 0 || i < len(keys) && term.CompareErlang(k, keys[i].k) >= 0 {
			continue
		}
		keys = slices.Insert(keys, i, key{enc, k})
	}
	out := make([]term.Term, len(keys))
	for i, x := range keys {
		out[i] = x.k
	}
	return out
}

// contains reports whether f is true of x or of a term inside it.
func contains(x term.Term, f func(term.Term) bool) bool {
	if f(x) {
		return true
	}
	in := func(e term.Term) bool { return contains(e, f) }
	switch x.Kind() {
	case term.KindTuple:
		return slices.ContainsFunc(x.Elems(), in)
	case term.KindList:
		return slices.ContainsFunc(x.Elems(), in) || !x.IsProper() && in(x.Tail())
	case term.KindMap:
		return slices.ContainsFunc(x.Entries(), func(e term.MapEntry) bool { return in(e.Key) || in(e.Value) })
	}
	return false
}

func isKind(kinds ...term.Kind) func(term.Term) bool {
	return func(x term.Term) bool { return slices.Contains(kinds, x.Kind()) }
}

func isFloat(f func(float64) bool) func(term.Term) bool {
	return func(x term.Term) bool { return x.Kind() == term.KindFloat && f(x.Float()) }
}

var (
	isFloatZero     = isFloat(func(f float64) bool { return f == 0 })
	isIntegralFloat = isFloat(func(f float64) bool { return f == math.Trunc(f) })
)

// replaceKeys makes keys the store's only keys, old being those it holds.
func replaceKeys(t *testing.T, s *store.Store, old, keys []term.Term) []term.Term {
	t.Helper()
	b := s.NewBatch()
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range keys {
		if err := b.Put(k, []byte(fmt.Sprint("v", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return keys
}

// selectResults runs c's spec with Store.Select in one direction: whole,
// with values, and keys only in pages of a size (1 to 5) taken from c's
// seed, each resumed from the last one's token. It returns each row's
// result.
func selectResults(t *testing.T, s *store.Store, c vmCase, reverse bool) (whole, paged []term.Term, size int) {
	t.Helper()
	spec, err := matchspec.Compile(c.spec)
	if err != nil {
		t.Fatalf("seed %d: Compile(%s): %v", c.seed, c.spec, err)
	}
	run := func(opts store.SelectOptions) (out []term.Term, next string) {
		for r, err := range s.Select(context.Background(), spec, opts) {
			if err != nil {
				t.Fatalf("seed %d: Select %s: %v", c.seed, spec, err)
			}
			out = append(out, r.Result.Term)
			next = r.Continuation()
		}
		return out, next
	}
	whole, _ = run(store.SelectOptions{Reverse: reverse})
	size = 1 + int(c.seed%5)
	after := ""
	for pages := 0; ; pages++ {
		page, next := run(store.SelectOptions{Reverse: reverse, Limit: size, After: after, KeysOnly: true})
		paged = append(paged, page...)
		if len(page) < size || pages > len(c.keys) {
			break
		}
		after = next
	}
	return whole, paged, size
}

func sameTerms(a, b []term.Term) bool { return slices.EqualFunc(a, b, term.Equal) }
