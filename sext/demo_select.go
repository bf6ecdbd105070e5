package main

import (
	"context"
	"fmt"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// The demo's guarded selects: match specifications as ets:select takes
// them, planned into byte ranges (sext db select, sext db explain).

// demoRangeSpec is the customer range over the demo's customers:
// 500 up to 1000 of 10,000 for a million orders, the same share for
// fewer.
func demoRangeSpec(custs int) string {
	lo, hi := max(1, custs/20), max(2, custs/10)
	return fmt.Sprintf("[{{order,'$1','_','_'},[{'>=','$1',%d},{'<','$1',%d}],['$_']}]", lo, hi)
}

func (d *demo) selects() error {
	cust := int64(1 + d.custs/2)
	march, april := int64(1740787200), int64(1743465600)
	lo, hi := max(1, d.custs/20), max(2, d.custs/10)
	specs := []struct{ title, text string }{
		{fmt.Sprintf("orders of customers %d up to %d, as a match specification", lo, hi), demoRangeSpec(d.custs)},
		{fmt.Sprintf("customer %d's orders in March 2025 through guards on the time (query 3 without hand-built bounds)", cust),
			fmt.Sprintf("[{{order,%d,#Desc<'$1'>,'_'},[{'>=','$1',%d},{'<','$1',%d}],['$_']}]", cust, march, april)},
		{fmt.Sprintf("customers %d up to %d in March 2025: the range comes from the customer, the guards on the time filter", lo, hi),
			fmt.Sprintf("[{{order,'$1',#Desc<'$2'>,'_'},[{'>=','$1',%d},{'<','$1',%d},{'>=','$2',%d},{'<','$2',%d}],['$_']}]", lo, hi, march, april)},
	}
	fmt.Fprintf(d.out.out, "\nguarded selects: each clause's head prefix, narrowed by guards on its first variable\n")
	for i, q := range specs {
		spec, err := matchspec.Parse(q.text)
		if err != nil {
			return err
		}
		fmt.Fprintf(d.out.out, "\n%d. %s\n   Select %s\n", 6+i, q.title, q.text)
		for _, r := range spec.Plan() {
			fmt.Fprintf(d.out.out, "   plan: %s .. %s\n", sext.Hex.EncodeToString(r.Lower), sext.Hex.EncodeToString(r.Upper))
		}
		var st store.SelectStats
		var rows []store.Row
		start := time.Now()
		for r, err := range d.s.Select(context.Background(), spec, store.SelectOptions{Stats: &st}) {
			if err != nil {
				return err
			}
			if len(rows) < 3 {
				rows = append(rows, r)
			}
		}
		elapsed := time.Since(start)
		fmt.Fprintf(d.out.out, "   %s in %s, %s read\n", counted(st.Rows, "row"), round(elapsed), counted(st.KeysRead, "key"))
		for _, r := range rows {
			d.printRow(store.Entry{Key: r.Key, Value: r.Value})
		}
		if i == 0 {
			if err := d.scanFiltered(int64(lo), int64(hi), st.Rows); err != nil {
				return err
			}
		}
		if err := d.out.out.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// scanFiltered is what the first select replaces: a Scan of every order,
// filtered in Go.
func (d *demo) scanFiltered(lo, hi, want int64) error {
	all := term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Atom("_"))
	start := time.Now()
	var read, kept int64
	for e, err := range d.s.Scan(context.Background(), all, store.ScanOptions{}) {
		if err != nil {
			return err
		}
		read++
		if c := e.Key.Elems()[1]; c.IsInt64() && c.Int64() >= lo && c.Int64() < hi {
			kept++
		}
	}
	fmt.Fprintf(d.out.out, "   against Scan %s filtered in Go: %s in %s, %s read\n",
		all, counted(kept, "row"), round(time.Since(start)), counted(read, "key"))
	if kept != want {
		return fmt.Errorf("demo: the select found %d rows, the filtered scan %d", want, kept)
	}
	return nil
}
