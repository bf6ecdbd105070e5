package sext_test

import (
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// A Decoder in a loop that is done with each key before the next: it
// reuses its memory, and Keep copies out the one key the loop keeps.
func ExampleDecoder() {
	var keys [][]byte
	for id := range int64(4) {
		b, _ := sext.Encode(term.Tuple(term.Atom("user"), term.Int(id), term.Binary([]byte(fmt.Sprint("name", id)))))
		keys = append(keys, b)
	}
	dec := sext.NewDecoder(sext.Options{})
	var kept term.Term
	sum := int64(0)
	for _, b := range keys {
		t, err := dec.Decode(b) // valid until the next Decode
		if err != nil {
			panic(err)
		}
		id := t.Elems()[1].Int64()
		sum += id
		if id == 2 {
			kept = dec.Keep(t)
		}
	}
	fmt.Println(sum, kept)
	// Output:
	// 6 {user,2,<<"name2">>}
}
