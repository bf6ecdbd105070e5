package store

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// Table is a table of Go values of the struct type T, which marshals as
// an Erlang record (sext.Marshal): a sext.Record field, declared first,
// gives the record's name, and the exported fields after it are the
// record's attributes in declaration order, the first of them the key.
//
//	type Person struct {
//		_     sext.Record `sext:"person"` // {person, Name, Age, Email}
//		Name  string                      // the key
//		Age   int
//		Email string `sext:"email"`       // attribute email (the tag's name)
//	}
//
//	people, err := store.OpenTable[Person](ctx, s, "people")
//	err = people.Write(ctx, &Person{Name: "ann", Age: 31}, &Person{Name: "bob", Age: 42})
//	p, err := people.Read(ctx, "ann")                      // *Person
//	for p, err := range people.Find(ctx, people.Where(&Person{Age: 42}), store.SelectOptions{}) { ... }
//
// Each object is stored as the term sext.MarshalTerm makes of it, so
// Erlang reads it with binary_to_term as the record #person{} (with []
// at the key position, the key being the store's key: see the store's
// design notes), and an object Erlang writes so reads back into T as
// sext.UnmarshalTerm reads it. A tag's name, if given, names the
// attribute; else its Go name does. Queries name fields by either.
//
// A Table is a view of the store's table: every call goes to the store,
// and the untyped calls (SelectTable, DescribeTable, ...) see the same
// objects. It is safe for concurrent use.
type Table[T any] struct {
	s      *Store
	name   string
	record string
	fields []typedField // the attributes, by position from 2
}

type typedField struct {
	goName, attr string
	index        int // in the struct
}

// typedShape reads T's record shape: its record name and attributes.
func typedShape[T any]() (string, []typedField, error) {
	rt := reflect.TypeFor[T]()
	bad := func(why string) (string, []typedField, error) {
		return "", nil, fmt.Errorf("%w: %v %s", ErrTableDef, rt, why)
	}
	if rt.Kind() != reflect.Struct {
		return bad("is not a struct")
	}
	record := ""
	var fields []typedField
	for i := range rt.NumField() {
		sf := rt.Field(i)
		tag := sf.Tag.Get("sext")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-":
			continue
		case sf.Type == reflect.TypeFor[sext.Record]():
			if strings.Contains(","+opts+",", ",map,") {
				return bad("marshals as a map, not a record")
			}
			if len(fields) > 0 {
				return bad("declares its sext.Record field after a field: the record's name comes first")
			}
			record = name
			continue
		case !sf.IsExported():
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if len(fields) > 0 && strings.Contains(","+opts+",", ",desc,") {
			return bad(fmt.Sprintf("field %s is desc: only the key (the first field) is stored as a key, the others as term_to_binary writes them, which has no descending terms", sf.Name))
		}
		fields = append(fields, typedField{goName: sf.Name, attr: name, index: i})
	}
	switch {
	case record == "":
		return bad(`has no sext.Record field naming its record, as in _ sext.Record "sext:\"person\""`)
	case len(fields) == 0:
		return bad("has no exported field to be its key")
	}
	// The struct's own marshalling is the truth: it must agree.
	var zero T
	t, err := sext.MarshalTerm(&zero)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v: %w", ErrTableDef, rt, err)
	}
	if t.Kind() != term.KindTuple || t.Len() != 1+len(fields) || !term.Equal(t.Elems()[0], term.Atom(record)) {
		return bad(fmt.Sprintf("marshals as %v, not a %s record of %d attributes", t, record, len(fields)))
	}
	return record, fields, nil
}

// TableDefOf returns the definition of a table named name for the
// values of T: T's record name, its attributes, the key position 2.
func TableDefOf[T any](name string) (TableDef, error) {
	record, fields, err := typedShape[T]()
	if err != nil {
		return TableDef{}, err
	}
	def := TableDef{Name: name, Record: record, KeyPos: 2}
	for _, f := range fields {
		def.Attributes = append(def.Attributes, f.attr)
	}
	return checkDef(def)
}

// OpenTable returns the table name of s as a Table of T, creating it
// from T (TableDefOf) if there is none. A table that exists must hold
// T's records: the same record name and number of attributes, the key at
// position 2; otherwise the error wraps ErrTableDef. Its attributes'
// names need not be T's (a table Erlang created names them its own way):
// fields go by position.
func OpenTable[T any](ctx context.Context, s *Store, name string) (*Table[T], error) {
	def, err := TableDefOf[T](name)
	if err != nil {
		return nil, err
	}
	_, fields, _ := typedShape[T]()
	t := &Table[T]{s: s, name: name, record: def.Record, fields: fields}
	err = s.CreateTable(ctx, def)
	if !errors.Is(err, ErrTableExists) {
		return t, err
	}
	info, err := s.DescribeTable(ctx, name)
	if err != nil {
		return nil, err
	}
	if info.Record != def.Record || len(info.Attributes) != len(def.Attributes) || info.KeyPos != 2 {
		return nil, fmt.Errorf("%w: table %q holds %s records of %d attributes keyed at %d; %v is a %s record of %d attributes keyed at 2",
			ErrTableDef, name, info.Record, len(info.Attributes), info.KeyPos, reflect.TypeFor[T](), def.Record, len(def.Attributes))
	}
	return t, nil
}

// Name returns the table's name.
func (t *Table[T]) Name() string { return t.name }

// object converts a value to its term.
func (t *Table[T]) object(v *T) (term.Term, error) {
	if v == nil {
		return term.Term{}, fmt.Errorf("%w: table %q: a nil %v", ErrObject, t.name, reflect.TypeFor[T]())
	}
	return sext.MarshalTerm(v)
}

// Write stores the values, replacing those with the same keys, in one
// atomic batch with their index entries and the count. Each call is one
// commit, which with the store's default options waits for the disk:
// write many values a call, not one call a value.
func (t *Table[T]) Write(ctx context.Context, values ...*T) error {
	b := t.s.NewTableBatch()
	for _, v := range values {
		o, err := t.object(v)
		if err != nil {
			return err
		}
		b.Write(t.name, o)
	}
	return t.s.ApplyTableBatch(ctx, b)
}

// key converts a key given as a Go value to its term: the value is put
// in the key field of a T and marshalled with it, so that the field's
// tag options apply. It must be of the key field's type, or an integer
// that fits an integer key field.
func (t *Table[T]) key(k any) (term.Term, error) {
	var probe T
	f := reflect.ValueOf(&probe).Elem().Field(t.fields[0].index)
	v := reflect.ValueOf(k)
	bad := func() (term.Term, error) {
		return term.Term{}, &ObjectError{Table: t.name, Detail: fmt.Sprintf("a key of type %T, where %s is %v", k, t.fields[0].goName, f.Type())}
	}
	switch {
	case !v.IsValid():
		return bad()
	case v.Type().AssignableTo(f.Type()):
		f.Set(v)
	case v.CanInt() && f.CanInt():
		if f.OverflowInt(v.Int()) {
			return bad()
		}
		f.SetInt(v.Int())
	case v.CanInt() && f.CanUint():
		if v.Int() < 0 || f.OverflowUint(uint64(v.Int())) {
			return bad()
		}
		f.SetUint(uint64(v.Int()))
	case v.CanUint() && f.CanUint():
		if f.OverflowUint(v.Uint()) {
			return bad()
		}
		f.SetUint(v.Uint())
	default:
		return bad()
	}
	o, err := sext.MarshalTerm(&probe)
	if err != nil {
		return term.Term{}, err
	}
	return o.Elems()[1], nil
}

// value converts an object read back to a T.
func (t *Table[T]) value(obj term.Term) (*T, error) {
	v := new(T)
	if err := sext.UnmarshalTerm(obj, v); err != nil {
		return nil, fmt.Errorf("store: table %q: %v does not read into %v: %w", t.name, obj, reflect.TypeFor[T](), err)
	}
	return v, nil
}

// Read returns the value with key (of the key field's type), or an
// error wrapping ErrNotFound.
func (t *Table[T]) Read(ctx context.Context, key any) (*T, error) {
	k, err := t.key(key)
	if err != nil {
		return nil, err
	}
	obj, err := t.s.ReadObject(ctx, t.name, k)
	if err != nil {
		return nil, err
	}
	return t.value(obj)
}

// Delete removes the values with the keys, in one atomic batch.
func (t *Table[T]) Delete(ctx context.Context, keys ...any) error {
	b := t.s.NewTableBatch()
	for _, k := range keys {
		kt, err := t.key(k)
		if err != nil {
			return err
		}
		b.Delete(t.name, kt)
	}
	return t.s.ApplyTableBatch(ctx, b)
}

// Count returns the number of values in the table, exactly, in constant
// time.
func (t *Table[T]) Count(ctx context.Context) (int64, error) { return t.s.TableCount(ctx, t.name) }

// field returns the position of the field named by its Go name or its
// attribute's name.
func (t *Table[T]) field(name string) (int, bool) {
	for i, f := range t.fields {
		if f.goName == name || f.attr == name {
			return i + 2, true
		}
	}
	return 0, false
}

// CreateIndex indexes the table by a field, named by its Go name or its
// attribute's name, unique or not (see Store.CreateTableIndex).
func (t *Table[T]) CreateIndex(ctx context.Context, field string, unique bool) error {
	pos, ok := t.field(field)
	if !ok {
		return fmt.Errorf("%w: %v has no field %q", ErrTableDef, reflect.TypeFor[T](), field)
	}
	info, err := t.s.DescribeTable(ctx, t.name)
	if err != nil {
		return err
	}
	return t.s.CreateTableIndex(ctx, t.name, info.attrName(pos), unique, nil)
}

// attrName names the table's field at pos as the table does.
func (in TableInfo) attrName(pos int) string {
	d := tableDef{TableDef: in.TableDef}
	return d.attrName(pos)
}

// Query is what Find looks for: the values like an example, and
// optionally a Go test each must also pass. Make one with Table.Where.
type Query[T any] struct {
	spec *matchspec.Spec
	test func(*T) bool
	err  error
}

// Where returns a query for the values whose fields equal example's.
// With field names (Go names or attribute names), exactly those fields
// count, zero or not; without, the fields of example that are not their
// type's zero value count, so Where(&Person{Age: 42}) finds everyone aged
// 42 (the convention of gorm's Where with a struct: a zero value needs
// its field named). A query that fixes the key, or its leading part,
// reads only that part of the table, and one that fixes a field with a
// ready index may read the index (Store.ExplainTable says which; Spec
// gives the specification to ask it about).
func (t *Table[T]) Where(example *T, fields ...string) Query[T] {
	q := Query[T]{}
	if example == nil {
		example = new(T)
	}
	obj, err := sext.MarshalTerm(example)
	if err != nil {
		q.err = err
		return q
	}
	fixed := make([]bool, len(t.fields))
	for _, name := range fields {
		pos, ok := t.field(name)
		if !ok {
			q.err = fmt.Errorf("%w: %v has no field %q", ErrTableSpec, reflect.TypeFor[T](), name)
			return q
		}
		fixed[pos-2] = true
	}
	if len(fields) == 0 {
		ev := reflect.ValueOf(example).Elem()
		for i, f := range t.fields {
			fixed[i] = !ev.Field(f.index).IsZero()
		}
	}
	head := []term.Term{term.Atom(t.record)}
	var guards []term.Term
	for i, el := range obj.Elems()[1:] {
		switch {
		case !fixed[i]:
			head = append(head, wildcard)
		case groundTerm(el):
			head = append(head, el)
		default: // a value holding an atom that a head reads as a variable
			v := term.Atom(fmt.Sprintf("$%d", i+1))
			head = append(head, v)
			guards = append(guards, term.Tuple(term.Atom("=:="), v, term.Tuple(term.Atom("const"), el)))
		}
	}
	q.spec, q.err = matchspec.Compile(term.List(term.Tuple(term.Tuple(head...), term.List(guards...), term.List(term.Atom("$_")))))
	return q
}

// And returns q with a Go test that the values it finds must also pass;
// it runs on each value the specification matched.
func (q Query[T]) And(test func(*T) bool) Query[T] {
	if prev := q.test; prev != nil {
		q.test = func(v *T) bool { return prev(v) && test(v) }
	} else {
		q.test = test
	}
	return q
}

// Spec returns the match specification the query runs, for
// Store.ExplainTable.
func (q Query[T]) Spec() (*matchspec.Spec, error) { return q.spec, q.err }

// Find yields the values q finds, in key order (descending with
// opts.Reverse). opts.Limit counts values that pass q's test, and a
// token from Page resumes as opts.After.
func (t *Table[T]) Find(ctx context.Context, q Query[T], opts SelectOptions) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		stopped := false
		err := t.run(ctx, q, opts, func(v *T, _ string) bool {
			stopped = !yield(v, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

// Page returns up to opts.Limit values that q finds, from the token
// opts.After on, and the token of the next page: "" when this one is the
// last (a full page's token may yet lead to an empty one).
func (t *Table[T]) Page(ctx context.Context, q Query[T], opts SelectOptions) ([]*T, string, error) {
	var out []*T
	next := ""
	err := t.run(ctx, q, opts, func(v *T, tok string) bool {
		out, next = append(out, v), tok
		return true
	})
	if err != nil {
		return nil, "", err
	}
	if opts.Limit <= 0 || len(out) < opts.Limit {
		next = ""
	}
	return out, next, nil
}

// run runs q, handing each value with its row's token to f until f
// returns false or opts.Limit values have passed q's test.
func (t *Table[T]) run(ctx context.Context, q Query[T], opts SelectOptions, f func(*T, string) bool) error {
	if q.err != nil {
		return q.err
	}
	if q.spec == nil {
		return fmt.Errorf("%w: a Query made without Where", ErrTableSpec)
	}
	limit := opts.Limit
	if q.test != nil {
		opts.Limit = 0 // the test decides what counts
	}
	opts.KeysOnly = false
	n := 0
	for r, err := range t.s.SelectTable(ctx, t.name, q.spec, opts) {
		if err != nil {
			return err
		}
		v, err := t.value(r.Object)
		if err != nil {
			return err
		}
		if q.test != nil && !q.test(v) {
			continue
		}
		n++
		if !f(v, r.Continuation()) || limit > 0 && n >= limit {
			return nil
		}
	}
	return nil
}

// Select yields the values spec matches, in key order (descending with
// opts.Reverse): the objects, whatever the clauses' bodies make of them
// (Store.SelectTable yields those). A spec whose heads cannot match T's
// records is an error wrapping ErrTableSpec.
func (t *Table[T]) Select(ctx context.Context, spec *matchspec.Spec, opts SelectOptions) iter.Seq2[*T, error] {
	return t.Find(ctx, Query[T]{spec: spec}, opts)
}
