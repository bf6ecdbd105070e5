package store_test

import (
	"context"
	"fmt"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

func ExampleStore_Select() {
	s, done := tempStore()
	defer done()
	for cust, amount := range map[int64]string{400: "1.00", 500: "2.00", 700: "3.00", 1000: "4.00"} {
		s.Put(context.Background(), term.Tuple(term.Atom("order"), term.Int(cust), term.Int(1)), []byte(amount))
	}
	spec := matchspec.MustParse(`[{{order,'$1','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`)
	// Pages of one row: each resumes from the last row's token.
	token := ""
	for {
		n := 0
		for row, err := range s.Select(context.Background(), spec, store.SelectOptions{Limit: 1, After: token}) {
			if err != nil {
				panic(err)
			}
			fmt.Println(row.Key, string(row.Value))
			token, n = row.Continuation(), n+1
		}
		if n == 0 {
			break
		}
	}
	// Output:
	// {order,500,1} 2.00
	// {order,700,1} 3.00
}
