package sext_test

import (
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

func Example() {
	key := term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice")))
	buf := make([]byte, 0, 64)
	buf, err := sext.Append(buf[:0], key)
	if err != nil {
		panic(err)
	}
	fmt.Println(sext.Hex.EncodeToString(buf))
	back, err := sext.Decode(buf)
	fmt.Println(back, err)
	// Output:
	// 10000000030CBADCECB720080A0000005412B0DB2D363B2808
	// {user,42,<<"alice">>} <nil>
}

func ExamplePrefixRange() {
	pattern, _ := term.Parse("{order, 42, '_', '_'}")
	lower, upper, _ := sext.PrefixRange(pattern)
	fmt.Println(sext.Hex.EncodeToString(lower))
	fmt.Println(sext.Hex.EncodeToString(upper))

	k, _ := term.Parse("{order, 42, 20261130, 7}")
	b, _ := sext.Encode(k)
	fmt.Println(string(b) >= string(lower) && string(b) < string(upper))
	// Output:
	// 10000000040CB7DCAC965B90080A00000054
	// 10000000040CB7DCAC965B90080A00000055
	// true
}

func ExampleMatch() {
	pattern, _ := term.Parse("{job, '$1', ready, '_'}")
	t, _ := term.Parse("{job, q1, ready, 17}")
	bindings, ok := sext.Match(pattern, t)
	fmt.Println(ok)
	q, _ := bindings.Get("$1")
	fmt.Println(q)
	// Output:
	// true
	// q1
}

func ExamplePartialDecode() {
	pattern, _ := term.Parse("{a, [1, 2 | '_'], '_'}")
	prefix, _ := sext.Prefix(pattern)
	p, full, rest, err := sext.PartialDecode(prefix)
	fmt.Println(p, full, len(rest), err)
	// Output:
	// {a,[1,2|'_'],'_'} false 0 <nil>
}

func ExampleDecodeNext() {
	a, _ := sext.Encode(term.Atom("first"))
	b, _ := sext.Encode(term.Int(2))
	t, rest, _ := sext.DecodeNext(append(a, b...))
	fmt.Println(t, sext.Hex.EncodeToString(rest))
	// Output:
	// first 0A00000004
}

// A Desc component sorts in reverse: the newest timestamp first.
func ExampleOptions_descending() {
	older, _ := sext.Encode(term.Tuple(term.Atom("user"), term.Int(42), term.Desc(term.Int(1000))))
	newer, _ := sext.Encode(term.Tuple(term.Atom("user"), term.Int(42), term.Desc(term.Int(2000))))
	fmt.Println(string(newer) < string(older))
	// Output:
	// true
}

func ExampleOptions() {
	o := sext.Options{UTF8Atoms: true}
	b, err := o.Encode(term.Atom("日本"))
	fmt.Println(sext.Hex.EncodeToString(b), err)

	_, err = sext.Encode(term.Atom("日本")) // Latin-1 by default, as the reference
	fmt.Println(err)

	legacy, _ := sext.Decode([]byte{0x0b, 0xc0, 0x40, 0x20, 0x10, 0x00, 0x08, 0x00})
	_, err = sext.Options{Canonical: true}.Decode([]byte{0x0b, 0xc0, 0x40, 0x20, 0x10, 0x00, 0x08, 0x00})
	fmt.Println(legacy, err)
	// Output:
	// 0CF365F4BE6CE6B008 <nil>
	// sext: term cannot be encoded: atom '日本' has a character beyond Latin-1 (use UTF8Atoms)
	// 2147483648 sext: not canonical: the encoder writes this term differently at byte 1
}
