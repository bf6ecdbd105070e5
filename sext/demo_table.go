package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// The demo's table of records: the orders again, as whole objects
// {order, OrderId, Customer, Cents, Ref, Status} keyed by the order id,
// with a unique index on the external reference, an index on the status
// and the exact count.

// demoTableMax bounds the table's objects, so that the section takes a
// few seconds whatever --n is.
const demoTableMax = 200_000

var demoStatuses = []string{"open", "paid", "shipped", "returned"}

func demoRef(id int64) string { return fmt.Sprintf("R%07d", id*7919%10_000_019) }

// tables loads the table, indexes it and queries it.
func (d *demo) tables() error {
	w := d.out.out
	n := int64(min(d.n, demoTableMax))
	fmt.Fprintf(w, "\n11. a table of records: %s orders as whole objects {order, Id, Customer, Cents, Ref, Status}\n", commas(n))
	fmt.Fprintf(w, "   table create orders id customer cents ref status; indexes on ref (unique) and status\n")
	w.Flush()
	ctx := d.ctx
	def := store.TableDef{Name: "orders", Record: "order", Attributes: []string{"id", "customer", "cents", "ref", "status"}}
	if err := d.s.CreateTable(ctx, def); err != nil {
		return err
	}
	if err := d.s.CreateTableIndex(ctx, "orders", "ref", true, nil); err != nil {
		return err
	}
	if err := d.s.CreateTableIndex(ctx, "orders", "status", false, nil); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(11, 11))
	p := newProgress(d.stderr, "writing", 0)
	start := time.Now()
	b := d.s.NewTableBatch()
	for id := range n {
		st := demoStatuses[0]
		if r.IntN(10) == 0 { // a tenth are not open
			st = demoStatuses[1+r.IntN(3)]
		}
		b.Write("orders", term.Tuple(term.Atom("order"), term.Int(id), term.Int(r.Int64N(max(1, n/10))),
			term.Int(r.Int64N(100_000)), term.Binary([]byte(demoRef(id))), term.Atom(st)))
		if b.Len() == 5000 || id == n-1 {
			if err := d.s.ApplyTableBatch(ctx, b); err != nil {
				return err
			}
			b = d.s.NewTableBatch()
			p.update(id+1, -1, 0)
		}
	}
	p.clear()
	load := time.Since(start)
	fmt.Fprintf(w, "   written in %s (%s objects/s), each batch atomic with its index entries and the count\n",
		round(load), commas(int64(float64(n)/load.Seconds())))

	start = time.Now()
	info, err := d.s.DescribeTable(ctx, "orders")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "   table info orders: count %d, read in %s from one key\n", info.Count, time.Since(start).Round(time.Microsecond))

	run := func(title, text string) error {
		spec, err := matchspec.Parse(text)
		if err != nil {
			return err
		}
		plan, err := d.s.ExplainTable(ctx, "orders", spec)
		if err != nil {
			return err
		}
		var st store.SelectStats
		var rows []term.Term
		start := time.Now()
		for row, err := range d.s.SelectTable(ctx, "orders", spec, store.SelectOptions{Stats: &st}) {
			if err != nil {
				return err
			}
			rows = append(rows, row.Result.Term)
		}
		took := time.Since(start)
		fmt.Fprintf(w, "\n   %s\n   select --table orders %s\n   reads: %s\n", title, text, plan.Why)
		for i, row := range rows {
			if i == 3 {
				fmt.Fprintf(w, "     ... %s more\n", commas(int64(len(rows)-3)))
				break
			}
			fmt.Fprintf(w, "     %s\n", appendTerm(nil, row))
		}
		fmt.Fprintf(w, "   %s in %s, %s read\n", counted(int64(len(rows)), "row"), round(took), counted(st.KeysRead, "key"))
		return nil
	}
	ref := demoRef(n / 2)
	if err := run("the order with an external reference (the unique index)",
		fmt.Sprintf(`[{{order,'_','_','_',<<"%s">>,'_'},[],['$_']}]`, ref)); err != nil {
		return err
	}
	if err := run("returned orders over 990.00 (the index on status, the amount a guard)",
		`[{{order,'$1','_','$2','_',returned},[{'>','$2',99000}],[{{'$1','$2'}}]}]`); err != nil {
		return err
	}
	if err := run("orders 1000 to 1009 that are not open (the key narrows: no index)",
		`[{{order,'$1','_','_','_','$2'},[{'>=','$1',1000},{'<','$1',1010},{'=/=','$2',open}],['$_']}]`); err != nil {
		return err
	}
	if err := d.s.DeleteObject(ctx, "orders", term.Int(n/2)); err != nil {
		return err
	}
	if info, err = d.s.DescribeTable(ctx, "orders"); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n   delete orders %d: count %d, its ref entry gone with it\n", n/2, info.Count)
	return w.Flush()
}
