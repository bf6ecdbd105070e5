package pebblestore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// The embedded store in a directory: one call creates it, and a later
// one, for a reader that must not create a store, opens it again.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "pebblestore-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	key := term.Tuple(term.Atom("user"), term.Int(42))

	s, err := pebblestore.Open(ctx, dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Put(ctx, key, []byte("alice"))
	s.Close()

	s, err = pebblestore.Open(ctx, dir, &pebblestore.Options{Pebble: pebblekv.Options{MustExist: true}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	v, err := s.Get(ctx, key)
	fmt.Println(string(v), err)
	// Output:
	// alice <nil>
}
