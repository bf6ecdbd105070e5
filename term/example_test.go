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
	// {order,42,[<<105,100,0>>,"ab"|tail],#{qty => 1.5}}
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

// P prints lists and binaries of printable characters as strings, as
// Erlang's ~p does; W prints them as numbers, as ~w does.
func ExampleFormat() {
	t := term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice")),
		term.Binary([]byte("héllo")), term.List(term.Int('h'), term.Int('i')), term.Binary([]byte{0, 1}))
	fmt.Println(term.P.Text(t))
	fmt.Println(term.W.Text(t))
	fmt.Println(term.P.WithPrintableRange(term.Unicode).Text(term.List(term.Int('λ'))))
	// Output:
	// {user,42,<<"alice">>,<<"héllo"/utf8>>,"hi",<<0,1>>}
	// {user,42,<<97,108,105,99,101>>,<<104,195,169,108,108,111>>,[104,105],<<0,1>>}
	// "λ"
}

// A pattern element that matches every binary beginning with some bytes,
// here every binary name beginning with "ali".
func ExampleBinaryPrefix() {
	p := term.Tuple(term.Atom("user"), term.Atom("_"), term.BinaryPrefix([]byte("ali")))
	fmt.Println(p)
	q := term.MustParse(`{user, '_', <<"ali", _/binary>>}`)
	fmt.Println(term.Equal(p, q), string(q.Elems()[2].BinaryPrefix()))
	// Output:
	// {user,'_',<<"ali",_/binary>>}
	// true ali
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
