package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// errCrash is what a crashing commit returns.
var errCrash = errors.New("test: crashed at this commit")

// crashKV fails a chosen commit: before it reaches the backend (nothing
// written), or after (written, but the caller hears of a failure, as a
// process killed between its commit and its next line would not hear of
// the success). It can also slow every commit down, to widen the time
// between a migration's reads and its write. Batches keep the backend's
// conditions (seam.CondBatch).
type crashKV struct {
	seam.KV
	delay      time.Duration // before each commit
	countdown  atomic.Int64  // commits until the crash; 0 means none
	afterApply atomic.Bool
	crashes    atomic.Int64
	applied    atomic.Int64 // crashes after the write was applied
}

// crashIn arms a crash at the nth commit from now (n > 0).
func (c *crashKV) crashIn(n int, afterApply bool) {
	c.afterApply.Store(afterApply)
	c.countdown.Store(int64(n))
}

func (c *crashKV) NewBatch() seam.WriteBatch {
	wb := c.KV.NewBatch()
	if cb, ok := wb.(seam.CondBatch); ok {
		return &crashCondBatch{crashBatch{wb, c}, cb}
	}
	return &crashBatch{wb, c}
}

type crashBatch struct {
	seam.WriteBatch
	c *crashKV
}

func (b *crashBatch) Commit(ctx context.Context, sync bool) error {
	time.Sleep(b.c.delay)
	if b.c.countdown.Load() <= 0 || b.c.countdown.Add(-1) != 0 {
		return b.WriteBatch.Commit(ctx, sync)
	}
	b.c.crashes.Add(1)
	if b.c.afterApply.Load() {
		if err := b.WriteBatch.Commit(ctx, sync); err != nil {
			return err
		}
		b.c.applied.Add(1)
	}
	return errCrash
}

type crashCondBatch struct {
	crashBatch
	cb seam.CondBatch
}

func (b *crashCondBatch) RequireValue(key, value []byte) { b.cb.RequireValue(key, value) }
func (b *crashCondBatch) RequirePresent(key []byte)      { b.cb.RequirePresent(key) }
func (b *crashCondBatch) RequireAbsent(key []byte)       { b.cb.RequireAbsent(key) }

// modelSpec is a migration and, independently of how Migrate tells
// them, the patterns of its new layout.
type modelSpec struct {
	text string
	new  []string
}

var modelSpecs = []modelSpec{
	// New keys ahead of the scan, matched by the same head.
	{`[{{k,'$1','$2'},[],[{{k,'$1',{{'$2'}}}}]}]`, []string{`{k,'_',{'_'}}`}},
	// The issue's #Desc: new keys behind, a guard.
	{`[{{k,'$1','$2'},[{is_integer,'$2'}],[{{k,'$1',#Desc<'$2'>}}]}]`, []string{`{k,'_',#Desc<'_'>}`}},
	// Many keys onto one, behind the scan: conflicts.
	{`[{{k,'$1','_'},[],[{{j,'$1'}}]}]`, []string{`{j,'_'}`}},
	// Many keys onto one, ahead of the scan.
	{`[{{k,'$1','_'},[],[{{z,'$1'}}]}]`, []string{`{z,'_'}`}},
	// Two clauses, two new layouts.
	{`[{{k,'$1',x},[],[{{k,'$1',y}}]},{{k,'$1','$2'},[{is_integer,'$2'}],[{{k,'$1',{{'$2'}}}}]}]`, []string{`{k,'_',y}`, `{k,'_',{'_'}}`}},
}

// modelKey draws a key of the family the specifications work on, of the
// old layouts and the new.
func modelKey(t *rapid.T) term.Term {
	a := term.Int(int64(rapid.IntRange(0, 3).Draw(t, "a")))
	b := func() term.Term { return term.Int(int64(rapid.IntRange(0, 5).Draw(t, "b"))) }
	switch rapid.IntRange(0, 9).Draw(t, "shape") {
	case 0:
		return term.Tuple(term.Atom("j"), a)
	case 1:
		return term.Tuple(term.Atom("z"), a)
	case 2:
		return term.Tuple(term.Atom("k"), a, term.Tuple(b()))
	case 3:
		return term.Tuple(term.Atom("k"), a, term.Desc(b()))
	case 4:
		return term.Tuple(term.Atom("k"), a, term.Atom(rapid.SampledFrom([]string{"x", "y"}).Draw(t, "atom")))
	}
	return term.Tuple(term.Atom("k"), a, b())
}

type modelRow struct {
	key   term.Term
	value string
}

// migrateModel is what Migrate must leave: the keys the specification
// matches, in key order as they were at the start, each moved unless it
// is of the new layout already or its new key is taken by then.
func migrateModel(t *rapid.T, ms modelSpec, data map[string]modelRow) (out map[string]modelRow, moved, conflicts int64) {
	spec := matchspec.MustParse(ms.text)
	out = maps.Clone(data)
	for _, kb := range slices.Sorted(maps.Keys(data)) {
		row := data[kb]
		res, ok := spec.Match(row.key)
		if !ok || slices.ContainsFunc(ms.new, func(p string) bool { _, ok := sext.Match(mustRapidTerm(t, p), row.key); return ok }) {
			continue
		}
		nb, err := sext.Encode(res.Term)
		if err != nil {
			t.Fatal(err)
		}
		if _, taken := out[string(nb)]; taken {
			conflicts++
			continue
		}
		delete(out, kb)
		out[string(nb)] = modelRow{res.Term, row.value}
		moved++
	}
	return out, moved, conflicts
}

func mustRapidTerm(t *rapid.T, s string) term.Term {
	x, err := term.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

var modelIndex = term.Tuple(term.Atom("_"), term.Atom("$1"), term.Atom("_"))

// checkMigrateModel is the model property: a store of random keys, with
// an index, migrated by one of modelSpecs through crashes at random
// commits (before and after they apply), each run resumed from the last
// token reported, an older one or none, in steps of random sizes, ends
// holding what migrateModel says, values and index entries included.
// A dry run beforehand counts what the migration does; a run after it
// changes nothing and finds the same conflicts.
func checkMigrateModel(t *rapid.T, open func() seam.KV) {
	ctx := context.Background()
	ckv := &crashKV{KV: open()}
	s := store.New(ckv, &store.Options{NoSync: true})
	defer s.Close()
	if err := s.CreateIndex(ctx, "by_a", modelIndex, nil); err != nil {
		t.Fatal(err)
	}
	ms := rapid.SampledFrom(modelSpecs).Draw(t, "spec")
	spec := matchspec.MustParse(ms.text)
	data := map[string]modelRow{}
	b := s.NewBatch()
	for i := range rapid.IntRange(0, 40).Draw(t, "keys") {
		k := modelKey(t)
		kb, _ := sext.Encode(k)
		data[string(kb)] = modelRow{k, fmt.Sprint("v", i)}
		b.Put(k, []byte(fmt.Sprint("v", i)))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	want, moved, conflicts := migrateModel(t, ms, data)

	dry, err := s.Migrate(ctx, spec, store.MigrateOptions{DryRun: true, Step: rapid.IntRange(1, 5).Draw(t, "dry step")})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Migrated != moved || dry.Conflicts != conflicts || !dry.Done {
		t.Fatalf("dry run: %+v; the model moves %d and finds %d conflicts", dry, moved, conflicts)
	}

	var tokens []string // every token reported, in order
	var total int64
	for run := 0; ; run++ {
		after := ""
		if len(tokens) > 0 {
			switch rapid.IntRange(0, 5).Draw(t, "resume from") {
			case 0:
			case 1:
				after = rapid.SampledFrom(tokens).Draw(t, "older token")
			default:
				after = tokens[len(tokens)-1]
			}
		}
		crash := run < 12 && rapid.Bool().Draw(t, "crash")
		if crash {
			ckv.crashIn(rapid.IntRange(1, 4).Draw(t, "commits"), rapid.Bool().Draw(t, "after apply"))
		} else {
			ckv.crashIn(0, false)
		}
		res, err := s.Migrate(ctx, spec, store.MigrateOptions{After: after, Step: rapid.IntRange(1, 6).Draw(t, "step"),
			Progress: func(r store.MigrateResult) {
				if r.Token != "" {
					tokens = append(tokens, r.Token)
				}
			}})
		total += res.Migrated
		if err != nil {
			if !errors.Is(err, errCrash) {
				t.Fatalf("run %d: %v", run, err)
			}
			if res.Token != "" && (len(tokens) == 0 || res.Token != tokens[len(tokens)-1]) && res.Token != after {
				t.Fatalf("run %d: the result's token is neither the last reported nor the one it started from", run)
			}
			continue
		}
		if !res.Done || res.Token != "" {
			t.Fatalf("run %d ended without error but not done: %+v", run, res)
		}
		break
	}
	ckv.crashIn(0, false)
	if total > moved || ckv.applied.Load() == 0 && total != moved {
		t.Fatalf("the runs migrated %d keys in all; the model moves %d (%d crashes after a write)", total, moved, ckv.applied.Load())
	}
	checkModelStore(t, s, want)
	again, err := s.Migrate(ctx, spec, store.MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Migrated != 0 || again.Conflicts != conflicts {
		t.Fatalf("a run after the end: %+v; want nothing moved and %d conflicts", again, conflicts)
	}
	checkModelStore(t, s, want)
}

// checkModelStore fails unless s holds exactly want, and its index
// by_a exactly the entries of want's keys that it matches.
func checkModelStore(t *rapid.T, s *store.Store, want map[string]modelRow) {
	ctx := context.Background()
	got := map[string]modelRow{}
	for e, err := range s.Scan(ctx, term.Atom("_"), store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := sext.Encode(e.Key)
		got[string(kb)] = modelRow{e.Key, string(e.Value)}
	}
	show := func(m map[string]modelRow) string {
		var b bytes.Buffer
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(&b, "\n  %v=%s", m[k].key, m[k].value)
		}
		return b.String()
	}
	if !maps.EqualFunc(got, want, func(a, b modelRow) bool { return a.value == b.value }) {
		t.Fatalf("store:%s\nmodel:%s", show(got), show(want))
	}
	var entries, wantEntries []string
	for e, err := range s.IndexScan(ctx, "by_a", term.Atom("_"), store.IndexScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, fmt.Sprint(e.IndexValue, " ", e.Key, " ", string(e.Value)))
	}
	type ent struct {
		v, k term.Term
		val  string
	}
	var es []ent
	for _, r := range want {
		if bs, ok := sext.Match(modelIndex, r.key); ok {
			v, _ := bs.Get("$1")
			es = append(es, ent{v, r.key, r.value})
		}
	}
	slices.SortFunc(es, func(a, b ent) int {
		if c := term.Compare(a.v, b.v); c != 0 {
			return c
		}
		return term.Compare(a.k, b.k)
	})
	for _, e := range es {
		wantEntries = append(wantEntries, fmt.Sprint(e.v, " ", e.k, " ", e.val))
	}
	if !slices.Equal(entries, wantEntries) {
		t.Fatalf("index by_a:\n  %q\nwant\n  %q", entries, wantEntries)
	}
	r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{})
	if err != nil || !r.Clean() {
		t.Fatalf("index check: %+v %v", r, err)
	}
}

// TestMigrateModel runs the model property on Pebble.
func TestMigrateModel(t *testing.T) {
	base := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		checkMigrateModel(rt, func() seam.KV {
			dir, err := os.MkdirTemp(base, "case")
			if err != nil {
				rt.Fatal(err)
			}
			kv, err := pebblekv.Open(dir, nil)
			if err != nil {
				rt.Fatal(err)
			}
			return kv
		})
	})
}
