package store_test

import (
	"context"
	"fmt"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// A binary prefix in a pattern reads only the keys whose binary starts
// with its bytes.
func ExampleStore_Scan_binaryPrefix() {
	s, done := tempStore()
	defer done()
	for i, name := range []string{"alice", "alh", "ali", "alix", "bob"} {
		s.Put(context.Background(), term.Tuple(term.Atom("user"), term.Binary([]byte(name)), term.Int(int64(i))), nil)
	}
	pattern, _ := term.Parse(`{user, <<"ali", _/binary>>, '_'}`)
	for e, err := range s.Scan(context.Background(), pattern, store.ScanOptions{KeysOnly: true}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(e.Key)
	}
	// Output:
	// {user,<<"ali">>,2}
	// {user,<<"alice">>,0}
	// {user,<<"alix">>,3}
}
