package term_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

func parse(t testing.TB, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return x
}

// Pairs in Erlang's order as OTP 25 gives it (measured; the live-VM tests
// in package etf check the same against erl on every run).
func TestCompareErlangOrder(t *testing.T) {
	less := [][2]string{
		{"#Pid<'a@h',900,0,0>", "#Pid<'a@h',30,2,0>"},        // serial before id
		{"#Pid<'z@h',1,0,0>", "#Pid<'a@h',2,0,0>"},           // id before node
		{"#Pid<'a@h',1,0,5>", "#Pid<'b@h',1,0,0>"},           // then node name
		{"#Pid<'a@h',1,0,0>", "#Pid<'a@h',1,0,1>"},           // then creation
		{"#Port<'b@h',722,1>", "#Port<'b@h',433,3>"},         // creation before id
		{"#Port<'a@hh',741,1>", "#Port<nonode@nohost,45,0>"}, // no place of its own for the local node
		{"#Port<nonode@nohost,45,0>", "#Port<nonode@nohosu,1,0>"},
		{"#Ref<'a@h',1,9,1>", "#Ref<'a@h',1,1,2>"},   // the last word is the most significant
		{"#Ref<'a@h',1,9,9>", "#Ref<'a@h',1,1,1,1>"}, // more non-zero words: greater
		{"#Ref<'a@h',1,9,9,9>", "#Ref<'a@h',2,1>"},   // creation before ids
		{"#Ref<'z@h',0,1>", "#Port<'a@h',0,0>"},      // reference < port < pid
		{"#Port<'z@h',9,9>", "#Pid<'a@h',0,0,0>"},
		{"1", "1.5"},
		{"[a|b]", "[a]"},                         // an atom tail sorts before []
		{"[a]", "[a|<<>>]"},                      // a binary tail after it
		{"[a|{}]", "[a,b]"},                      // a tuple before a non-empty list
		{"#{a => 2,b => 0}", "#{a => 1,c => 0}"}, // all keys before any value
		{"#{1 => a}", "#{1.0 => a}"},             // keys in map key order
	}
	for _, p := range less {
		a, b := parse(t, p[0]), parse(t, p[1])
		if term.CompareErlang(a, b) >= 0 || term.CompareErlang(b, a) <= 0 {
			t.Errorf("CompareErlang: want %s < %s", p[0], p[1])
		}
	}
	equal := [][2]string{
		{"1", "1.0"}, {"0.0", "-0.0"}, {"{1,[2]}", "{1.0,[2.0]}"}, {"#{a => 1}", "#{a => 1.0}"},
		{"#Ref<'a@h',1,7>", "#Ref<'a@h',1,7,0,0>"}, {"18446744073709551616", "18446744073709551616.0"},
	}
	for _, p := range equal {
		a, b := parse(t, p[0]), parse(t, p[1])
		if !term.ArithEqual(a, b) || term.CompareErlang(a, b) != 0 {
			t.Errorf("want %s == %s", p[0], p[1])
		}
	}
	if term.ArithEqual(parse(t, "9007199254740993"), term.Float(9007199254740992)) {
		t.Error("2^53+1 == 2^53 as a float: the comparison must be exact, as OTP 25 says false")
	}
}

// A map keeps its entries in Erlang's key order, pids by serial first.
func TestMapKeyOrderPids(t *testing.T) {
	m := parse(t, "#{#Pid<'a@h',30,2,0> => x, #Pid<'a@h',900,0,0> => y, #Pid<'b@h',1,0,0> => z}")
	var got []string
	for _, e := range m.Entries() {
		got = append(got, e.Key.String())
	}
	want := []string{"#Pid<b@h,1,0,0>", "#Pid<a@h,900,0,0>", "#Pid<a@h,30,2,0>"}
	if !slices.Equal(got, want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
}

// OTP 25's map key order lets 0.0 and -0.0 tie and goes on to what
// follows them; only keys that differ in nothing else are ordered -0.0
// first. The orders are maps:keys's on OTP 25.
func TestMapKeyOrderSignedZeros(t *testing.T) {
	for _, c := range []struct{ m, want string }{
		{"#{{-0.0,2} => a, {0.0,1} => b}", "[{0.0,1},{-0.0,2}]"},
		{"#{[[],-0.0] => a, [[],0.0|1.5] => b}", "[[[],0.0|1.5],[[],-0.0]]"},
		{"#{[-0.0,0.0,2] => a, [0.0,-0.0,1] => b}", "[[0.0,-0.0,1],[-0.0,0.0,2]]"},
		{"#{#{-0.0 => 2} => a, #{0.0 => 1} => b}", "[#{0.0 => 1},#{-0.0 => 2}]"},
		{"#{0.0 => a, -0.0 => b}", "[-0.0,0.0]"},                 // one key on OTP 25
		{"#{{0.0,1} => a, {-0.0,1} => b}", "[{-0.0,1},{0.0,1}]"}, // one key on OTP 25
	} {
		var keys []term.Term
		for _, e := range parse(t, c.m).Entries() {
			keys = append(keys, e.Key)
		}
		if got := term.List(keys...).String(); got != c.want {
			t.Errorf("%s: keys %s, want %s", c.m, got, c.want)
		}
	}
}

// Maps print in map key order, integers before floats, as io:format's ~w
// writes them on OTP 25 (this line is its output).
func TestPrintMapKeyOrder(t *testing.T) {
	m := parse(t, "#{1.0 => a, 1 => b, 0.5 => c, -1 => d, -1.0 => e, 2 => f}")
	if got, want := m.String(), "#{-1 => d,1 => b,2 => f,-1.0 => e,0.5 => c,1.0 => a}"; got != want {
		t.Fatalf("printed %s, want %s", got, want)
	}
}

func drawOrderTerm(t *rapid.T, depth int) term.Term {
	nodes := rapid.SampledFrom([]string{"a@h", "b@h", "nonode@nohost"})
	small := rapid.Uint32Range(0, 3)
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leaf") > 0 {
		switch rapid.IntRange(0, 6).Draw(t, "k") {
		case 0:
			return term.Pid{Node: nodes.Draw(t, "n"), ID: small.Draw(t, "i"), Serial: small.Draw(t, "s"), Creation: small.Draw(t, "c")}.Term()
		case 1:
			return term.Port{Node: nodes.Draw(t, "n"), ID: uint64(small.Draw(t, "i")), Creation: small.Draw(t, "c")}.Term()
		case 2:
			return term.Ref{Node: nodes.Draw(t, "n"), Creation: small.Draw(t, "c"), IDs: rapid.SliceOfN(small, 1, 3).Draw(t, "w")}.Term()
		case 3:
			return term.Int(int64(rapid.IntRange(-2, 2).Draw(t, "v")))
		case 4:
			return term.Float(float64(rapid.IntRange(-2, 2).Draw(t, "f")) / 2)
		case 5:
			return rapid.SampledFrom([]term.Term{term.Atom("a"), term.List(), term.Binary([]byte{1})}).Draw(t, "c")
		}
		return term.Float(math.Copysign(0, -1))
	}
	s := make([]term.Term, rapid.IntRange(0, 3).Draw(t, "n"))
	for i := range s {
		s[i] = drawOrderTerm(t, depth-1)
	}
	switch rapid.IntRange(0, 3).Draw(t, "c") {
	case 0:
		return term.Tuple(s...)
	case 1:
		return term.List(s...)
	case 2:
		if len(s) > 0 {
			return term.ImproperList(s, drawOrderTerm(t, 0))
		}
	}
	es := make([]term.MapEntry, len(s))
	for i := range es {
		es[i] = term.MapEntry{Key: s[i], Value: drawOrderTerm(t, 0)}
	}
	return term.Map(es...)
}

// CompareErlang is a total preorder: antisymmetric and transitive, with
// ties only where Erlang has them (Equal terms always tie).
func TestCompareErlangPreorder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a, b, c := drawOrderTerm(rt, 2), drawOrderTerm(rt, 2), drawOrderTerm(rt, 2)
		ab, ba := term.CompareErlang(a, b), term.CompareErlang(b, a)
		if ab != -ba {
			rt.Fatalf("not antisymmetric: %v vs %v: %d, %d", a, b, ab, ba)
		}
		if term.Equal(a, b) && ab != 0 {
			rt.Fatalf("Equal but CompareErlang %d: %v, %v", ab, a, b)
		}
		if ab <= 0 && term.CompareErlang(b, c) <= 0 && term.CompareErlang(a, c) > 0 {
			rt.Fatalf("not transitive: %v <= %v <= %v", a, b, c)
		}
	})
}

func ExampleCompareErlang() {
	a, _ := term.Parse("#Pid<'a@h',900,0,0>")
	b, _ := term.Parse("#Pid<'a@h',30,2,0>")
	fmt.Println(term.CompareErlang(a, b), term.Compare(a, b))
	fmt.Println(term.CompareErlang(term.Int(1), term.Float(1)))
	// Output:
	// -1 1
	// 0
}

func ExampleArithEqual() {
	a, _ := term.Parse("{1, [2.0]}")
	b, _ := term.Parse("{1.0, [2]}")
	fmt.Println(term.ArithEqual(a, b), term.Equal(a, b))
	// Output: true false
}
