package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// The model of a table: the property tests run random steps on a
// table {m, K, A, B} and on a plain map, and compare them after each.

// tbStep is one step: a batch of writes and deletes, or an index
// created or dropped on field 3 (A) or 4 (B).
type tbStep struct {
	batch  []tbWrite
	index  int // 0: a batch; 1: create; 2: drop
	pos    int
	unique bool
}

type tbWrite struct {
	del     bool
	k, a, b int64
}

func (w tbWrite) obj() term.Term {
	return term.Tuple(term.Atom("m"), term.Int(w.k), term.Atom(fmt.Sprint("a", w.a)), term.Int(w.b))
}

func (st tbStep) String() string {
	switch st.index {
	case 1:
		return fmt.Sprintf("create index on %d (unique %v)", st.pos, st.unique)
	case 2:
		return fmt.Sprintf("drop index on %d", st.pos)
	}
	var b strings.Builder
	for _, w := range st.batch {
		if w.del {
			fmt.Fprintf(&b, "delete %d; ", w.k)
		} else {
			fmt.Fprintf(&b, "write %v; ", w.obj())
		}
	}
	return b.String()
}

// tbSteps draws n steps from r: mostly batches over 12 keys and values
// few enough that unique indexes meet conflicts.
func tbSteps(r *rand.Rand, n int) []tbStep {
	out := make([]tbStep, n)
	for i := range out {
		switch x := r.IntN(10); {
		case x == 0:
			out[i] = tbStep{index: 1, pos: 3 + r.IntN(2), unique: r.IntN(2) == 0}
		case x == 1:
			out[i] = tbStep{index: 2, pos: 3 + r.IntN(2)}
		default:
			ws := make([]tbWrite, 1+r.IntN(4))
			for j := range ws {
				ws[j] = tbWrite{del: r.IntN(4) == 0, k: r.Int64N(12), a: r.Int64N(6), b: r.Int64N(8)}
			}
			out[i] = tbStep{batch: ws}
		}
	}
	return out
}

// tbModel is the table as a map from key to object, and its indexes by
// position (true: unique).
type tbModel struct {
	objs map[int64]tbWrite
	idx  map[int]bool
}

func newTBModel() *tbModel { return &tbModel{objs: map[int64]tbWrite{}, idx: map[int]bool{}} }

func (m *tbModel) clone() *tbModel {
	return &tbModel{objs: maps.Clone(m.objs), idx: maps.Clone(m.idx)}
}

func field(w tbWrite, pos int) int64 {
	if pos == 3 {
		return w.a
	}
	return w.b
}

// apply applies st to m and returns the error the store must give:
// nil, ErrUnique, ErrIndexExists or ErrNoIndex.
func (m *tbModel) apply(st tbStep) error {
	switch st.index {
	case 1:
		if _, ok := m.idx[st.pos]; ok {
			return store.ErrIndexExists
		}
		if st.unique {
			seen := map[int64]bool{}
			for _, w := range m.objs {
				if seen[field(w, st.pos)] {
					return store.ErrUnique
				}
				seen[field(w, st.pos)] = true
			}
		}
		m.idx[st.pos] = st.unique
		return nil
	case 2:
		if _, ok := m.idx[st.pos]; !ok {
			return store.ErrNoIndex
		}
		delete(m.idx, st.pos)
		return nil
	}
	next := maps.Clone(m.objs)
	for _, w := range st.batch {
		if w.del {
			delete(next, w.k)
			continue
		}
		for pos, unique := range m.idx {
			for k, o := range next {
				if unique && k != w.k && field(o, pos) == field(w, pos) {
					return store.ErrUnique
				}
			}
		}
		next[w.k] = w
	}
	m.objs = next
	return nil
}

// run applies st to s; progress, if not nil, hears of each step of an
// index's build or drop.
func (st tbStep) run(ctx context.Context, s *store.Store, progress func(int64)) error {
	attr := map[int]string{3: "a", 4: "b"}[st.pos]
	opts := &store.BuildOptions{Step: 3, Progress: progress}
	switch st.index {
	case 1:
		return s.CreateTableIndex(ctx, "m", attr, st.unique, opts)
	case 2:
		return s.DropTableIndex(ctx, "m", attr, opts)
	}
	b := s.NewTableBatch()
	for _, w := range st.batch {
		if w.del {
			b.Delete("m", term.Int(w.k))
		} else {
			b.Write("m", w.obj())
		}
	}
	return s.ApplyTableBatch(ctx, b)
}

var tbDef = store.TableDef{Name: "m", Record: "m", Attributes: []string{"k", "a", "b"}}

// tbAgree reports how s differs from m, or "" if it does not: the
// count, every object read by key and by a whole select in order, each
// index's look-ups (through the index) for every value, and a clean
// CheckTables.
func tbAgree(ctx context.Context, s *store.Store, m *tbModel) string {
	info, err := s.DescribeTable(ctx, "m")
	if err != nil {
		return err.Error()
	}
	if info.Count != int64(len(m.objs)) {
		return fmt.Sprintf("count %d, the model holds %d", info.Count, len(m.objs))
	}
	keys := slices.Sorted(maps.Keys(m.objs))
	var want []term.Term
	for _, k := range keys {
		want = append(want, m.objs[k].obj())
	}
	got, err := tbRows(ctx, s, `[{'_',[],['$_']}]`, "")
	if err != nil {
		return err.Error()
	}
	if !slices.EqualFunc(got, want, term.Equal) {
		return fmt.Sprintf("select all gave %v, want %v", got, want)
	}
	for k := range int64(12) {
		o, err := s.ReadObject(ctx, "m", term.Int(k))
		w, ok := m.objs[k]
		switch {
		case ok && (err != nil || !term.Equal(o, w.obj())):
			return fmt.Sprintf("read %d: %v, %v; want %v", k, o, err, w.obj())
		case !ok && !errors.Is(err, store.ErrNotFound):
			return fmt.Sprintf("read %d: %v, %v; want none", k, o, err)
		}
	}
	var ixs []string
	for _, ix := range info.Indexes {
		ixs = append(ixs, fmt.Sprintf("%d:%v:%v", ix.Pos, ix.Unique, ix.State))
	}
	var wantIx []string
	for _, pos := range slices.Sorted(maps.Keys(m.idx)) {
		wantIx = append(wantIx, fmt.Sprintf("%d:%v:ready", pos, m.idx[pos]))
	}
	slices.Sort(ixs)
	if !slices.Equal(ixs, wantIx) {
		return fmt.Sprintf("indexes %v, want %v", ixs, wantIx)
	}
	for pos := range m.idx {
		for v := range int64(8) {
			val := term.Int(v)
			head := fmt.Sprintf("{m,'_','_',%d}", v)
			if pos == 3 {
				val = term.Atom(fmt.Sprint("a", v))
				head = fmt.Sprintf("{m,'_',a%d,'_'}", v)
			}
			var want []term.Term
			for _, k := range keys {
				if field(m.objs[k], pos) == v {
					want = append(want, m.objs[k].obj())
				}
			}
			got, err := tbRows(ctx, s, "[{"+head+",[],['$_']}]", fmt.Sprint([]string{3: "a", 4: "b"}[pos]))
			if err != nil {
				return err.Error()
			}
			if !slices.EqualFunc(got, want, term.Equal) {
				return fmt.Sprintf("look-up of %v at %d gave %v, want %v", val, pos, got, want)
			}
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

// tbRows runs spec over m, forward, and checks that it read the index
// named (or none).
func tbRows(ctx context.Context, s *store.Store, spec, index string) ([]term.Term, error) {
	var st store.SelectStats
	var out []term.Term
	for r, err := range s.SelectTable(ctx, "m", matchspec.MustParse(spec), store.SelectOptions{Stats: &st}) {
		if err != nil {
			return nil, err
		}
		out = append(out, r.Object)
	}
	if st.Index != index {
		return nil, fmt.Errorf("%s read index %q, want %q", spec, st.Index, index)
	}
	return out, nil
}

// tbCheck runs steps on s and the model, comparing them after each.
func tbCheck(t interface {
	Fatalf(string, ...any)
	Logf(string, ...any)
}, s *store.Store, steps []tbStep) {
	ctx := context.Background()
	m := newTBModel()
	for i, st := range steps {
		next := m.clone()
		want := next.apply(st)
		err := st.run(ctx, s, nil)
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Fatalf("step %d, %v: %v, want %v", i, st, err, want)
		}
		if err == nil {
			m = next
		}
		if why := tbAgree(ctx, s, m); why != "" {
			t.Fatalf("after step %d, %v: %s", i, st, why)
		}
	}
}

// TestTableModel: random batches of writes and deletes, index creations
// (unique ones refused when the data break them) and drops, on a Pebble
// store and on a map; after each step the count, the objects, every
// index look-up and CheckTables agree with the map.
func TestTableModel(t *testing.T) {
	ctx := context.Background()
	// Each case opens a store: 100 of them in a quick run, 3,000 at
	// testsize's full size, whatever -rapid.checks says a call.
	for done, want := 0, testsize.Pick(100, 3000); done < want; {
		rapid.Check(t, func(rt *rapid.T) {
			done++
			tbModelCase(ctx, t, rt)
		})
	}
}

// tbModelCase is one case of TestTableModel: a fresh store, a seed and
// a number of steps.
func tbModelCase(ctx context.Context, t *testing.T, rt *rapid.T) {
	seed := rapid.Uint64().Draw(rt, "seed")
	n := rapid.IntRange(1, 40).Draw(rt, "steps")
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		rt.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, tbDef); err != nil {
		rt.Fatal(err)
	}
	tbCheck(rt, s, tbSteps(rand.New(rand.NewPCG(seed, 28)), n))
}
