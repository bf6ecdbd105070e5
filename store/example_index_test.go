package store_test

import (
	"context"
	"fmt"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// An index on the last element of the key answers "order 7, whoever
// placed it", which a scan could only answer by reading every order.
func ExampleStore_CreateIndex() {
	s, done := tempStore()
	defer done()
	ctx := context.Background()
	order := func(cust, id int64) term.Term {
		return term.Tuple(term.Atom("order"), term.Int(cust), term.Int(id))
	}
	s.Put(ctx, order(42, 7), []byte("tea"))
	s.Put(ctx, order(42, 8), []byte("cake"))
	// The keys already stored are indexed now; every later write keeps
	// the index in the same atomic write.
	byID := term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("$1"))
	if err := s.CreateIndex(ctx, "order_id", byID, nil); err != nil {
		fmt.Println(err)
		return
	}
	s.Put(ctx, order(99, 7), []byte("jam"))
	s.Delete(ctx, order(42, 8))
	for e, err := range s.IndexScan(ctx, "order_id", term.Int(7), store.IndexScanOptions{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(e.IndexValue, e.Key, string(e.Value))
	}
	r, _ := s.CheckIndexes(ctx, store.IndexCheckOptions{})
	fmt.Println("clean:", r.Clean())
	// Output:
	// 7 {order,42,7} tea
	// 7 {order,99,7} jam
	// clean: true
}

// Paging through an index with continuation tokens: each page resumes
// right after the last entry of the one before.
func ExampleIndexEntry_Continuation() {
	s, done := tempStore()
	defer done()
	ctx := context.Background()
	// Index users by {Country, Age}: two variables, so the index value is
	// the tuple of their bindings, '$1' first.
	byCountryAge := term.Tuple(term.Atom("user"), term.Atom("_"), term.Atom("$2"), term.Atom("$1"))
	s.CreateIndex(ctx, "country_age", byCountryAge, nil)
	for i, u := range []struct {
		age     int64
		country string
	}{{31, "se"}, {25, "fr"}, {31, "fr"}, {40, "se"}, {25, "se"}} {
		s.Put(ctx, term.Tuple(term.Atom("user"), term.Int(int64(i)), term.Int(u.age), term.Atom(u.country)), nil)
	}
	// Everyone in Sweden, two at a time.
	sweden := term.Tuple(term.Atom("se"), term.Atom("_"))
	after := ""
	for page := 1; ; page++ {
		n := 0
		for e, err := range s.IndexScan(ctx, "country_age", sweden, store.IndexScanOptions{Limit: 2, After: after, KeysOnly: true}) {
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println(page, e.IndexValue, e.Key)
			after = e.Continuation()
			n++
		}
		if n < 2 {
			break
		}
	}
	// Output:
	// 1 {se,25} {user,4,25,se}
	// 1 {se,31} {user,0,31,se}
	// 2 {se,40} {user,3,40,se}
}

// ExplainSelect tells beforehand whether a Select reads an index instead
// of its specification's plan, as sext db explain does.
func ExampleStore_ExplainSelect() {
	s, done := tempStore()
	defer done()
	ctx := context.Background()
	s.CreateIndex(ctx, "order_id", term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("$1")), nil)
	for _, text := range []string{
		"[{{order,'_',7},[],['$_']}]",  // by the order id: every order's prefix, so the index
		"[{{order,42,'_'},[],['$_']}]", // customer 42: the prefix bounds the scan
		// Order ids 100 to 199: the index's entries of those values,
		// their keys sorted into key order.
		"[{{order,'_','$1'},[{'>=','$1',100},{'<','$1',200}],['$_']}]",
	} {
		p, err := s.ExplainSelect(ctx, matchspec.MustParse(text))
		if err != nil {
			fmt.Println(err)
			return
		}
		if ix := p.Index; ix != nil {
			fmt.Printf("%s: index %s, value %v, %d range(s), sorted %v\n", text, ix.Name, ix.Value, len(ix.Ranges), ix.Sorted)
		} else {
			fmt.Printf("%s: the plan's %d range(s)\n", text, len(p.Ranges))
		}
	}
	// Output:
	// [{{order,'_',7},[],['$_']}]: index order_id, value 7, 1 range(s), sorted false
	// [{{order,42,'_'},[],['$_']}]: the plan's 1 range(s)
	// [{{order,'_','$1'},[{'>=','$1',100},{'<','$1',200}],['$_']}]: index order_id, value '$1', 1 range(s), sorted true
}
