package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/term"
)

type tbPerson struct {
	_     sext.Record `sext:"person"`
	Name  string
	Age   int
	Email string `sext:"email"`
}

func tbTyped(t *testing.T) (*store.Store, *store.Table[tbPerson]) {
	t.Helper()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	people, err := store.OpenTable[tbPerson](context.Background(), s, "people")
	if err != nil {
		t.Fatal(err)
	}
	return s, people
}

// TestTypedTable: values go in and come out as Go values; Where finds by
// example (zero fields open unless named), And adds a Go test, pages
// resume by token, and the untyped calls see the same records.
func TestTypedTable(t *testing.T) {
	ctx := context.Background()
	s, people := tbTyped(t)
	all := []*tbPerson{{Name: "ann", Age: 31, Email: "a@x"}, {Name: "bob", Age: 42, Email: "b@x"},
		{Name: "cy", Age: 0, Email: "c@x"}, {Name: "dee", Age: 42, Email: "d@x"}}
	if err := people.Write(ctx, all...); err != nil {
		t.Fatal(err)
	}
	if n, err := people.Count(ctx); n != 4 || err != nil {
		t.Fatalf("Count = %d, %v", n, err)
	}
	p, err := people.Read(ctx, "bob")
	if err != nil || *p != *all[1] {
		t.Fatalf("Read(bob) = %+v, %v", p, err)
	}
	obj, err := s.ReadObject(ctx, "people", term.Binary([]byte("bob")))
	if want := tbTerm(t, `{person,<<"bob">>,42,<<"b@x">>}`); err != nil || !term.Equal(obj, want) {
		t.Fatalf("ReadObject = %v, %v; want %v", obj, err, want)
	}
	info, err := s.DescribeTable(ctx, "people")
	if err != nil || !slices.Equal(info.Attributes, []string{"Name", "Age", "email"}) || info.Record != "person" {
		t.Fatalf("DescribeTable = %+v, %v", info, err)
	}
	find := func(q store.Query[tbPerson], opts store.SelectOptions) []string {
		t.Helper()
		var names []string
		for p, err := range people.Find(ctx, q, opts) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, p.Name)
		}
		return names
	}
	for _, c := range []struct {
		name string
		q    store.Query[tbPerson]
		opts store.SelectOptions
		want []string
	}{
		{"non-zero fields", people.Where(&tbPerson{Age: 42}), store.SelectOptions{}, []string{"bob", "dee"}},
		{"a zero value named", people.Where(&tbPerson{}, "Age"), store.SelectOptions{}, []string{"cy"}},
		{"by attribute name", people.Where(&tbPerson{Email: "d@x"}, "email"), store.SelectOptions{}, []string{"dee"}},
		{"all, reverse", people.Where(nil), store.SelectOptions{Reverse: true}, []string{"dee", "cy", "bob", "ann"}},
		{"a Go test", people.Where(nil).And(func(p *tbPerson) bool { return p.Age > 30 }), store.SelectOptions{Limit: 2}, []string{"ann", "bob"}},
	} {
		if got := find(c.q, c.opts); !slices.Equal(got, c.want) {
			t.Errorf("%s: found %v, want %v", c.name, got, c.want)
		}
	}
	// Pages of one, with a Go test between: every value once.
	q := people.Where(nil).And(func(p *tbPerson) bool { return p.Age != 31 })
	var got []string
	after := ""
	for range 10 {
		page, next, err := people.Page(ctx, q, store.SelectOptions{Limit: 1, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page {
			got = append(got, p.Name)
		}
		if next == "" {
			break
		}
		after = next
	}
	if !slices.Equal(got, []string{"bob", "cy", "dee"}) {
		t.Errorf("pages gave %v", got)
	}
	// An index on a field, by its Go name, and a query that uses it.
	if err := people.CreateIndex(ctx, "Email", true); err != nil {
		t.Fatal(err)
	}
	spec, _ := people.Where(&tbPerson{Email: "b@x"}).Spec()
	if plan, err := s.ExplainTable(ctx, "people", spec); err != nil || plan.Index != "email" || !plan.Unique {
		t.Errorf("ExplainTable of Where(Email) = %+v, %v", plan, err)
	}
	if err := people.Write(ctx, &tbPerson{Name: "eve", Email: "a@x"}); !errors.Is(err, store.ErrUnique) {
		t.Errorf("a second a@x: %v", err)
	}
	if err := people.Delete(ctx, "ann", "bob"); err != nil {
		t.Fatal(err)
	}
	if got := find(people.Where(nil), store.SelectOptions{}); !slices.Equal(got, []string{"cy", "dee"}) {
		t.Errorf("after deletes: %v", got)
	}
	if _, err := people.Read(ctx, "ann"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Read of a deleted key: %v", err)
	}
	// A spec that cannot match, and Select's objects.
	for _, err := range people.Select(ctx, matchspec.MustParse(`[{{'$1','$2'},[],['$1']}]`), store.SelectOptions{}) {
		if !errors.Is(err, store.ErrTableSpec) {
			t.Errorf("Select with {Key, Value}: %v", err)
		}
	}
	for p, err := range people.Select(ctx, matchspec.MustParse(`[{{person,'_','$1','_'},[{'>','$1',40}],['$1']}]`), store.SelectOptions{}) {
		if err != nil || p.Name != "dee" {
			t.Errorf("Select = %+v, %v", p, err)
		}
	}
}

// TestTypedTableErrors: types that cannot be a table's records, a table
// of another shape, keys of the wrong type, unknown field names.
func TestTypedTableErrors(t *testing.T) {
	ctx := context.Background()
	s, people := tbTyped(t)
	type noRecord struct{ A, B int }
	type late struct {
		A int
		_ sext.Record `sext:"late"`
	}
	type descValue struct {
		_ sext.Record `sext:"d"`
		K int
		V time.Time `sext:",desc"`
	}
	type asMap struct {
		_ sext.Record `sext:",map"`
		K int
	}
	for name, err := range map[string]error{
		"no record":     func() error { _, err := store.OpenTable[noRecord](ctx, s, "x"); return err }(),
		"record late":   func() error { _, err := store.OpenTable[late](ctx, s, "x"); return err }(),
		"desc value":    func() error { _, err := store.OpenTable[descValue](ctx, s, "x"); return err }(),
		"map form":      func() error { _, err := store.OpenTable[asMap](ctx, s, "x"); return err }(),
		"another shape": func() error { _, err := store.OpenTable[descValue](ctx, s, "people"); return err }(),
		"not a struct":  func() error { _, err := store.OpenTable[int](ctx, s, "x"); return err }(),
		"unknown field": people.CreateIndex(ctx, "Nope", false),
		"key type":      func() error { _, err := people.Read(ctx, 7); return err }(),
		"nil value":     people.Write(ctx, nil),
		"unknown in Where": func() error {
			_, err := people.Where(&tbPerson{}, "Nope").Spec()
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !errors.Is(err, store.ErrTableDef) && !errors.Is(err, store.ErrObject) && !errors.Is(err, store.ErrTableSpec) {
			t.Errorf("%s: %v is not a table error", name, err)
		}
	}
	if list, _ := s.Tables(ctx); len(list) != 1 {
		t.Errorf("failed opens made tables: %+v", list)
	}
}

// tbErlPerson holds a field of each kind a record carries.
type tbErlPerson struct {
	_      sext.Record `sext:"person"`
	ID     int64
	Name   string
	Role   string `sext:",atom"`
	Nick   string `sext:",charlist"`
	Score  float64
	Active bool
	Tags   []string
	At     [2]int `sext:",tuple"`
	Born   time.Time
	Boss   *int64
	Attrs  map[string]int
	Raw    []byte
	Extra  term.Term
}

// TestTypedTableErlang: a value written from Go is, to Erlang's
// binary_to_term, the record Erlang expects with [] at the key position
// (the key being the store's), and a record Erlang encodes, stored
// under its key, reads back as the Go value it stands for.
func TestTypedTableErlang(t *testing.T) {
	ctx := context.Background()
	vm := erlvm.ForTest(t)
	kv, err := pebblekv.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := store.New(kv, nil)
	defer s.Close()
	people, err := store.OpenTable[tbErlPerson](ctx, s, "people")
	if err != nil {
		t.Fatal(err)
	}
	boss := int64(1)
	v := tbErlPerson{ID: 7, Name: "ann", Role: "admin", Nick: "annie", Score: 2.5, Active: true, Tags: []string{"a", "b"},
		At: [2]int{3, 4}, Born: time.Unix(1700000000, 5).UTC(), Boss: &boss, Attrs: map[string]int{"x": 1},
		Raw: []byte{1, 2}, Extra: term.Tuple(term.Atom("any"), term.List(term.Int(1)))}
	if err := people.Write(ctx, &v); err != nil {
		t.Fatal(err)
	}
	rowKey := func(key term.Term) []byte { // table 1's object: 00 54, 1, 02, sext(Key)
		k, err := sext.Encode(key)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte{0, 'T', 0, 0, 0, 1, 2}, k...)
	}
	stored, err := kv.Get(ctx, rowKey(term.Int(7)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := vm.Eval(ctx, `R = binary_to_term(V),
		Want = {person, 7, <<"ann">>, admin, "annie", 2.5, true, [<<"a">>, <<"b">>], {3, 4},
			1700000000000000005, 1, #{<<"x">> => 1}, <<1, 2>>, {any, [1]}},
		{element(2, R), setelement(2, R, 7) =:= Want}.`, map[string]term.Term{"V": term.Binary(stored)})
	if err != nil {
		t.Fatal(err)
	}
	if want := tbTerm(t, `{[], true}`); !term.Equal(got, want) {
		t.Fatalf("Erlang read the stored value as %v, want %v", got, want)
	}

	// Back: Erlang's bytes, stored as mnesia_rocksdb stores a record.
	bin, err := vm.Eval(ctx, `term_to_binary(setelement(2,
		{person, 8, <<"bob">>, user, "bobby", -1.0, false, [], {0, -9}, 0, undefined, #{}, <<>>, 'ok'}, [])).`, nil)
	if err != nil {
		t.Fatal(err)
	}
	wb := kv.NewBatch()
	wb.Set(rowKey(term.Int(8)), bin.Bytes())
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	wb.Close()
	back, err := people.Read(ctx, int64(8))
	if err != nil {
		t.Fatal(err)
	}
	want := tbErlPerson{ID: 8, Name: "bob", Role: "user", Nick: "bobby", Score: -1, At: [2]int{0, -9},
		Born: time.Unix(0, 0).UTC(), Extra: term.Atom("ok")}
	if diff := cmp.Diff(&want, back, cmp.Comparer(term.Equal)); diff != "" {
		t.Errorf("Erlang's record read back (-want +got):\n%s", diff)
	}
	first, err := people.Read(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&v, first, cmp.Comparer(term.Equal)); diff != "" {
		t.Errorf("the Go value read back (-want +got):\n%s", diff)
	}
}
