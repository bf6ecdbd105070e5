package term_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/erlsext/sext/term"
)

func ExampleParse() {
	t, err := term.Parse(`{order, 16#2A, [<<"id",0>>, "ab" | tail], #{qty => 1.5}}.`)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Kind(), t.Len())
	fmt.Println(t)
	// Output:
	// tuple 4
	// {order,42,[<<105,100,0>>,[97,98]|tail],#{qty => 1.5}}
}

func ExampleTerm_String() {
	t := term.Tuple(
		term.Atom("ok"),
		term.Atom("hello world"),
		term.Float(1e20),
		term.Bitstring([]byte{1, 0xA0}, 11),
		term.ImproperList([]term.Term{term.Int(1)}, term.Atom("b")),
		term.Pid{Node: "a@b", ID: 85, Serial: 1, Creation: 4}.Term(),
		term.Desc(term.Int(-1)),
	)
	fmt.Println(t)
	// Output:
	// {ok,'hello world',1.0e20,<<1,5:3>>,[1|b],#Pid<a@b,85,1,4>,#Desc<-1>}
}

func ExampleAppendString() {
	buf := []byte("key=")
	buf = term.AppendString(buf, term.List(term.Atom("a"), term.Int(2)))
	fmt.Println(string(buf))
	// Output:
	// key=[a,2]
}

func ExampleSyntaxError() {
	_, err := term.Parse("{a,\n [1,2,]}")
	var se *term.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Line, se.Column, se.Msg)
	}
	fmt.Println(err)
	fmt.Println(errors.Is(err, term.ErrSyntax))
	// Output:
	// 2 7 unexpected ']'
	// line 2, column 7: unexpected ']'
	// true
}

func ExampleParseOptions_Parse() {
	deep := strings.Repeat("[", 50) + strings.Repeat("]", 50)
	_, err := term.ParseOptions{MaxDepth: 10}.Parse(deep)
	fmt.Println(err)
	fmt.Println(errors.Is(err, term.ErrDepth))
	// Output:
	// line 1, column 11: nesting deeper than 10
	// true
}

func ExampleTerm_MarshalText() {
	var t term.Term
	if err := t.UnmarshalText([]byte("#{b => 2, a => 1}")); err != nil {
		panic(err)
	}
	text, err := t.MarshalText()
	fmt.Println(string(text), err)
	// Output:
	// #{a => 1,b => 2} <nil>
}

// Int64 panics on any term it cannot answer for, as the other accessors
// do; IsInt64 asks first, and BigInt reads every integer.
func ExampleTerm_IsInt64() {
	for _, text := range []string{"42", "123456789012345678901234567890", "forty_two"} {
		t, err := term.Parse(text)
		if err != nil {
			panic(err)
		}
		switch {
		case t.IsInt64():
			fmt.Println("int64", t.Int64())
		case t.IsBig():
			fmt.Println("big", t.BigInt())
		default:
			fmt.Println("not an integer:", t.Kind())
		}
	}
	// Output:
	// int64 42
	// big 123456789012345678901234567890
	// not an integer: atom
}
