package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// Order is a record {order, ID, Customer, Cents, Status}: the first field
// after the record's name is the key.
type Order struct {
	_        sext.Record `sext:"order"`
	ID       int64
	Customer string
	Cents    int64
	Status   string `sext:",atom"`
}

// A table of Go structs: typed writes in one batch, a read by key, a
// query by example with a Go test, an index on a field and the exact
// count.
func ExampleTable() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		panic(err)
	}
	defer s.Close()

	orders, err := store.OpenTable[Order](ctx, s, "orders") // created from Order
	if err != nil {
		panic(err)
	}
	// One call, one atomic batch, one sync: write many values a call.
	err = orders.Write(ctx,
		&Order{ID: 1, Customer: "ann", Cents: 1250, Status: "open"},
		&Order{ID: 2, Customer: "bob", Cents: 40000, Status: "held"},
		&Order{ID: 3, Customer: "ann", Cents: 990, Status: "open"},
		&Order{ID: 4, Customer: "ann", Cents: 15000, Status: "open"})
	if err != nil {
		panic(err)
	}
	o, _ := orders.Read(ctx, 2)
	fmt.Println("order 2:", o.Customer, o.Cents)

	// Ann's orders over 10.00: the example fixes Customer, the Go test
	// the amount.
	q := orders.Where(&Order{Customer: "ann"}).And(func(o *Order) bool { return o.Cents > 1000 })
	for o, err := range orders.Find(ctx, q, store.SelectOptions{}) {
		if err != nil {
			panic(err)
		}
		fmt.Println("ann over 10.00:", o.ID, o.Cents)
	}

	// An index on Customer: the same query now reads its entries.
	if err := orders.CreateIndex(ctx, "Customer", false); err != nil {
		panic(err)
	}
	spec, _ := q.Spec()
	plan, _ := s.ExplainTable(ctx, "orders", spec)
	fmt.Println("reads:", plan.Why)

	// The same table, untyped, with an Erlang match specification.
	ms := matchspec.MustParse(`[{{order,'$1','_','$2',held},[],[{{'$1','$2'}}]}]`)
	for r, err := range s.SelectTable(ctx, "orders", ms, store.SelectOptions{}) {
		if err != nil {
			panic(err)
		}
		fmt.Println("held:", r.Result.Term)
	}
	n, _ := orders.Count(ctx)
	fmt.Println("count:", n)
	// Output:
	// order 2: bob 40000
	// ann over 10.00: 1 1250
	// ann over 10.00: 4 15000
	// reads: the index on Customer: the clause fixes Customer to <<"ann">> and the key does not narrow the read
	// held: {2,40000}
	// count: 4
}

// Tables of Erlang terms: a record table with a unique index, written in
// one atomic batch, read by key, described with its exact count.
func ExampleStore_CreateTable() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		panic(err)
	}
	defer s.Close()

	// {person, Name, Age, Email}, keyed by Name (key position 2).
	err = s.CreateTable(ctx, store.TableDef{Name: "person", Record: "person", Attributes: []string{"name", "age", "email"}})
	if err != nil {
		panic(err)
	}
	if err := s.CreateTableIndex(ctx, "person", "email", true, nil); err != nil {
		panic(err)
	}
	b := s.NewTableBatch()
	b.Write("person", term.MustParse(`{person, <<"ann">>, 31, <<"ann@x">>}`))
	b.Write("person", term.MustParse(`{person, <<"bob">>, 42, <<"bob@x">>}`))
	if err := s.ApplyTableBatch(ctx, b); err != nil {
		panic(err)
	}
	p, _ := s.ReadObject(ctx, "person", term.Binary([]byte("bob")))
	fmt.Println(p)

	err = s.WriteObject(ctx, "person", term.MustParse(`{person, <<"cy">>, 7, <<"ann@x">>}`))
	fmt.Println(errors.Is(err, store.ErrUnique))
	err = s.WriteObject(ctx, "person", term.MustParse(`{person, <<"cy">>, 7}`))
	fmt.Println(errors.Is(err, store.ErrObject))

	info, _ := s.DescribeTable(ctx, "person")
	fmt.Println(info.Count, info.Indexes[0].Attr, info.Indexes[0].Unique)
	// Output:
	// {person,<<"bob">>,42,<<"bob@x">>}
	// true
	// true
	// 2 email true
}
