package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/internal/specgen"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// tbVMCase is one check of TestSelectTableAgreesWithETS: objects
// {r, Key, A, B} in key order and a specification over them.
type tbVMCase struct {
	seed  uint64
	objs  []term.Term
	spec  term.Term
	index bool // the table has an index on A
}

// tbVMCaseFrom draws a case: specgen's keys (those on which Erlang's
// order and the encoding's agree, as TestSelectAgreesWithETS keeps them)
// with two more fields each, and specgen's clauses with each head H
// made the record head {r, H, PA, PB}: PA and PB are '_', the variables
// '$4' and '$5', or a value some object holds, and a clause may gain a
// guard on '$4'. Guards and bodies keep '$_', which is now the whole
// object. A third of the cases have an index on A, and half of those a
// spec of one clause that fixes A (in the head or by a guard '$4' =:= C)
// with the key left open, which the index answers.
func tbVMCaseFrom(t interface{ Fatalf(string, ...any) }, seed uint64, n int) tbVMCase {
	r := rand.New(rand.NewPCG(seed, seed^0x7AB1E))
	g := &specgen.Gen{R: r, Erlang: true}
	keys := erlangOrderKeys(t, g, n)
	value := func() term.Term {
		for {
			v := g.Term(1)
			if !contains(v, isFloatZero) {
				return v
			}
		}
	}
	c := tbVMCase{seed: seed}
	var held []term.Term
	for _, k := range keys {
		a, b := value(), value()
		held = append(held, a, b)
		c.objs = append(c.objs, term.Tuple(term.Atom("r"), k, a, b))
	}
	field := func(v string) term.Term {
		switch x := r.IntN(6); {
		case x < 2:
			return term.Atom("_")
		case x < 4:
			return term.Atom(v)
		case len(held) > 0 && x == 4:
			return held[r.IntN(len(held))]
		}
		return g.Leaf()
	}
	var cls []term.Term
	for _, cl := range g.Spec().Elems() {
		el := cl.Elems()
		head, guards, body := el[0], el[1].Elems(), el[2]
		if head.Kind() != term.KindAtom || r.IntN(3) > 0 { // a head '_' or '$N' may stay the whole object's
			pa, pb := field("$4"), field("$5")
			head = term.Tuple(term.Atom("r"), head, pa, pb)
			if term.Equal(pa, term.Atom("$4")) && r.IntN(2) == 0 {
				ops := []string{"<", ">=", "=:=", "==", "/="}
				var x term.Term
				if len(held) > 0 && r.IntN(2) == 0 {
					x = held[r.IntN(len(held))]
				} else {
					x = g.Leaf()
				}
				guards = append(guards, term.Tuple(term.Atom(ops[r.IntN(len(ops))]), term.Atom("$4"), term.Tuple(term.Atom("const"), x)))
			}
		}
		cls = append(cls, term.Tuple(head, term.List(guards...), body))
	}
	c.spec = term.List(cls...)
	c.index = seed%3 == 0
	if c.index && len(held) > 0 && r.IntN(2) == 0 {
		v := held[2*r.IntN(len(held)/2)] // an A
		key := []term.Term{term.Atom("_"), term.Atom("$1"), term.Tuple(term.Atom("_"), term.Atom("_"))}[r.IntN(3)]
		head := term.Tuple(term.Atom("r"), key, v, field("$5"))
		guards := term.List()
		if r.IntN(2) == 0 {
			head = term.Tuple(term.Atom("r"), key, term.Atom("$4"), field("$5"))
			guards = term.List(term.Tuple(term.Atom("=:="), term.Atom("$4"), term.Tuple(term.Atom("const"), v)))
		}
		body := []term.Term{term.Atom("$_"), term.Atom("$$"), term.Atom("$4")}[r.IntN(3)]
		if !term.Equal(head.Elems()[2], term.Atom("$4")) && body.Atom() == "$4" {
			body = term.Atom("$_")
		}
		c.spec = term.List(term.Tuple(head, guards, term.List(body)))
	}
	return c
}

// TestSelectTableAgreesWithETS: for random objects and specifications,
// SelectTable on a table of records {r, Key, A, B} returns, forward and
// reverse, whole and in pages resumed by tokens, the rows that OTP's
// ets:select and ets:select_reverse return on an ordered_set with
// {keypos, 2} holding the same objects, in the same order.
func TestSelectTableAgreesWithETS(t *testing.T) {
	vm := erlvm.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var cases []tbVMCase
	for want := testsize.Checks(); len(cases) < want; {
		rapid.Check(t, func(rt *rapid.T) {
			seed := rapid.Uint64().Draw(rt, "seed")
			n := rapid.IntRange(0, 60).Draw(rt, "objects")
			cases = append(cases, tbVMCaseFrom(rt, seed, n))
		})
		cases = cases[:min(len(cases), want)]
	}
	const storeCases = 100
	var s *store.Store
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	failures, withRows, rows, indexed := 0, 0, 0, 0
	for lo := 0; lo < len(cases); lo += vmBatch {
		part := cases[lo:min(lo+vmBatch, len(cases))]
		arg := make([]term.Term, len(part))
		for i, c := range part {
			arg[i] = term.Tuple(term.List(c.objs...), c.spec)
		}
		res, err := vm.Eval(ctx, `[try
			T = ets:new(t, [ordered_set, private, {keypos, 2}]),
			true = ets:insert(T, Objs),
			N = length(Objs), N = ets:info(T, size),
			R = {ets:select(T, MS), ets:select_reverse(T, MS)},
			ets:delete(T),
			R
		catch C:E -> {error, iolist_to_binary(io_lib:format("~p:~p", [C, E]))} end || {Objs, MS} <- Cases].`,
			map[string]term.Term{"Cases": term.List(arg...)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Len() != len(part) {
			t.Fatalf("the VM gave %d results for %d cases", res.Len(), len(part))
		}
		for i, c := range part {
			r := res.Elems()[i]
			if r.Kind() != term.KindTuple || r.Len() != 2 || r.Elems()[0].Kind() != term.KindList {
				t.Fatalf("case %d (seed %d): the VM gave %s\nspec %s", lo+i, c.seed, r, c.spec)
			}
			if (lo+i)%storeCases == 0 {
				if s != nil {
					s.Close()
				}
				if s, err = openChecked(t, t.TempDir(), &store.Options{NoSync: true}); err != nil {
					t.Fatal(err)
				}
			}
			name := fmt.Sprint("c", lo+i)
			if err := s.CreateTable(ctx, store.TableDef{Name: name, Record: "r", Attributes: []string{"k", "a", "b"}}); err != nil {
				t.Fatal(err)
			}
			if c.index {
				if err := s.CreateTableIndex(ctx, name, "a", false, nil); err != nil {
					t.Fatal(err)
				}
			}
			b := s.NewTableBatch()
			for _, o := range c.objs {
				b.Write(name, o)
			}
			if err := s.ApplyTableBatch(ctx, b); err != nil {
				t.Fatal(err)
			}
			spec, err := matchspec.Compile(c.spec)
			if err != nil {
				t.Fatalf("seed %d: Compile(%s): %v", c.seed, c.spec, err)
			}
			for dir, want := range r.Elems() {
				reverse := dir == 1
				got, paged, size, ix := tbVMSelect(t, s, name, spec, reverse)
				if ix {
					indexed++
				}
				why := ""
				switch {
				case !sameTerms(got, want.Elems()):
					why = "SelectTable"
				case !sameTerms(paged, want.Elems()):
					why, got = fmt.Sprintf("SelectTable in pages of %d", size), paged
				}
				if why != "" {
					t.Errorf("case %d (seed %d), reverse %v: %s differs from ets\nobjects %s\nspec %s\n got %s\nwant %s",
						lo+i, c.seed, reverse, why, term.List(c.objs...), c.spec, term.List(got...), want)
					if failures++; failures == 5 {
						t.FailNow()
					}
				}
			}
			if n := r.Elems()[0].Len(); n > 0 {
				withRows++
				rows += n
			}
		}
	}
	t.Logf("%d cases (%d with rows, %d rows each way; %d selects read an index)", len(cases), withRows, rows, indexed)
}

// tbVMSelect runs spec over table in one direction: whole, with objects,
// and keys only in pages of 1 to 5 resumed from tokens.
func tbVMSelect(t *testing.T, s *store.Store, table string, spec *matchspec.Spec, reverse bool) (whole, paged []term.Term, size int, indexed bool) {
	t.Helper()
	run := func(opts store.SelectOptions) (out []term.Term, next string) {
		var st store.SelectStats
		opts.Stats = &st
		for r, err := range s.SelectTable(context.Background(), table, spec, opts) {
			if err != nil {
				t.Fatalf("SelectTable %s: %v", spec, err)
			}
			out = append(out, r.Result.Term)
			next = r.Continuation()
		}
		indexed = indexed || st.Index != ""
		return out, next
	}
	whole, _ = run(store.SelectOptions{Reverse: reverse})
	size = 1 + len(whole)%5
	after := ""
	for pages := 0; ; pages++ {
		page, next := run(store.SelectOptions{Reverse: reverse, Limit: size, After: after, KeysOnly: true})
		paged = append(paged, page...)
		if len(page) < size || pages > len(whole)+1 {
			break
		}
		after = next
	}
	return whole, paged, size, indexed
}
