package matchspec_test

import (
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

func Example() {
	spec, err := matchspec.Parse(`[{{order,'$1','_','$2'},[{'>=','$1',500},{'<','$1',1000}],[{{'$1','$2'}}]}]`)
	if err != nil {
		panic(err)
	}
	for _, key := range []string{"{order,499,a,1}", "{order,500.0,b,2}", "{order,999.5,c,3}", "{order,1000,d,4}"} {
		k, _ := term.Parse(key)
		if r, ok := spec.Match(k); ok {
			fmt.Println(key, "->", r.Term)
		} else {
			fmt.Println(key, "-> no match")
		}
	}
	// Output:
	// {order,499,a,1} -> no match
	// {order,500.0,b,2} -> {500.0,2}
	// {order,999.5,c,3} -> {999.5,3}
	// {order,1000,d,4} -> no match
}

func ExampleSpec_Plan() {
	spec := matchspec.MustParse(`[
		{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']},
		{{order,'$1','_','_'},[{is_atom,'$1'}],['$_']}]`)
	// 0A then 500 and 1000 shifted left one bit (the low bit flags a
	// fraction); 0C is the tag of atoms.
	for _, r := range spec.Plan() {
		fmt.Println(sext.Hex.EncodeToString(r.Lower), sext.Hex.EncodeToString(r.Upper), r.Clauses)
	}
	// Output:
	// 10000000040CB7DCAC965B90080A000003E8 10000000040CB7DCAC965B90080A000007D0 [0]
	// 10000000040CB7DCAC965B90080C 10000000040CB7DCAC965B90080D [1]
}

// A head may hold a binary prefix: the plan reads only the keys whose
// binary starts with its bytes.
func ExampleSpec_Plan_binaryPrefix() {
	spec := matchspec.MustParse(`[{{user,<<"ali",_/binary>>,'$1'},[],['$1']}]`)
	for _, key := range []string{`{user,<<"alice">>,1}`, `{user,<<"alh">>,2}`, `{user,<<"ali">>,3}`} {
		k, _ := term.Parse(key)
		_, ok := spec.Match(k)
		fmt.Println(key, ok)
	}
	// The prefix's whole bytes, then the 3 bits of the next byte that
	// "ali"'s 27 bits of framing fix.
	for _, r := range spec.Plan() {
		fmt.Println(sext.Hex.EncodeToString(r.Lower), sext.Hex.EncodeToString(r.Upper))
	}
	// Output:
	// {user,<<"alice">>,1} true
	// {user,<<"alh">>,2} false
	// {user,<<"ali">>,3} true
	// 10000000030CBADCECB7200812B0DB2D20 10000000030CBADCECB7200812B0DB2D40
}
