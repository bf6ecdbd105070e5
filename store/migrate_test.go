package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// migrateStore opens an empty Pebble store, its backend checked for
// misuse, closed when the test ends.
func migrateStore(t testing.TB) *store.Store {
	kv, err := pebblekv.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(storetest.Checked(t, kv), nil)
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func mustTerm(t testing.TB, text string) term.Term {
	t.Helper()
	x, err := term.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// putTexts stores each "KEY=VALUE" pair.
func putTexts(t testing.TB, s *store.Store, kvs ...string) {
	t.Helper()
	b := s.NewBatch()
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		if err := b.Put(mustTerm(t, k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// contents is every data key of s, printed, with its value.
func contents(t testing.TB, s *store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for e, err := range s.Scan(context.Background(), term.Atom("_"), store.ScanOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		out[e.Key.String()] = string(e.Value)
	}
	return out
}

// wantContents fails unless s holds exactly want ("KEY=VALUE", keys
// printed as term.String prints them).
func wantContents(t testing.TB, s *store.Store, want ...string) {
	t.Helper()
	w := map[string]string{}
	for _, kv := range want {
		k, v, _ := strings.Cut(kv, "=")
		w[mustTerm(t, k).String()] = v
	}
	if got := contents(t, s); !maps.Equal(got, w) {
		t.Fatalf("store holds\n  %s\nwant\n  %s", showMap(got), showMap(w))
	}
}

func showMap(m map[string]string) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		lines = append(lines, k+"="+m[k])
	}
	return strings.Join(lines, "\n  ")
}

// indexClean fails unless CheckIndexes finds nothing.
func indexClean(t testing.TB, s *store.Store) {
	t.Helper()
	r, err := s.CheckIndexes(context.Background(), store.IndexCheckOptions{OnProblem: func(p store.IndexProblem) { t.Errorf("index check: %v", p) }})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Clean() {
		t.Fatalf("index check: %+v", r)
	}
}

func moves(ms []store.Move) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%v -> %v; ", m.From, m.To)
	}
	return b.String()
}

const descSpec = `[{{order,'$1','$2','$3'},[{is_integer,'$2'}],[{{order,'$1',#Desc<'$2'>,'$3'}}]}]`

// TestMigrateOrders is the example: each order's timestamp
// becomes #Desc, values and an index on the order id kept; a dry run
// first says what will happen, and running the migration again after it
// finished changes nothing.
func TestMigrateOrders(t *testing.T) {
	ctx := context.Background()
	s := migrateStore(t)
	putTexts(t, s, "{order,1,100,7}=a", "{order,1,200,8}=b", "{order,2,150,9}=c", "{order,2,#Desc<50>,10}=d", "{other,1}=e")
	if err := s.CreateIndex(ctx, "by_id", mustTerm(t, "{order,'_','_','$1'}"), nil); err != nil {
		t.Fatal(err)
	}
	spec := matchspec.MustParse(descSpec)
	dry, err := s.Migrate(ctx, spec, store.MigrateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Migrated != 3 || dry.Conflicts != 0 || dry.Matched != 3 || !dry.Done || dry.Token != "" {
		t.Fatalf("dry run: %+v", dry)
	}
	if got := moves(dry.Moves); got != "{order,1,100,7} -> {order,1,#Desc<100>,7}; {order,1,200,8} -> {order,1,#Desc<200>,8}; {order,2,150,9} -> {order,2,#Desc<150>,9}; " {
		t.Fatalf("dry run samples: %s", got)
	}
	wantContents(t, s, "{order,1,100,7}=a", "{order,1,200,8}=b", "{order,2,150,9}=c", "{order,2,#Desc<50>,10}=d", "{other,1}=e")

	res, err := s.Migrate(ctx, spec, store.MigrateOptions{Step: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Migrated != 3 || res.Conflicts != 0 || !res.Done || res.Token != "" {
		t.Fatalf("migration: %+v", res)
	}
	after := []string{"{order,1,#Desc<100>,7}=a", "{order,1,#Desc<200>,8}=b", "{order,2,#Desc<150>,9}=c", "{order,2,#Desc<50>,10}=d", "{other,1}=e"}
	wantContents(t, s, after...)
	indexClean(t, s)
	for id, want := range map[int64]string{7: "{order,1,#Desc<100>,7}", 10: "{order,2,#Desc<50>,10}"} {
		var got []string
		for e, err := range s.IndexScan(ctx, "by_id", term.Int(id), store.IndexScanOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, e.Key.String())
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("index by_id %d: %q, want %s", id, got, want)
		}
	}

	again, err := s.Migrate(ctx, spec, store.MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Migrated != 0 || again.Conflicts != 0 || !again.Done {
		t.Fatalf("second run: %+v", again)
	}
	wantContents(t, s, after...)
}

// TestMigrateAheadOfScan: new keys that sort after their old ones, in the
// range still to scan and matched by the same head, are met again and
// left, whatever the step size: every key moves once.
func TestMigrateAheadOfScan(t *testing.T) {
	ctx := context.Background()
	// {k,A,B} -> {k,A,{B}}: a tuple sorts after every integer, so each
	// new key lies ahead of the cursor, and the head matches it.
	spec := matchspec.MustParse(`[{{k,'$1','$2'},[],[{{k,'$1',{{'$2'}}}}]}]`)
	for _, step := range []int{1, 2, 3, 7, 1000} {
		t.Run(fmt.Sprint("step=", step), func(t *testing.T) {
			s := migrateStore(t)
			var before, after []string
			for a := range 4 {
				for b := range 5 {
					before = append(before, fmt.Sprintf("{k,%d,%d}=v%d%d", a, b, a, b))
					after = append(after, fmt.Sprintf("{k,%d,{%d}}=v%d%d", a, b, a, b))
				}
			}
			putTexts(t, s, before...)
			res, err := s.Migrate(ctx, spec, store.MigrateOptions{Step: step})
			if err != nil {
				t.Fatal(err)
			}
			// A step's cursor does not see the step's own writes; the
			// next steps' cursors do, and leave the new keys ahead.
			if res.Migrated != 20 || res.Conflicts != 0 || step < 20 && res.Settled == 0 || step == 1 && res.Settled != 20 {
				t.Fatalf("%+v: want 20 migrated, and the new keys ahead met and left", res)
			}
			wantContents(t, s, after...)
		})
	}
}

// TestMigrateConflicts: a key whose new key exists is left and reported,
// the existing key keeps its value; two keys with one new key are one
// move and one conflict; a key the body maps to itself is left. Running
// it again finds the same conflicts and changes nothing.
func TestMigrateConflicts(t *testing.T) {
	ctx := context.Background()
	s := migrateStore(t)
	putTexts(t, s, "{u,1,a}=1", "{u,1,b}=2", "{u,2,a}=3", "{u,3,x}=4", "{u,4,y}=5", "{u,4,x}=6")
	// {u,N,_} -> {u,N,x}: {u,1,a} moves, {u,1,b} then conflicts with
	// it; {u,3,x} is its own new key; {u,4,y} meets the existing {u,4,x}.
	spec := matchspec.MustParse(`[{{u,'$1','_'},[],[{{u,'$1',x}}]}]`)
	want := "{u,1,b} -> {u,1,x}; {u,4,y} -> {u,4,x}; "
	dry, err := s.Migrate(ctx, spec, store.MigrateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Migrated != 2 || dry.Conflicts != 2 || dry.Settled != 2 || moves(dry.Conflicting) != want {
		t.Fatalf("dry run: %+v (conflicts %s)", dry, moves(dry.Conflicting))
	}
	for run := range 2 {
		res, err := s.Migrate(ctx, spec, store.MigrateOptions{Step: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Conflicts != 2 || moves(res.Conflicting) != want || res.Migrated != int64(2*(1-run)) {
			t.Fatalf("run %d: %+v (conflicts %s)", run, res, moves(res.Conflicting))
		}
		wantContents(t, s, "{u,1,x}=1", "{u,1,b}=2", "{u,2,x}=3", "{u,3,x}=4", "{u,4,y}=5", "{u,4,x}=6")
	}
}

// TestMigrateRefusesIndistinct: a specification whose new keys could not
// be told from its old ones is refused before anything is read.
func TestMigrateRefusesIndistinct(t *testing.T) {
	s := migrateStore(t)
	for _, c := range []struct {
		spec string
		ok   bool
	}{
		{`[{{k,'$1','$2'},[],[{{k,'$2','$1'}}]}]`, false},                          // a swap
		{`[{{k,'$1','$2'},[],['$_']}]`, false},                                     // every key to itself
		{`[{{k,'$1','$2'},[],[{{k,'$1',{abs,'$2'}}}]}]`, false},                    // a computed element
		{`[{{k,a,'$1'},[],[{{k,a,{const,b}}}]}]`, true},                            // {k,a,b} has the shape, {k,a,c} not
		{`[{{k,'$1',b},[],[{{k,'$1',b}}]}]`, false},                                // only keys already of the shape
		{`[{{k,'$1'},[],[{{k,'$1',new}}]},{{k,'$1',new},[],[{{k,'$1'}}]}]`, false}, // each clause undoes the other
		{descSpec, true},
		{`[{{k,'$1','$2'},[],[{{k2,'$1','$2'}}]}]`, true},
		{`[{{k,'$1','$2'},[],[['$1'|'$2']]}]`, true},
		{`[{[a|'$1'],[],[[b|'$1']]}]`, true},
		{`[{[a|'$1'],[],[['_x'|'$1']]}]`, true},
		{`[{{k,'$1'},[],[#{a => '$1'}]}]`, true},
		{`[{#{a => '$1'},[],[#{a => '$1'}]}]`, true}, // a map pattern matches maps with more keys
	} {
		_, err := s.Migrate(context.Background(), matchspec.MustParse(c.spec), store.MigrateOptions{DryRun: true})
		if c.ok != (err == nil) || err != nil && !errors.Is(err, store.ErrMigrateSpec) {
			t.Errorf("%s: %v", c.spec, err)
		}
	}
}

// TestMigrateTokens: a migration stopped after each step resumes from
// its token, in another Store on the same data, to the same end as one
// run; tokens tampered with, cut, of another specification, of a dry
// run or of another kind of read are refused with typed errors.
func TestMigrateTokens(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *store.Store {
		kv, err := pebblekv.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return store.New(storetest.Checked(t, kv), nil)
	}
	s := open()
	var kvs []string
	for i := range 50 {
		kvs = append(kvs, fmt.Sprintf("{order,%d,%d,%d}=v%d", i%7, 1000+i, i, i))
	}
	putTexts(t, s, kvs...)
	spec := matchspec.MustParse(descSpec)
	first, err := s.Migrate(ctx, spec, store.MigrateOptions{Step: 4, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if first.Done || first.Token == "" || first.Migrated != 4 {
		t.Fatalf("one step: %+v", first)
	}
	dryTok, err := s.Migrate(ctx, spec, store.MigrateOptions{DryRun: true, Step: 4, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	sel := ""
	for row, err := range s.Select(ctx, spec, store.SelectOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		sel = row.Continuation()
	}
	tok := first.Token
	flip := []byte(tok)
	flip[len(flip)/2] ^= 1
	for _, c := range []struct {
		name, tok string
		spec      *matchspec.Spec
		dry       bool
		want      error
	}{
		{"tampered", string(flip), spec, false, store.ErrToken},
		{"cut", tok[:len(tok)-2], spec, false, store.ErrToken},
		{"no prefix", tok[3:], spec, false, store.ErrToken},
		{"empty body", "m1.", spec, false, store.ErrToken},
		{"another spec", tok, matchspec.MustParse(`[{{order,'$1','$2','$3'},[],[{{order2,'$1','$2','$3'}}]}]`), false, store.ErrTokenMismatch},
		{"a dry run's", dryTok.Token, spec, false, store.ErrTokenMismatch},
		{"a migration's, to a dry run", tok, spec, true, store.ErrTokenMismatch},
		{"a select's", sel, spec, false, store.ErrTokenMismatch},
	} {
		res, err := s.Migrate(ctx, c.spec, store.MigrateOptions{After: c.tok, DryRun: c.dry})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if res.Steps != 0 || res.Read != 0 {
			t.Errorf("%s: read %+v", c.name, res)
		}
	}
	s.Close()
	total := first.Migrated
	for tok := first.Token; tok != ""; {
		s := open()
		res, err := s.Migrate(ctx, spec, store.MigrateOptions{Step: 4, Steps: 1, After: tok})
		if err != nil {
			t.Fatal(err)
		}
		total += res.Migrated
		tok = res.Token
		s.Close()
	}
	if total != 50 {
		t.Fatalf("migrated %d keys over the resumed steps, want 50", total)
	}
	s = open()
	defer s.Close()
	var want []string
	for i := range 50 {
		want = append(want, fmt.Sprintf("{order,%d,#Desc<%d>,%d}=v%d", i%7, 1000+i, i, i))
	}
	wantContents(t, s, want...)
}
