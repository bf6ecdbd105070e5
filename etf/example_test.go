package etf_test

import (
	"fmt"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

func ExampleAppend() {
	t, _ := term.Parse(`{ok, [1, 2], <<"x">>}`)
	b, err := etf.Append(nil, t)
	fmt.Println(b, err)
	// Output: [131 104 3 100 0 2 111 107 107 0 2 1 2 109 0 0 0 1 120] <nil>
}

func ExampleDecode() {
	t, err := etf.Decode([]byte{131, 116, 0, 0, 0, 1, 100, 0, 1, 97, 97, 1})
	fmt.Println(t, err)
	// Output: #{a => 1} <nil>
}

func ExampleOptions_WithMinorVersion() {
	o, _ := etf.Options{}.WithMinorVersion(2) // OTP 26's default
	b, _ := o.Encode(term.Atom("a"))
	fmt.Println(b)
	// Output: [131 119 1 97]
}
