package store_test

import (
	"context"
	"fmt"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

func ExampleStore_Migrate() {
	s, done := tempStore()
	defer done()
	ctx := context.Background()
	for id, ts := range []int64{1700000100, 1700000200, 1700000300} {
		s.Put(ctx, term.Tuple(term.Atom("order"), term.Int(42), term.Int(ts), term.Int(int64(id))), []byte("12.50"))
	}
	// Newest first: each timestamp becomes #Desc<T>, values and index
	// entries moved with their keys.
	spec := matchspec.MustParse(`[{{order,'$1','$2','$3'},[{is_integer,'$2'}],[{{order,'$1',#Desc<'$2'>,'$3'}}]}]`)
	dry, _ := s.Migrate(ctx, spec, store.MigrateOptions{DryRun: true, Samples: 1})
	fmt.Println("dry run:", dry.Migrated, "to move, e.g.", dry.Moves[0].From, "->", dry.Moves[0].To)
	res, err := s.Migrate(ctx, spec, store.MigrateOptions{})
	fmt.Println("moved:", res.Migrated, "conflicts:", res.Conflicts, "done:", res.Done, err)
	for e := range s.Scan(ctx, term.Tuple(term.Atom("order"), term.Int(42), term.Atom("_"), term.Atom("_")), store.ScanOptions{}) {
		fmt.Println(e.Key, string(e.Value))
	}
	again, _ := s.Migrate(ctx, spec, store.MigrateOptions{})
	fmt.Println("again:", again.Migrated, "moved")
	// Output:
	// dry run: 3 to move, e.g. {order,42,1700000100,0} -> {order,42,#Desc<1700000100>,0}
	// moved: 3 conflicts: 0 done: true <nil>
	// {order,42,#Desc<1700000300>,2} 12.50
	// {order,42,#Desc<1700000200>,1} 12.50
	// {order,42,#Desc<1700000100>,0} 12.50
	// again: 0 moved
}
