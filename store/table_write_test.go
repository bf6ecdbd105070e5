package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// The objects of TestTableBatchesAgree: {ord, Key, Val, U}, Key and Val
// binaries whose encodings share long prefixes (so that the writer's
// sort meets keys alike in their first bytes past the shared ones), some
// of them long, Val under a non-unique index and U under a unique one.

type twWrite struct {
	del, bad bool
	k, v, u  int
}

func twKey(k int) term.Term {
	b := fmt.Appendf(nil, "order-2026-12-03-customer-%02d", k)
	if k >= 20 { // longer than the room the writer first gives a key
		b = fmt.Appendf(b, "-%0100d", k)
	}
	return term.Binary(b)
}

func twVal(v int) term.Term {
	b := fmt.Appendf(nil, "status-with-a-long-shared-prefix-%d", v)
	switch v {
	case 3: // longer than the room the writer first gives a value
		b = append(b, strings.Repeat("-", 100)...)
	case 4: // an index entry larger than a chunk of the writer's arena
		b = append(b, strings.Repeat("+", 70_000)...)
	}
	return term.Binary(b)
}

func (w twWrite) obj() term.Term {
	if w.bad { // one element short
		return term.Tuple(term.Atom("ord"), twKey(w.k), twVal(w.v))
	}
	return term.Tuple(term.Atom("ord"), twKey(w.k), twVal(w.v), term.Int(int64(w.u)))
}

// twApply applies a batch to the model, or returns the error the store
// must refuse it with: an object that does not fit, wherever it is, and
// then a unique conflict, each write seeing the ones before it.
func twApply(m map[int]twWrite, batch []twWrite) (map[int]twWrite, error) {
	if slices.ContainsFunc(batch, func(w twWrite) bool { return w.bad && !w.del }) {
		return m, store.ErrObject
	}
	next := maps.Clone(m)
	for _, w := range batch {
		if w.del {
			delete(next, w.k)
			continue
		}
		for k, o := range next {
			if k != w.k && o.u == w.u {
				return m, store.ErrUnique
			}
		}
		next[w.k] = w
	}
	return next, nil
}

// TestTableBatchesAgree: batches of 1 to 80 writes and deletes in any
// order, with a key written more than once, existing objects replaced,
// and now and then a batch refused (an object of the wrong arity, a
// unique conflict) between the others, leave a table whose objects,
// count, index look-ups and check agree with a map. The batches are
// large enough for the writer to read the old objects with one cursor
// and to sort many index entries; tables come and go on one store, so
// that each batch runs on buffers an earlier one, refused or not, used.
func TestTableBatchesAgree(t *testing.T) {
	ctx := context.Background()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		name := fmt.Sprint("ord", n)
		def := store.TableDef{Name: name, Record: "ord", Attributes: []string{"key", "val", "u"}}
		if err := s.CreateTable(ctx, def); err != nil {
			rt.Fatal(err)
		}
		defer s.DropTable(ctx, name, nil)
		if err := s.CreateTableIndex(ctx, name, "val", false, nil); err != nil {
			rt.Fatal(err)
		}
		if err := s.CreateTableIndex(ctx, name, "u", true, nil); err != nil {
			rt.Fatal(err)
		}
		op := rapid.Custom(func(rt *rapid.T) twWrite {
			return twWrite{
				del: rapid.IntRange(0, 4).Draw(rt, "del") == 0,
				bad: rapid.IntRange(0, 150).Draw(rt, "bad") == 0,
				k:   rapid.IntRange(0, 23).Draw(rt, "k"),
				v:   rapid.IntRange(0, 4).Draw(rt, "v"),
				u:   rapid.IntRange(0, 59).Draw(rt, "u"),
			}
		})
		m := map[int]twWrite{}
		for i := range rapid.IntRange(1, testsize.Pick(8, 20)).Draw(rt, "batches") {
			batch := rapid.SliceOfN(op, 1, 80).Draw(rt, "batch")
			if rapid.Bool().Draw(rt, "sorted") { // in key order, as a loader writes
				slices.SortStableFunc(batch, func(a, b twWrite) int { return a.k - b.k })
			}
			next, want := twApply(m, batch)
			b := s.NewTableBatch()
			for _, w := range batch {
				if w.del {
					b.Delete(name, twKey(w.k))
				} else {
					b.Write(name, w.obj())
				}
			}
			err := s.ApplyTableBatch(ctx, b)
			if want == nil && err != nil || want != nil && !errors.Is(err, want) {
				rt.Fatalf("batch %d: %v, want %v", i, err, want)
			}
			m = next
			if why := twAgree(ctx, s, name, m); why != "" {
				rt.Fatalf("after batch %d: %s", i, why)
			}
		}
	})
}

// twAgree reports how the table differs from m, or "" if it does not.
func twAgree(ctx context.Context, s *store.Store, name string, m map[int]twWrite) string {
	info, err := s.DescribeTable(ctx, name)
	if err != nil {
		return err.Error()
	}
	if info.Count != int64(len(m)) {
		return fmt.Sprintf("count %d, the model holds %d", info.Count, len(m))
	}
	keys := slices.Sorted(maps.Keys(m))
	rows := func(spec string, pick func(twWrite) bool) string {
		var got, want []term.Term
		for r, err := range s.SelectTable(ctx, name, matchspec.MustParse(spec), store.SelectOptions{}) {
			if err != nil {
				return err.Error()
			}
			got = append(got, r.Object)
		}
		for _, k := range keys {
			if pick(m[k]) {
				want = append(want, m[k].obj())
			}
		}
		if !slices.EqualFunc(got, want, term.Equal) {
			return fmt.Sprintf("%s gave %v, want %v", spec, got, want)
		}
		return ""
	}
	if why := rows(`[{'_',[],['$_']}]`, func(twWrite) bool { return true }); why != "" {
		return why
	}
	for v := range 5 {
		spec := fmt.Sprintf(`[{{ord,'_',%v,'_'},[],['$_']}]`, twVal(v))
		if why := rows(spec, func(w twWrite) bool { return w.v == v }); why != "" {
			return why
		}
	}
	r, err := s.CheckTables(ctx, store.TableCheckOptions{})
	if err != nil {
		return err.Error()
	}
	if !r.Clean() {
		return fmt.Sprintf("CheckTables: %+v", r)
	}
	return ""
}
