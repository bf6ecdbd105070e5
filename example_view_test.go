package sext_test

import (
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// Read the id out of a {user, Id, Name} key without decoding the key.
func ExampleView() {
	key, _ := sext.Encode(term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))))

	v := sext.NewView(key)
	isUser, _ := v.Elem(0)
	ok, _ := isUser.AtomIs("user")
	idView, _ := v.Elem(1)
	id, _ := idView.Int64()
	nameView, _ := v.Elem(2)
	var buf [16]byte
	name, _ := nameView.AppendBytes(buf[:0])
	fmt.Println(ok, id, string(name))
	// Output: true 42 alice
}

// Malformed bytes give the decoders' errors, with the offset.
func ExampleView_errors() {
	key, _ := sext.Hex.DecodeString("10000000020CB08008") // {a, ...} cut short
	v := sext.NewView(key)
	second, _ := v.Elem(1) // the elements before it are checked
	_, err := second.Kind()
	fmt.Println(err)
	first, _ := v.Elem(0)
	_, err = first.Int64()
	fmt.Println(err)
	// Output:
	// sext: truncated input at byte 9
	// sext: wrong kind of term: atom, not an integer at byte 5
}

// Filter keys by a pattern without decoding the ones that do not match.
func ExampleMatcher() {
	pattern, _ := term.Parse("{order, '$1', '_', 7}")
	m, _ := sext.CompileMatch(pattern)
	for _, k := range []string{"{order, 42, 1700000000, 7}", "{order, 42, 1700000000, 8}", "{user, 42}"} {
		t, _ := term.Parse(k)
		key, _ := sext.Encode(t)
		bs, ok, err := m.Match(key)
		fmt.Println(k, ok, bs, err)
	}
	// Output:
	// {order, 42, 1700000000, 7} true [{$1 42}] <nil>
	// {order, 42, 1700000000, 8} false [] <nil>
	// {user, 42} false [] <nil>
}
