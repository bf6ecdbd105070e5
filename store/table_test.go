package store_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/term"
)

func tbTerm(t testing.TB, text string) term.Term {
	t.Helper()
	x, err := term.Parse(text)
	if err != nil {
		t.Fatalf("Parse(%s): %v", text, err)
	}
	return x
}

// tbOpen opens a checked Pebble store with the table person
// {person, name, age, email}.
func tbOpen(t *testing.T) *store.Store {
	t.Helper()
	s, err := openChecked(t, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CreateTable(context.Background(), store.TableDef{Name: "person", Record: "person", Attributes: []string{"name", "age", "email"}}); err != nil {
		t.Fatal(err)
	}
	return s
}

func tbSelect(t *testing.T, s *store.Store, table, spec string, opts store.SelectOptions) []term.Term {
	t.Helper()
	var out []term.Term
	for r, err := range s.SelectTable(context.Background(), table, matchspec.MustParse(spec), opts) {
		if err != nil {
			t.Fatalf("SelectTable %s: %v", spec, err)
		}
		out = append(out, r.Result.Term)
	}
	return out
}

// TestTableWriteReadDelete: objects go in whole and come back whole, the
// count follows inserts, overwrites and deletes, and the definition is
// listed and described.
func TestTableWriteReadDelete(t *testing.T) {
	ctx := context.Background()
	s := tbOpen(t)
	for _, o := range []string{
		`{person, <<"ann">>, 31, <<"ann@x">>}`,
		`{person, <<"bob">>, 42, <<"bob@x">>}`,
		`{person, <<"ann">>, 32, <<"ann@y">>}`, // overwrite: the count stays
	} {
		if err := s.WriteObject(ctx, "person", tbTerm(t, o)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ReadObject(ctx, "person", tbTerm(t, `<<"ann">>`))
	if err != nil || !term.Equal(got, tbTerm(t, `{person, <<"ann">>, 32, <<"ann@y">>}`)) {
		t.Fatalf("ReadObject = %v, %v", got, err)
	}
	info, err := s.DescribeTable(ctx, "person")
	if err != nil || info.Count != 2 || info.KeyPos != 2 || info.Record != "person" {
		t.Fatalf("DescribeTable = %+v, %v", info, err)
	}
	if err := s.DeleteObject(ctx, "person", tbTerm(t, `<<"bob">>`)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteObject(ctx, "person", tbTerm(t, `<<"nobody">>`)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.TableCount(ctx, "person"); err != nil || n != 1 {
		t.Fatalf("TableCount = %d, %v; want 1", n, err)
	}
	if _, err := s.ReadObject(ctx, "person", tbTerm(t, `<<"bob">>`)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReadObject of a deleted key: %v", err)
	}
	list, err := s.Tables(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "person" || !slices.Equal(list[0].Attributes, []string{"name", "age", "email"}) {
		t.Fatalf("Tables = %+v, %v", list, err)
	}
}

// TestTableBadInput: an object of the wrong record name or arity, a spec
// whose head is not a record of the table, a unique-index conflict and a
// token from another table's select are each a typed error, and nothing
// of their batch is written.
func TestTableBadInput(t *testing.T) {
	ctx := context.Background()
	s := tbOpen(t)
	if err := s.CreateTableIndex(ctx, "person", "email", true, nil); err != nil {
		t.Fatal(err)
	}
	good := tbTerm(t, `{person, <<"ann">>, 31, <<"ann@x">>}`)
	for _, c := range []struct {
		name   string
		objs   []string
		target error
	}{
		{"arity", []string{`{person, <<"cy">>, 1, <<"cy@x">>}`, `{person, <<"dee">>, 31}`}, store.ErrObject},
		{"record", []string{`{person, <<"cy">>, 1, <<"cy@x">>}`, `{user, <<"dee">>, 31, <<"d@x">>}`}, store.ErrObject},
		{"not a tuple", []string{`[person, <<"dee">>, 31, <<"d@x">>]`}, store.ErrObject},
		{"unique", []string{`{person, <<"cy">>, 1, <<"cy@x">>}`, `{person, <<"dee">>, 2, <<"ann@x">>}`}, store.ErrUnique},
		{"unique in the batch", []string{`{person, <<"cy">>, 1, <<"same@x">>}`, `{person, <<"dee">>, 2, <<"same@x">>}`}, store.ErrUnique},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := s.WriteObject(ctx, "person", good); err != nil {
				t.Fatal(err)
			}
			b := s.NewTableBatch()
			for _, o := range c.objs {
				b.Write("person", tbTerm(t, o))
			}
			err := s.ApplyTableBatch(ctx, b)
			if !errors.Is(err, c.target) {
				t.Fatalf("ApplyTableBatch = %v, want %v", err, c.target)
			}
			var oe *store.ObjectError
			var ue *store.UniqueError
			if c.target == store.ErrObject && !errors.As(err, &oe) || c.target == store.ErrUnique && !errors.As(err, &ue) {
				t.Fatalf("%v (%T) is not the typed error", err, err)
			}
			if n, _ := s.TableCount(ctx, "person"); n != 1 {
				t.Fatalf("count %d after a refused batch, want 1", n)
			}
			if _, err := s.ReadObject(ctx, "person", tbTerm(t, `<<"cy">>`)); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the refused batch's first object was written: %v", err)
			}
		})
	}
	r, err := s.CheckTables(ctx, store.TableCheckOptions{})
	if err != nil || !r.Clean() {
		t.Fatalf("CheckTables after refused batches: %+v, %v", r, err)
	}
	for _, spec := range []string{
		`[{{person,'_','_'},[],['$_']}]`,                    // arity
		`[{{user,'_','_','_'},[],['$_']}]`,                  // record
		`[{{'$1','$2'},[],['$_']}]`,                         // the ets habit {Key, Value}
		`[{'_',[],['$_']},{[a],[],['$_']}]`,                 // a clause that is not a tuple
		`[{{person,'$1','_','_'},[],['$1']},{{x},[],[ok]}]`, // one bad clause of two
	} {
		if _, err := s.ExplainTable(ctx, "person", matchspec.MustParse(spec)); !errors.Is(err, store.ErrTableSpec) {
			t.Errorf("ExplainTable %s: %v, want ErrTableSpec", spec, err)
		}
		for _, err := range s.SelectTable(ctx, "person", matchspec.MustParse(spec), store.SelectOptions{}) {
			if !errors.Is(err, store.ErrTableSpec) {
				t.Errorf("SelectTable %s: %v, want ErrTableSpec", spec, err)
			}
		}
	}
	// A token of another table's select, of the same spec.
	if err := s.CreateTable(ctx, store.TableDef{Name: "staff", Record: "person", Attributes: []string{"name", "age", "email"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteObject(ctx, "staff", good); err != nil {
		t.Fatal(err)
	}
	spec := matchspec.MustParse(`[{'_',[],['$_']}]`)
	var tok string
	for r, err := range s.SelectTable(ctx, "staff", spec, store.SelectOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		tok = r.Continuation()
	}
	for _, c := range []struct {
		table, tok string
		target     error
	}{{"person", tok, store.ErrTokenMismatch}, {"person", "t1.garbage", store.ErrToken}, {"staff", tok, nil}} {
		for _, err := range s.SelectTable(ctx, c.table, spec, store.SelectOptions{After: c.tok}) {
			if !errors.Is(err, c.target) || c.target == nil && err != nil {
				t.Errorf("SelectTable %s after %q: %v, want %v", c.table, c.tok, err, c.target)
			}
		}
	}
}

// TestTableSelectNarrows: a select whose head fixes the key's first
// element reads only that element's objects, and one that fixes an
// indexed field reads the index's entries of the value and their objects.
func TestTableSelectNarrows(t *testing.T) {
	ctx := context.Background()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateTable(ctx, store.TableDef{Name: "orders", Record: "order", Attributes: []string{"id", "amount", "status"}}); err != nil {
		t.Fatal(err)
	}
	b := s.NewTableBatch()
	for c := range 20 {
		for n := range 50 {
			status := "open"
			if n == 7 {
				status = "held"
			}
			b.Write("orders", term.Tuple(term.Atom("order"), term.Tuple(term.Int(int64(c)), term.Int(int64(n))), term.Int(int64(100*n)), term.Atom(status)))
		}
	}
	if err := s.ApplyTableBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	count := func(spec string) (int, store.SelectStats) {
		var st store.SelectStats
		n := 0
		for _, err := range s.SelectTable(ctx, "orders", matchspec.MustParse(spec), store.SelectOptions{Stats: &st}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n, st
	}
	if n, st := count(`[{{order,{7,'_'},'$1','_'},[{'>','$1',1000}],['$_']}]`); n != 39 || st.KeysRead != 50 {
		t.Errorf("customer 7's orders over 1000: %d rows, %d keys read; want 39 and 50", n, st.KeysRead)
	}
	if n, st := count(`[{{order,'$1','_',held},[{'>=',{element,1,'$1'},18}],['$_']}]`); n != 2 || st.KeysRead != 1000 {
		t.Errorf("held orders without an index: %d rows, %d keys read; want 2 and 1000", n, st.KeysRead)
	}
	if err := s.CreateTableIndex(ctx, "orders", "status", false, nil); err != nil {
		t.Fatal(err)
	}
	if n, st := count(`[{{order,'$1','_',held},[{'>=',{element,1,'$1'},18}],['$_']}]`); n != 2 || st.KeysRead != 40 || st.Index != "status" {
		t.Errorf("held orders through the index: %d rows, %d keys read, index %q; want 2, 40 (20 entries and their objects), status", n, st.KeysRead, st.Index)
	}
	p, err := s.ExplainTable(ctx, "orders", matchspec.MustParse(`[{{order,'_','_','$9'},[{'=:=','$9',held}],['$_']}]`))
	if err != nil || p.Index != "status" || !term.Equal(p.Value, term.Atom("held")) || len(p.Ranges) != 1 {
		t.Errorf("ExplainTable with a guard =:= on the indexed field: %+v, %v", p, err)
	}
	p, err = s.ExplainTable(ctx, "orders", matchspec.MustParse(`[{{order,{3,'_'},'_',held},[],['$_']}]`))
	if err != nil || p.Index != "" || len(p.Ranges) != 1 {
		t.Errorf("ExplainTable where the key narrows: %+v, %v; want the table's range", p, err)
	}
	if r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{}); err != nil || !r.Clean() {
		t.Errorf("CheckIndexes beside tables: %+v, %v (the tables' keys are not the key indexes')", r, err)
	}
}

// TestDropTableResumes: a table left dropping (as a kill during
// DropTable leaves it) refuses writers and its name, and DropTable again
// or CheckTables with Fix removes everything it had.
func TestDropTableResumes(t *testing.T) {
	ctx := context.Background()
	for _, finish := range []string{"DropTable", "CheckTables"} {
		t.Run(finish, func(t *testing.T) {
			s := tbOpen(t)
			if err := s.CreateTableIndex(ctx, "person", "age", false, nil); err != nil {
				t.Fatal(err)
			}
			b := s.NewTableBatch()
			for i := range 30 {
				b.Write("person", term.Tuple(term.Atom("person"), term.Int(int64(i)), term.Int(int64(i%3)), term.Binary(nil)))
			}
			if err := s.ApplyTableBatch(ctx, b); err != nil {
				t.Fatal(err)
			}
			// Stop the drop after its first step of 10 keys.
			stop, cancel := context.WithCancel(ctx)
			err := s.DropTable(stop, "person", &store.BuildOptions{Step: 10, Progress: func(int64) { cancel() }})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("DropTable cut short: %v", err)
			}
			info, err := s.DescribeTable(ctx, "person")
			if err != nil || !info.Dropping {
				t.Fatalf("after the cut: %+v, %v; want it dropping", info, err)
			}
			if err := s.WriteObject(ctx, "person", term.Tuple(term.Atom("person"), term.Int(1), term.Int(1), term.Binary(nil))); !errors.Is(err, store.ErrNoTable) {
				t.Fatalf("a write to a table being dropped: %v", err)
			}
			if err := s.CreateTable(ctx, store.TableDef{Name: "person", Record: "person", Attributes: []string{"name"}}); !errors.Is(err, store.ErrTableExists) {
				t.Fatalf("CreateTable of a name being dropped: %v", err)
			}
			if finish == "DropTable" {
				err = s.DropTable(ctx, "person", nil)
			} else {
				var r store.TableCheckResult
				r, err = s.CheckTables(ctx, store.TableCheckOptions{Fix: true})
				if err == nil && (r.Unfinished != 1 || r.Fixed != 1) {
					t.Fatalf("CheckTables: %+v", r)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if list, err := s.Tables(ctx); err != nil || len(list) != 0 {
				t.Fatalf("Tables after the drop: %+v, %v", list, err)
			}
			// Nothing of it is left: a new table of that name is empty.
			if err := s.CreateTable(ctx, store.TableDef{Name: "person", Record: "person", Attributes: []string{"name", "age", "email"}}); err != nil {
				t.Fatal(err)
			}
			if rows := tbSelect(t, s, "person", `[{'_',[],['$_']}]`, store.SelectOptions{}); len(rows) != 0 {
				t.Fatalf("a table made again holds %v", rows)
			}
			if r, err := s.CheckTables(ctx, store.TableCheckOptions{}); err != nil || !r.Clean() {
				t.Fatalf("CheckTables: %+v, %v", r, err)
			}
		})
	}
}

// TestCheckTablesFix: damage done under a table (an entry deleted, a
// stale entry, a unique entry naming another key, a wrong count, an
// object that does not decode, a key of no index, a key of no table) is
// found, and Fix repairs what it can: then only the bad object and the
// foreign keys remain.
func TestCheckTablesFix(t *testing.T) {
	ctx := context.Background()
	kv, err := pebblekv.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(kv, nil)
	defer s.Close()
	personTable(t, s, 10)
	// The keys as the store lays them out: 00 54, the table's number (1,
	// the first made), a part, then the part's bytes.
	key := func(part byte, rest ...string) []byte {
		k := []byte{0, 'T', 0, 0, 0, 1, part}
		for _, r := range rest {
			if strings.HasPrefix(r, "pos ") {
				n, _ := strconv.Atoi(r[4:])
				k = append(k, byte(n>>8), byte(n))
				continue
			}
			k = append(k, sextBytes(t, r)...)
		}
		return k
	}
	wb := kv.NewBatch()
	wb.Delete(key(4, "pos 3", `1`, `4`))                    // 4's age entry: missing
	wb.Set(key(4, "pos 3", `2`, `4`), nil)                  // a stale one
	wb.Set(key(3, "pos 4", `<<"5@x">>`), sextBytes(t, `6`)) // names another key
	wb.Set(key(1), []byte{0, 0, 0, 0, 0, 0, 0, 99})         // wrong
	wb.Set(key(2, `100`), []byte("not etf"))                // a bad object
	wb.Set(key(9, `1`), nil)                                // no index's
	wb.Set([]byte{0, 'T', 0, 0, 0, 7, 2, 1}, nil)           // no table's
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	r, err := s.CheckTables(ctx, store.TableCheckOptions{})
	want := store.TableCheckResult{Tables: 1, Objects: 11, Entries: 21, Counts: 1, Missing: 2, Stale: 1, Bad: 1, Foreign: 2}
	if err != nil || r != want {
		t.Fatalf("CheckTables = %+v, %v\nwant %+v", r, err, want)
	}
	if r, err = s.CheckTables(ctx, store.TableCheckOptions{Fix: true}); err != nil || r.Fixed != 4 {
		t.Fatalf("CheckTables with Fix = %+v, %v; want 4 fixed", r, err)
	}
	r, err = s.CheckTables(ctx, store.TableCheckOptions{})
	want = store.TableCheckResult{Tables: 1, Objects: 11, Entries: 21, Bad: 1, Foreign: 2}
	if err != nil || r != want {
		t.Fatalf("CheckTables after Fix = %+v, %v\nwant %+v", r, err, want)
	}
	if n, _ := s.TableCount(ctx, "person"); n != 11 {
		t.Errorf("count after Fix %d, want 11 (the bad object counts: it is stored)", n)
	}
	if r, err := s.CheckIndexes(ctx, store.IndexCheckOptions{}); err != nil || !r.Clean() {
		t.Errorf("CheckIndexes: %+v, %v (the tables' prefix is CheckTables')", r, err)
	}
}

func sextBytes(t *testing.T, text string) []byte {
	b, err := sext.Encode(tbTerm(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSelectTableKeysOnly: with KeysOnly, clauses that the key decides
// (other fields '_', guards and body on the key's variables) run on the
// key alone, so an object whose value is damaged still gives its key;
// read whole, the same object is reported to OnBadKey and skipped.
func TestSelectTableKeysOnly(t *testing.T) {
	ctx := context.Background()
	kv, err := pebblekv.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(kv, nil)
	defer s.Close()
	if err := s.CreateTable(ctx, store.TableDef{Name: "t", Record: "r", Attributes: []string{"k", "v"}}); err != nil {
		t.Fatal(err)
	}
	b := s.NewTableBatch()
	for i := range 5 {
		b.Write("t", term.Tuple(term.Atom("r"), term.Int(int64(i)), term.Int(int64(10*i))))
	}
	if err := s.ApplyTableBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	wb := kv.NewBatch()
	wb.Set(append([]byte{0, 'T', 0, 0, 0, 1, 2}, sextBytes(t, `3`)...), []byte("damaged"))
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	for _, c := range []struct {
		spec     string
		keysOnly bool
		want     int
		bad      int
	}{
		{`[{{r,'$1','_'},[{'>','$1',1}],['$1']}]`, true, 3, 0},  // the key decides: 2, 3, 4
		{`[{{r,'$1','_'},[{'>','$1',1}],['$1']}]`, false, 2, 1}, // read whole: 3 is damaged
		{`[{{r,'$1','$2'},[{'>','$1',1}],['$1']}]`, true, 2, 1}, // '$2' needs the object
	} {
		var bad int
		n := 0
		for _, err := range s.SelectTable(ctx, "t", matchspec.MustParse(c.spec), store.SelectOptions{KeysOnly: c.keysOnly, OnBadKey: func([]byte, error) { bad++ }}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != c.want || bad != c.bad {
			t.Errorf("%s keys only %v: %d rows, %d bad; want %d, %d", c.spec, c.keysOnly, n, bad, c.want, c.bad)
		}
	}
}

// TestSelectTableBinaryPrefix: a binary prefix in a head narrows the
// key's range, and at an indexed field it is no value to look up: the
// select reads the table and matches the prefix.
func TestSelectTableBinaryPrefix(t *testing.T) {
	ctx := context.Background()
	s := tbOpen(t)
	if err := s.CreateTableIndex(ctx, "person", "email", false, nil); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{`{person, <<"alice">>, 1, <<"a@x">>}`, `{person, <<"alina">>, 2, <<"b@y">>}`, `{person, <<"bob">>, 3, <<"a@z">>}`} {
		if err := s.WriteObject(ctx, "person", tbTerm(t, o)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		spec, index string
		want        []string
	}{
		{`[{{person,<<"ali",_/binary>>,'_','_'},[],['$_']}]`, "", []string{`<<"alice">>`, `<<"alina">>`}},
		{`[{{person,'_','_',<<"a@",_/binary>>},[],['$_']}]`, "", []string{`<<"alice">>`, `<<"bob">>`}},
	} {
		var st store.SelectStats
		var got []string
		for r, err := range s.SelectTable(ctx, "person", matchspec.MustParse(c.spec), store.SelectOptions{Stats: &st}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.Key.String())
		}
		if !slices.Equal(got, c.want) || st.Index != c.index {
			t.Errorf("%s: %v through %q; want %v through %q", c.spec, got, st.Index, c.want, c.index)
		}
	}
}
