package sext_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/sexttest"
	"github.com/erlsext/sext/term"
)

// Types for the tests. Their fields cover every conversion and tag option.

type orderKey struct {
	Customer int64
	At       time.Time `sext:",desc"`
	ID       string
}

type eventKey struct {
	_      sext.Record `sext:"event"`
	Region uint8
	Kind   string  `sext:",atom"`
	Score  float64 `sext:",desc"`
	Big    *big.Int
	Flag   bool
}

type innerKey struct {
	A int8
	B string
}

type nestedKey struct {
	Tenant [4]byte
	Path   []string `sext:",charlist"`
	Inner  innerKey `sext:",desc"`
	Seq    []int16  `sext:",tuple"`
	Opt    *int32
	N      uint64
	Blob   []byte
}

type person struct {
	_    sext.Record `sext:",map"`
	Name string      `sext:"name"`
	Age  int         `sext:"age,desc"`
	Tags []string    `sext:"tags,atom"`
}

// money converts itself, with a value receiver.
type money struct {
	Cents    int64
	Currency string
}

func (m money) MarshalTerm() (term.Term, error) {
	if m.Currency == "" {
		return term.Term{}, errors.New("money without a currency")
	}
	return term.Tuple(term.Atom(m.Currency), term.Int(m.Cents)), nil
}

func (m *money) UnmarshalTerm(t term.Term) error {
	if t.Kind() != term.KindTuple || t.Len() != 2 {
		return errors.New("want {Currency, Cents}")
	}
	e := t.Elems()
	if e[0].Kind() != term.KindAtom || e[0].Atom() == "" || !e[1].IsInt64() {
		return errors.New("want {Currency, Cents}")
	}
	*m = money{Cents: e[1].Int64(), Currency: strings.Clone(e[0].Atom())}
	return nil
}

// color converts itself, with pointer receivers only.
type color uint8

var colorNames = []string{"red", "green", "blue"}

func (c *color) MarshalTerm() (term.Term, error) { return term.Atom(colorNames[*c%3]), nil }

func (c *color) UnmarshalTerm(t term.Term) error {
	if t.Kind() == term.KindAtom {
		if i := slices.Index(colorNames, t.Atom()); i >= 0 {
			*c = color(i)
			return nil
		}
	}
	return fmt.Errorf("not a color: %s", t)
}

type myString string

// Base is exported so that it can be embedded as an exported field.
type Base struct{ ID int }

type everything struct {
	I     int
	I8    int8
	I16   int16
	I32   int32
	I64   int64
	U     uint
	U8    uint8
	U16   uint16
	U32   uint32
	U64   uint64
	UP    uintptr
	F32   float32
	F64   float64
	B     bool
	S     string
	SA    string `sext:",atom"`
	SC    string `sext:",charlist"`
	Named myString
	Bytes []byte
	Arr   [3]byte
	Ints  []int
	Tup   []string `sext:",tuple"`
	Arr2  [2]int16 `sext:",tuple"`
	M     map[string]int
	MA    map[string][]string `sext:",atom"`
	P     *int
	PP    **string
	Big   *big.Int
	BigV  big.Int
	T     time.Time
	TP    *time.Time `sext:",desc"`
	D     time.Duration
	Term  term.Term
	Any   any
	Money money
	Color color
	Inner innerKey `sext:",desc"`
	Who   person
	Skip  int `sext:"-"`
}

var cmpOpts = gocmp.Options{
	cmpopts.EquateEmpty(),
	// Unexported fields are compared too: those of the test types are
	// blank Record markers or left zero.
	gocmp.Exporter(func(reflect.Type) bool { return true }),
	gocmp.Comparer(func(a, b *big.Int) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Cmp(b) == 0
	}),
	gocmp.Comparer(func(a, b big.Int) bool { return a.Cmp(&b) == 0 }),
	gocmp.Comparer(term.Equal),
	// cmp treats -0.0 and 0.0 as equal; the encoding does not.
	gocmp.Comparer(func(a, b float64) bool { return a == b && math.Signbit(a) == math.Signbit(b) }),
	gocmp.Comparer(func(a, b float32) bool { return a == b && math.Signbit(float64(a)) == math.Signbit(float64(b)) }),
}

func mustParse(t testing.TB, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return x
}

func ptr[T any](v T) *T { return &v }

func bigInt(s string) *big.Int {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return b
}

// checkMarshal checks Marshal, MarshalTerm and the round trip of v.
func checkMarshal(t testing.TB, v any, want term.Term) {
	t.Helper()
	got, err := sext.MarshalTerm(v)
	if err != nil {
		t.Fatalf("MarshalTerm(%#v): %v", v, err)
	}
	if !term.Equal(got, want) {
		t.Fatalf("MarshalTerm(%#v) = %s, want %s", v, got, want)
	}
	b, err := sext.Marshal(v)
	if err != nil {
		t.Fatalf("Marshal(%#v): %v", v, err)
	}
	if enc, _ := sext.Encode(want); !bytes.Equal(b, enc) {
		t.Fatalf("Marshal(%#v) = %x, want %x", v, b, enc)
	}
	back := reflect.New(reflect.TypeOf(v))
	if err := sext.Unmarshal(b, back.Interface()); err != nil {
		t.Fatalf("Unmarshal(Marshal(%#v)): %v", v, err)
	}
	if d := gocmp.Diff(v, back.Elem().Interface(), cmpOpts); d != "" {
		t.Fatalf("Unmarshal(Marshal(%#v)) differs (-want +got):\n%s", v, d)
	}
}

func TestMarshalConversions(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	tests := []struct {
		name string
		v    any
		want string // term text
	}{
		{"int", 42, "42"},
		{"int8 min", int8(math.MinInt8), "-128"},
		{"int16 max", int16(math.MaxInt16), "32767"},
		{"int32 min", int32(math.MinInt32), "-2147483648"},
		{"int64 min", int64(math.MinInt64), "-9223372036854775808"},
		{"int64 max", int64(math.MaxInt64), "9223372036854775807"},
		{"uint8", uint8(255), "255"},
		{"uint32 max", uint32(math.MaxUint32), "4294967295"},
		{"uint64 max", uint64(math.MaxUint64), "18446744073709551615"},
		{"uintptr", uintptr(7), "7"},
		{"duration", 3 * time.Second, "3000000000"},
		{"big small", big.NewInt(-3), "-3"},
		{"big huge", bigInt("-123456789012345678901234567890"), "-123456789012345678901234567890"},
		{"big value", *bigInt("123456789012345678901234567890"), "123456789012345678901234567890"},
		{"big nil", (*big.Int)(nil), "undefined"},
		{"float64", 1.5, "1.5"},
		{"float64 negative zero", math.Copysign(0, -1), "-0.0"},
		{"float32", float32(0.25), "0.25"},
		{"true", true, "true"},
		{"false", false, "false"},
		{"string", "hé", `<<104,195,169>>`},
		{"named string", myString("x"), `<<"x">>`},
		{"bytes", []byte{1, 2, 255}, "<<1,2,255>>"},
		{"empty bytes", []byte{}, "<<>>"},
		{"byte array", [4]byte{0xde, 0xad, 0xbe, 0xef}, "<<222,173,190,239>>"},
		{"slice", []int{1, -2, 3}, "[1,-2,3]"},
		{"nil slice", []int(nil), "[]"},
		{"array", [2]string{"a", "b"}, `[<<"a">>,<<"b">>]`},
		{"nested slice", [][]uint8{{1}, {}}, "[<<1>>,<<>>]"},
		{"map", map[string]int{"b": 2, "a": 1}, `#{<<"a">> => 1,<<"b">> => 2}`},
		{"map int keys", map[int]bool{10: true, -1: false}, `#{-1 => false,10 => true}`},
		{"nil map", map[string]int(nil), "#{}"},
		{"pointer", ptr(5), "5"},
		{"pointer to pointer", ptr(ptr("s")), `<<"s">>`},
		{"nil pointer", (*int)(nil), "undefined"},
		{"time", at, "1714979289123456789"},
		{"time before 1678", time.Date(1600, 1, 1, 0, 0, 0, 5, time.UTC), "-11676095999999999995"},
		{"zero time", time.Time{}, "-62135596800000000000"},
		{"time elsewhere", at.In(time.FixedZone("X", 3600)), "1714979289123456789"},
		{"term", mustParse(t, "{a,[1|2],#{}}"), "{a,[1|2],#{}}"},
		{"marshaler", money{150, "eur"}, "{eur,150}"},
		{"pointer marshaler", ptr(color(2)), "blue"},
		{"addressless pointer marshaler", color(1), "green"},
		{"struct", orderKey{7, at, "x"}, `{7,#Desc<1714979289123456789>,<<"x">>}`},
		{"record", eventKey{Region: 1, Kind: "click", Score: 2, Big: big.NewInt(-1), Flag: true},
			"{event,1,click,#Desc<2.0>,-1,true}"},
		{"map form", person{Name: "ann", Age: 30, Tags: []string{"x"}},
			`#{age => #Desc<30>,name => <<"ann">>,tags => [x]}`},
		{"nested", nestedKey{Tenant: [4]byte{1}, Path: []string{"é", ""}, Inner: innerKey{-1, "b"}, Seq: []int16{3}, N: 9},
			`{<<1,0,0,0>>,[[233],[]],#Desc<{-1,<<"b">>}>,{3},undefined,9,<<>>}`},
		{"empty struct", struct{}{}, "{}"},
		{"skipped and unexported", struct {
			A int
			b int
			C int `sext:"-"`
		}{A: 1}, "{1}"},
		{"embedded", struct {
			innerKey
			Outer int
		}{Outer: 2}, "{2}"}, // an unexported embedded type is unexported
		{"exported embedded", struct {
			Base
			orderKey
		}{Base: Base{ID: 3}}, "{{3}}"}, // a field like any other, not flattened
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkMarshal(t, tc.v, mustParse(t, tc.want)) })
	}
}

// TestMarshalStringOptions checks atom and charlist on strings and on the
// strings inside slices, arrays, pointers and maps.
func TestMarshalStringOptions(t *testing.T) {
	type opts struct {
		Atom     string              `sext:",atom"`
		Chars    string              `sext:",charlist"`
		Atoms    []string            `sext:",atom"`
		AtomPtr  *string             `sext:",atom"`
		AtomMap  map[string][]string `sext:",atom"`
		CharsArr [2]string           `sext:",charlist,tuple"`
		Plain    []string
	}
	v := opts{
		Atom: "ok", Chars: "hé", Atoms: []string{"a", "b"}, AtomPtr: ptr("p"),
		AtomMap: map[string][]string{"k": {"v"}}, CharsArr: [2]string{"a", ""}, Plain: []string{"s"},
	}
	checkMarshal(t, v, mustParse(t, `{ok,[104,233],[a,b],p,#{k => [v]},{[97],[]},[<<"s">>]}`))
}

func TestMarshalOptions(t *testing.T) {
	v := struct {
		Name string `sext:",atom"`
		N    *big.Int
	}{"日本", bigInt("-99999999999999999999")}
	if _, err := sext.Marshal(v); !errors.Is(err, sext.ErrUnencodable) {
		t.Fatalf("Marshal of a non-Latin-1 atom: %v, want ErrUnencodable", err)
	}
	for _, o := range []sext.Options{{UTF8Atoms: true}, {UTF8Atoms: true, Legacy: true}} {
		b, err := o.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		tm, _ := sext.MarshalTerm(v)
		if want, _ := o.Encode(tm); !bytes.Equal(b, want) {
			t.Fatalf("%+v: Marshal = %x, want %x", o, b, want)
		}
		var back struct {
			Name string `sext:",atom"`
			N    *big.Int
		}
		if err := o.Unmarshal(b, &back); err != nil || back.Name != v.Name || back.N.Cmp(v.N) != 0 {
			t.Fatalf("%+v: Unmarshal = %v, %+v", o, err, back)
		}
	}
}

func TestMarshalNil(t *testing.T) {
	b, err := sext.Marshal(nil)
	if want, _ := sext.Encode(term.Atom("undefined")); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("Marshal(nil) = %x, %v", b, err)
	}
	x := struct{ A, B any }{A: nil, B: ptr(3)}
	b, err = sext.Marshal(x)
	if want, _ := sext.Encode(mustParse(t, "{undefined,3}")); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("Marshal(%v) = %x, %v", x, b, err)
	}
	b, _ = sext.Marshal(nil)
	var p *int = ptr(1)
	if err := sext.Unmarshal(b, &p); err != nil || p != nil {
		t.Fatalf("Unmarshal(undefined) into a pointer: %v, %v", p, err)
	}
}

// TestMarshalInterfaceTerm checks that an empty interface receives terms.
func TestMarshalInterfaceTerm(t *testing.T) {
	b, _ := sext.Marshal(struct{ X any }{X: []string{"a"}})
	var back struct{ X any }
	if err := sext.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, ok := back.X.(term.Term); !ok || !term.Equal(got, mustParse(t, `[<<"a">>]`)) {
		t.Fatalf("got %#v", back.X)
	}
}

// TestUnmarshalReuses checks that a non-nil pointer is decoded through and
// that slices and maps are replaced.
func TestUnmarshalReuses(t *testing.T) {
	n := 1
	v := struct {
		P *int
		S []int
		M map[string]int
	}{&n, []int{9, 9, 9}, map[string]int{"old": 1}}
	b, _ := sext.Marshal(struct {
		P int
		S []int
		M map[string]int
	}{5, []int{1}, map[string]int{"new": 2}})
	if err := sext.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.P != &n || n != 5 || !slices.Equal(v.S, []int{1}) || len(v.M) != 1 || v.M["new"] != 2 {
		t.Fatalf("got %+v (n = %d)", v, n)
	}
}

type node struct {
	V    int
	Next *node
}

type wrapper struct {
	Items []any
}

// stamp hides its fields: its values cannot be told apart as keys.
type stamp time.Time

type badMarshaler struct{}

func (badMarshaler) MarshalTerm() (term.Term, error) { return term.Term{}, errors.New("boom") }

type nanMarshaler struct{}

func (nanMarshaler) MarshalTerm() (term.Term, error) { return term.Float(math.NaN()), nil }

func TestMarshalErrors(t *testing.T) {
	cyclic := &node{V: 1}
	cyclic.Next = &node{V: 2, Next: cyclic}
	var deep *node
	for i := range 12000 {
		deep = &node{V: i, Next: deep}
	}
	self := wrapper{Items: make([]any, 1)}
	self.Items[0] = self.Items

	type chanField struct {
		A int
		C chan int
	}
	type nanField struct {
		Lines []struct{ Price float64 }
	}
	tests := []struct {
		name    string
		v       any
		errType any    // pointer to the error type wanted
		is      error  // a sentinel it wraps, if any
		msg     string // a substring of the message
	}{
		{"chan", make(chan int), new(*sext.UnsupportedTypeError), nil, "chan int"},
		{"chan field", chanField{}, new(*sext.UnsupportedTypeError), nil, "chanField.C: unsupported type chan int"},
		{"func in map", map[string]any{"f": func() {}}, new(*sext.UnsupportedTypeError), nil, `["f"]: unsupported type func()`},
		{"complex", complex(1, 2), new(*sext.UnsupportedTypeError), nil, "complex128"},
		{"opaque struct", struct{ At stamp }{}, new(*sext.UnsupportedTypeError), nil, ".At: unsupported type sext_test.stamp"},
		{"mutex", struct{ Mu sync.Mutex }{}, new(*sext.UnsupportedTypeError), nil, ".Mu: unsupported type sync.Mutex"},
		{"NaN", math.NaN(), new(*sext.UnsupportedValueError), sext.ErrUnencodable, "not finite"},
		{"NaN field", nanField{Lines: []struct{ Price float64 }{{1}, {math.Inf(1)}}},
			new(*sext.UnsupportedValueError), sext.ErrUnencodable, "nanField.Lines[1].Price: term cannot be encoded: float is not finite"},
		{"NaN float32 desc", struct {
			F float32 `sext:",desc"`
		}{float32(math.NaN())}, new(*sext.UnsupportedValueError), sext.ErrUnencodable, ".F:"},
		{"cycle", cyclic, new(*sext.UnsupportedValueError), sext.ErrUnencodable, "pointer cycle"},
		{"slice cycle", self, new(*sext.UnsupportedValueError), sext.ErrUnencodable, "pointer cycle"},
		{"too deep", deep, new(*sext.UnsupportedValueError), sext.ErrDepth, "node…"},
		{"atom beyond Latin-1", struct {
			K string `sext:",atom"`
		}{"λ"}, new(*sext.UnsupportedValueError), sext.ErrUnencodable, ".K:"},
		{"charlist of bad UTF-8", struct {
			K []string `sext:",charlist"`
		}{[]string{"ok", "\xff"}}, new(*sext.UnsupportedValueError), sext.ErrUnencodable, ".K[1]: term cannot be encoded: string is not valid UTF-8"},
		{"marshaler error", struct{ M badMarshaler }{}, new(*sext.MarshalerError), nil, ".M: MarshalTerm of sext_test.badMarshaler: boom"},
		{"marshaler NaN", struct{ M nanMarshaler }{}, new(*sext.UnsupportedValueError), sext.ErrUnencodable, ".M:"},
		{"colliding keys", map[*int]bool{ptr(1): true, ptr(1): false}, new(*sext.UnsupportedValueError), sext.ErrUnencodable, "same term"},
		{"unknown option", struct {
			A int `sext:",dsec"`
		}{}, new(*sext.TagError), nil, `unknown option "dsec"`},
		{"atom on int", struct {
			A int `sext:",atom"`
		}{}, new(*sext.TagError), nil, "apply only to strings"},
		{"atom and charlist", struct {
			A string `sext:",atom,charlist"`
		}{}, new(*sext.TagError), nil, "exclude"},
		{"tuple on string", struct {
			A string `sext:",tuple"`
		}{}, new(*sext.TagError), nil, "tuple applies only"},
		{"map on a field", struct {
			A int `sext:",map"`
		}{}, new(*sext.TagError), nil, "map applies only"},
		{"record without name", struct {
			_ sext.Record
			A int
		}{}, new(*sext.TagError), nil, "needs the record name"},
		{"two records", struct {
			_ sext.Record `sext:"a"`
			_ sext.Record `sext:"b"`
		}{}, new(*sext.TagError), nil, "second sext.Record"},
		{"map form with a name", struct {
			_ sext.Record `sext:"r,map"`
		}{}, new(*sext.TagError), nil, "no record name"},
		{"map form with duplicate keys", struct {
			_ sext.Record `sext:",map"`
			A int         `sext:"x"`
			B int         `sext:"x"`
		}{}, new(*sext.TagError), nil, `two fields have the key "x"`},
		{"tag on unexported", struct {
			a int `sext:",desc"`
		}{}, new(*sext.TagError), nil, "unexported"},
		{"bad tag deep down", []struct {
			A int `sext:",bad"`
		}{{}}, new(*sext.TagError), nil, "[0]: field A"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sext.Marshal(tc.v)
			_, terr := sext.MarshalTerm(tc.v)
			buf := []byte("keep")
			out, aerr := sext.AppendMarshal(buf, tc.v)
			for _, err := range []error{err, terr, aerr} {
				if err == nil {
					if tc.name == "marshaler NaN" || tc.name == "atom beyond Latin-1" {
						continue // terms hold these; only encoding fails
					}
					t.Fatal("no error")
				}
				if !errors.As(err, tc.errType) {
					t.Fatalf("error %T (%v), want %T", err, err, reflect.ValueOf(tc.errType).Elem().Interface())
				}
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Fatalf("error %v does not wrap %v", err, tc.is)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("error %q does not say %q", err, tc.msg)
				}
			}
			if string(out) != "keep" {
				t.Fatalf("AppendMarshal changed dst on error: %q", out)
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	type small struct {
		N int8
		U []uint16
	}
	type rec struct {
		_ sext.Record `sext:"rec"`
		A int
	}
	type outer struct {
		Inner struct {
			F float32 `sext:",desc"`
		}
		M map[string]bool
	}
	tests := []struct {
		name   string
		data   string // term text
		target any
		msg    string
	}{
		{"overflow", `{300,[]}`, new(small), "small.N: cannot unmarshal int 300 into int8: out of range"},
		{"negative uint", `{1,[1,-1]}`, new(small), "small.U[1]: cannot unmarshal int -1 into uint16: out of range"},
		{"big into int64", `99999999999999999999`, new(int64), "out of range"},
		{"big into uint64", `99999999999999999999`, new(uint64), "out of range"},
		{"negative big into uint64", `-99999999999999999999`, new(uint64), "out of range"},
		{"float into int", `1.0`, new(int), "cannot unmarshal float 1.0 into int"},
		{"arity", `{1}`, new(small), "want a tuple of 2"},
		{"record name", `{other,1}`, new(rec), "rec: cannot unmarshal atom other into sext_test.rec: want the record atom rec"},
		{"desc missing", `{{1.5},#{}}`, new(outer), "outer.Inner.F: cannot unmarshal float 1.5 into float32: want a descending term"},
		{"float32 inexact", `{{#Desc<0.1>},#{}}`, new(outer), "outer.Inner.F: cannot unmarshal float 0.1 into float32: not exact"},
		{"map value", `{{#Desc<0.5>},#{<<"k">> => 1}}`, new(outer), `outer.M["k"]: cannot unmarshal int 1 into bool`},
		{"map key", `{{#Desc<0.5>},#{k => true}}`, new(outer), `outer.M[k key]: cannot unmarshal atom k into string`},
		{"array length", `<<1,2>>`, new([3]byte), "want 3 bytes"},
		{"list length", `[1,2]`, new([3]int), "want 3 elements"},
		{"bitstring", `<<1:3>>`, new([]byte), "bitstring of 3 bits"},
		{"improper", `[1|2]`, new([]int), "improper list"},
		{"bool", `yes`, new(bool), "atom yes into bool"},
		{"string from atom", `yes`, new(string), "want a binary"},
		{"charlist", `[55296]`, new(struct {
			S string `sext:",charlist"`
		}), "want a tuple of 1"},
		{"bad char", `{[55296]}`, new(struct {
			S string `sext:",charlist"`
		}), "want a list of characters, found int 55296"},
		{"map-form unknown key", `#{name => <<"a">>, zip => 1}`, new(person), "person: cannot unmarshal atom zip into sext_test.person: no field has this key"},
		{"unmarshaler", `{eur}`, new(money), "money: UnmarshalTerm of sext_test.money: want {Currency, Cents}"},
		{"time", `<<>>`, new(time.Time), "want an integer of nanoseconds"},
		{"chan", `1`, new(chan int), "unsupported type chan int"},
		{"interface with methods", `1`, new(fmt.Stringer), "unsupported type fmt.Stringer"},
		{"tuple as interface key", `#{{a} => 1}`, new(map[any]any), "a map key of interface type must be"},
		{"big as interface key", `#{99999999999999999999 => 1}`, new(map[any]int), "a map key of interface type must be"},
		{"interface keys collide", `#{a => 1, <<"a">> => 2}`, new(map[any]int), "another key gives the same Go value"},
		{"float keys collide", `#{0.0 => 1, -0.0 => 2}`, new(map[float64]int), "another key gives the same Go value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := sext.Encode(mustParse(t, tc.data))
			if err != nil {
				t.Fatal(err)
			}
			err = sext.Unmarshal(b, tc.target)
			if err == nil {
				t.Fatalf("no error; got %+v", reflect.ValueOf(tc.target).Elem())
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q does not say %q", err, tc.msg)
			}
		})
	}

	b, _ := sext.Marshal(1)
	for _, target := range []any{nil, 1, (*int)(nil)} {
		var ie *sext.InvalidUnmarshalError
		if err := sext.Unmarshal(b, target); !errors.As(err, &ie) {
			t.Errorf("Unmarshal into %T: %v, want InvalidUnmarshalError", target, err)
		}
	}
	var de *sext.DecodeError
	if err := sext.Unmarshal(append(b, 0), new(int)); !errors.As(err, &de) {
		t.Errorf("Unmarshal of trailing bytes: %v, want DecodeError", err)
	}
}

// TestUnmarshalInterfaceMapKeys reads maps into Go maps keyed by an empty
// interface: a term.Term cannot be a Go map key, so each key becomes the
// comparable value Marshal writes as that term, and a map written from
// such a Go map reads back equal.
func TestUnmarshalInterfaceMapKeys(t *testing.T) {
	for _, tc := range []struct {
		data string
		want map[any]any
	}{
		{`#{a => 1}`, map[any]any{"a": term.Int(1)}},
		{`#{1 => x, 2.5 => y, <<"k">> => z, true => t, undefined => u}`,
			map[any]any{int64(1): term.Atom("x"), 2.5: term.Atom("y"), "k": term.Atom("z"), true: term.Atom("t"), nil: term.Atom("u")}},
	} {
		b, err := sext.Encode(mustParse(t, tc.data))
		if err != nil {
			t.Fatal(err)
		}
		var got map[any]any
		if err := sext.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", tc.data, err)
		}
		if diff := gocmp.Diff(tc.want, got, cmpOpts...); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.data, diff)
		}
	}
	in := map[any]int{int64(-3): 1, 0.5: 2, "s": 3, false: 4}
	b, err := sext.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var back map[any]int
	if err := sext.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Errorf("round trip of %v: %v, %v", in, back, err)
	}
}

// TestMarshalRecursiveTypes builds codecs for mutually recursive types
// from many goroutines at once.
func TestMarshalRecursiveTypes(t *testing.T) {
	type tree struct {
		Val  int
		Kids []tree
		Up   *tree
	}
	v := tree{Val: 1, Kids: []tree{{Val: 2}, {Val: 3, Kids: []tree{{Val: 4}}}}}
	want := mustParse(t, "{1,[{2,[],undefined},{3,[{4,[],undefined}],undefined}],undefined}")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := sext.MarshalTerm(v)
			if err != nil || !term.Equal(got, want) {
				t.Errorf("MarshalTerm = %s, %v", got, err)
			}
		}()
	}
	wg.Wait()
	checkMarshal(t, v, want)
}

// The Go order of the struct types, field by field, that the byte order of
// their encodings must equal.

func compareFloat(a, b float64) int {
	if a == b && math.Signbit(a) != math.Signbit(b) {
		if math.Signbit(a) {
			return -1
		}
		return 1
	}
	return cmp.Compare(a, b)
}

// compareNilLast orders a nil pointer to a number after every number, as
// the atom undefined sorts.
func compareNilLast[T any](a, b *T, f func(a, b T) int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return f(*a, *b)
}

func compareOrderKey(a, b orderKey) int {
	if c := cmp.Compare(a.Customer, b.Customer); c != 0 {
		return c
	}
	if c := b.At.Compare(a.At); c != 0 { // desc
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func compareEventKey(a, b eventKey) int {
	if c := cmp.Compare(a.Region, b.Region); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := compareFloat(b.Score, a.Score); c != 0 { // desc
		return c
	}
	if c := compareNilLast(a.Big, b.Big, func(x, y big.Int) int { return x.Cmp(&y) }); c != 0 {
		return c
	}
	return cmp.Compare(boolInt(a.Flag), boolInt(b.Flag))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareNestedKey(a, b nestedKey) int {
	if c := bytes.Compare(a.Tenant[:], b.Tenant[:]); c != 0 {
		return c
	}
	if c := slices.Compare(a.Path, b.Path); c != 0 { // lists: a prefix first
		return c
	}
	if c := cmp.Compare(b.Inner.A, a.Inner.A); c != 0 { // desc
		return c
	}
	if c := strings.Compare(b.Inner.B, a.Inner.B); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Seq), len(b.Seq)); c != 0 { // tuples: size first
		return c
	}
	if c := slices.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	if c := compareNilLast(a.Opt, b.Opt, cmp.Compare[int32]); c != 0 {
		return c
	}
	if c := cmp.Compare(a.N, b.N); c != 0 {
		return c
	}
	return bytes.Compare(a.Blob, b.Blob)
}

// Generators. Leaves come from small sets and edges so that random pairs
// often share prefixes.

var (
	genI64 = rapid.OneOf(rapid.Int64Range(-3, 3), rapid.Int64(),
		rapid.SampledFrom([]int64{math.MinInt64, math.MaxInt64, -1 << 31, 1<<31 - 1, 1 << 31}))
	genRunes  = rapid.RuneFrom([]rune{'a', 'b', 0, 'é', 'ÿ', '😀', '\u07ff', '\u0800'})
	genString = rapid.StringOfN(genRunes, 0, 4, -1)
	genLatin1 = rapid.StringOfN(rapid.RuneFrom([]rune{'a', 'b', 'z', 0, 'é', 'ÿ', '_'}), 0, 4, -1)
	genF64    = rapid.OneOf(rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1e300, -1e-300, 1 << 53, 5e-324}),
		rapid.Float64Range(-1e20, 1e20), rapid.Float64Range(-1, 1))
	genTime = rapid.Custom(func(t *rapid.T) time.Time {
		if rapid.IntRange(0, 9).Draw(t, "zero") == 0 {
			return time.Time{}
		}
		sec := rapid.OneOf(rapid.Int64Range(-2, 2), rapid.Int64Range(-1e11, 1e11)).Draw(t, "sec")
		ns := rapid.OneOf(rapid.Int64Range(0, 2), rapid.Int64Range(0, 999999999)).Draw(t, "ns")
		zone := rapid.SampledFrom([]*time.Location{time.UTC, time.FixedZone("E", 3600), time.FixedZone("W", -7*3600)}).Draw(t, "zone")
		return time.Unix(sec, ns).In(zone)
	})
	genBig = rapid.Custom(func(t *rapid.T) *big.Int {
		if rapid.IntRange(0, 5).Draw(t, "nil") == 0 {
			return nil
		}
		b := new(big.Int).SetBytes(rapid.SliceOfN(rapid.Byte(), 0, 17).Draw(t, "mag"))
		if rapid.Bool().Draw(t, "neg") {
			b.Neg(b)
		}
		return b
	})
	genBytes = rapid.SliceOfN(rapid.ByteRange(0, 3), 0, 4)
)

var genOrderKey = rapid.Custom(func(t *rapid.T) orderKey {
	return orderKey{genI64.Draw(t, "Customer"), genTime.Draw(t, "At"), genString.Draw(t, "ID")}
})

var (
	genU8    = rapid.OneOf(rapid.Uint8Range(0, 2), rapid.Uint8())
	genBool  = rapid.Bool()
	genEvent = rapid.Custom(func(t *rapid.T) eventKey {
		return eventKey{Region: genU8.Draw(t, "Region"), Kind: genLatin1.Draw(t, "Kind"), Score: genF64.Draw(t, "Score"),
			Big: genBig.Draw(t, "Big"), Flag: genBool.Draw(t, "Flag")}
	})
	genTenant = rapid.Custom(func(t *rapid.T) [4]byte {
		var b [4]byte
		copy(b[:], rapid.SliceOfN(rapid.ByteRange(0, 2), 4, 4).Draw(t, "tenant"))
		return b
	})
	genPath  = rapid.SliceOfN(genString, 0, 3)
	genInner = rapid.Custom(func(t *rapid.T) innerKey {
		return innerKey{rapid.Int8().Draw(t, "A"), genString.Draw(t, "B")}
	})
	genSeq    = rapid.SliceOfN(rapid.Int16Range(-2, 2), 0, 3)
	genOpt    = rapid.Ptr(rapid.OneOf(rapid.Int32Range(-2, 2), rapid.Int32()), true)
	genU64    = rapid.OneOf(rapid.Uint64Range(0, 2), rapid.Uint64(), rapid.Just(uint64(math.MaxUint64)))
	genNested = rapid.Custom(func(t *rapid.T) nestedKey {
		return nestedKey{genTenant.Draw(t, "Tenant"), genPath.Draw(t, "Path"), genInner.Draw(t, "Inner"),
			genSeq.Draw(t, "Seq"), genOpt.Draw(t, "Opt"), genU64.Draw(t, "N"), genBytes.Draw(t, "Blob")}
	})
)

// TestPropMarshalOrder checks that each struct type's bytes sort as its
// Go order says. CheckKeyOrder draws the second key of a pair mostly from
// the first's fields, so that pairs share prefixes.
func TestPropMarshalOrder(t *testing.T) {
	t.Run("orderKey", func(t *testing.T) { sexttest.CheckKeyOrder(t, genOrderKey, compareOrderKey) })
	t.Run("eventKey", func(t *testing.T) { sexttest.CheckKeyOrder(t, genEvent, compareEventKey) })
	t.Run("nestedKey", func(t *testing.T) { sexttest.CheckKeyOrder(t, genNested, compareNestedKey) })
}

// genTerm draws terms of every kind for term.Term and interface fields.
func genTerm(depth int) *rapid.Generator[term.Term] {
	return sexttest.Term(sexttest.Options{Depth: depth})
}

var genEverything = rapid.Custom(func(t *rapid.T) everything {
	v := everything{
		I: rapid.Int().Draw(t, "I"), I8: rapid.Int8().Draw(t, "I8"), I16: rapid.Int16().Draw(t, "I16"),
		I32: rapid.Int32().Draw(t, "I32"), I64: genI64.Draw(t, "I64"),
		U: rapid.Uint().Draw(t, "U"), U8: rapid.Uint8().Draw(t, "U8"), U16: rapid.Uint16().Draw(t, "U16"),
		U32: rapid.Uint32().Draw(t, "U32"), U64: genU64.Draw(t, "U64"), UP: rapid.Uintptr().Draw(t, "UP"),
		F32: float32(rapid.Float32Range(-1e30, 1e30).Draw(t, "F32")), F64: genF64.Draw(t, "F64"),
		B: genBool.Draw(t, "B"), S: genString.Draw(t, "S"), SA: genLatin1.Draw(t, "SA"), SC: genString.Draw(t, "SC"),
		Named: myString(genString.Draw(t, "Named")), Bytes: genBytes.Draw(t, "Bytes"),
		Ints: rapid.SliceOfN(rapid.Int(), 0, 3).Draw(t, "Ints"), Tup: rapid.SliceOfN(genString, 0, 3).Draw(t, "Tup"),
		M:   rapid.MapOfN(genString, rapid.Int(), 0, 3).Draw(t, "M"),
		MA:  rapid.MapOfN(genLatin1, rapid.SliceOfN(genLatin1, 0, 2), 0, 3).Draw(t, "MA"),
		P:   rapid.Ptr(rapid.Int(), true).Draw(t, "P"),
		Big: genBig.Draw(t, "Big"), T: genTime.Draw(t, "T"), D: time.Duration(genI64.Draw(t, "D")),
		Term: genTerm(2).Draw(t, "Term"), Color: color(rapid.IntRange(0, 2).Draw(t, "Color")),
		Money: money{genI64.Draw(t, "Cents"), rapid.SampledFrom([]string{"eur", "usd"}).Draw(t, "Cur")},
		Inner: genInner.Draw(t, "Inner"),
		Who:   person{Name: genString.Draw(t, "Name"), Age: rapid.Int().Draw(t, "Age"), Tags: rapid.SliceOfN(genLatin1, 0, 2).Draw(t, "Tags")},
	}
	copy(v.Arr[:], rapid.SliceOfN(rapid.Byte(), 3, 3).Draw(t, "Arr"))
	v.Arr2 = [2]int16{rapid.Int16().Draw(t, "Arr2"), rapid.Int16().Draw(t, "Arr2")}
	// A pointer to a nil pointer marshals as nil does, so is not drawn.
	if s := rapid.Ptr(genString, true).Draw(t, "PP"); s != nil {
		v.PP = &s
	}
	if b := genBig.Draw(t, "BigV"); b != nil {
		v.BigV.Set(b)
	}
	v.TP = rapid.Ptr(genTime, true).Draw(t, "TP")
	if rapid.Bool().Draw(t, "any") {
		v.Any = genTerm(1).Draw(t, "Any") // an empty interface comes back as a term
	}
	return v
})

// genValues draws values of many types, for the round trip and for the
// agreement of the two encoders.
var genValues = rapid.OneOf(
	genEverything.AsAny(),
	genOrderKey.AsAny(), genEvent.AsAny(), genNested.AsAny(),
	rapid.MapOfN(rapid.Int(), genString, 0, 5).AsAny(),
	rapid.MapOfN(genF64, rapid.SliceOfN(genBig, 0, 2), 0, 5).AsAny(),
	rapid.MapOfN(genTenant, genTime, 0, 3).AsAny(),
	rapid.SliceOfN(rapid.Ptr(genInner, true), 0, 4).AsAny(),
	rapid.SliceOfN(genTerm(3), 0, 3).AsAny(),
	genI64.AsAny(), genU64.AsAny(), genF64.AsAny(), genTime.AsAny(), genBig.AsAny(),
)

// TestPropMarshalRoundTrip checks Unmarshal(Marshal(v)) == v, and the same
// through terms. Times come back in UTC; go-cmp compares them with
// Time.Equal.
func TestPropMarshalRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValues.Draw(t, "v")
		b, err := sext.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(v))
		if err := sext.Unmarshal(b, back.Interface()); err != nil {
			t.Fatalf("Unmarshal: %v\n%x", err, b)
		}
		if d := gocmp.Diff(v, back.Elem().Interface(), cmpOpts); d != "" {
			t.Fatalf("round trip differs (-want +got):\n%s", d)
		}
		tm, err := sext.MarshalTerm(v)
		if err != nil {
			t.Fatal(err)
		}
		back = reflect.New(reflect.TypeOf(v))
		if err := sext.UnmarshalTerm(tm, back.Interface()); err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(v, back.Elem().Interface(), cmpOpts); d != "" {
			t.Fatalf("term round trip differs (-want +got):\n%s", d)
		}
	})
}

// TestPropMarshalMatchesTerm checks that the direct encoders write exactly
// what encoding the term of MarshalTerm gives, under each option.
func TestPropMarshalMatchesTerm(t *testing.T) {
	opts := []sext.Options{{}, {UTF8Atoms: true}, {Legacy: true}}
	rapid.Check(t, func(t *rapid.T) {
		v := genValues.Draw(t, "v")
		o := rapid.SampledFrom(opts).Draw(t, "opts")
		tm, err := sext.MarshalTerm(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := o.Encode(tm)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("pre")
		got, err := o.AppendMarshal(prefix, v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("AppendMarshal(%#v) = %x,\nEncode(MarshalTerm) = %x (%s)", v, got, want, tm)
		}
	})
}

// mutateTerm replaces one subterm of x, at a random depth, with a random
// term, so that decoders deep inside a value meet what they do not expect.
func mutateTerm(t *rapid.T, x term.Term, depth int) term.Term {
	if depth > 6 || rapid.IntRange(0, 3).Draw(t, "here") == 0 {
		return genTerm(2).Draw(t, "replacement")
	}
	switch {
	case x.Kind() == term.KindTuple && x.Len() > 0, x.Kind() == term.KindList && x.IsProper() && x.Len() > 0:
		elems := slices.Clone(x.Elems())
		i := rapid.IntRange(0, len(elems)-1).Draw(t, "elem")
		elems[i] = mutateTerm(t, elems[i], depth+1)
		if x.Kind() == term.KindTuple {
			return term.Tuple(elems...)
		}
		return term.List(elems...)
	case x.Kind() == term.KindMap && x.Len() > 0:
		entries := slices.Clone(x.Entries())
		i := rapid.IntRange(0, len(entries)-1).Draw(t, "entry")
		if rapid.Bool().Draw(t, "key") {
			entries[i].Key = mutateTerm(t, entries[i].Key, depth+1)
		} else {
			entries[i].Value = mutateTerm(t, entries[i].Value, depth+1)
		}
		return term.Map(entries...)
	case x.Kind() == term.KindDesc:
		return term.Desc(mutateTerm(t, x.Inner(), depth+1))
	}
	return genTerm(2).Draw(t, "replacement")
}

// TestPropUnmarshalUnexpected checks that terms that do not fit make
// errors, not panics, and that whatever is accepted marshals again.
func TestPropUnmarshalUnexpected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValues.Draw(t, "v")
		tm, err := sext.MarshalTerm(v)
		if err != nil {
			t.Fatal(err)
		}
		bad := mutateTerm(t, tm, 0)
		back := reflect.New(reflect.TypeOf(v))
		if err := sext.UnmarshalTerm(bad, back.Interface()); err != nil {
			return
		}
		if _, err := sext.Marshal(back.Interface()); err != nil {
			t.Fatalf("UnmarshalTerm(%s) succeeded but Marshal fails: %v", bad, err)
		}
	})
}

// TestMarshalDepthMatchesTerm checks that the direct encoders refuse a
// value nested deeper than MaxDepth exactly when encoding its term does.
func TestMarshalDepthMatchesTerm(t *testing.T) {
	type deep struct {
		L [][]string `sext:",charlist"`
		D innerKey   `sext:",desc"`
		M map[string][]int8
		S []int8 `sext:",tuple"`
		T term.Term
		X money
	}
	v := deep{L: [][]string{{"ab"}}, D: innerKey{1, "x"}, M: map[string][]int8{"k": {1}}, S: []int8{2},
		T: mustParse(t, "{[a]}"), X: money{1, "eur"}}
	for _, val := range []any{v, []deep{v}, [][]deep{{v}}, ptr([]any{[]any{v}})} {
		for depth := 1; depth <= 8; depth++ {
			o := sext.Options{MaxDepth: depth}
			tm, err := sext.MarshalTerm(val)
			if err != nil {
				t.Fatal(err)
			}
			want, werr := o.Encode(tm)
			got, gerr := o.Marshal(val)
			if (werr == nil) != (gerr == nil) || werr == nil && !bytes.Equal(got, want) {
				t.Fatalf("MaxDepth %d, %T: Marshal = %x, %v; Encode(MarshalTerm) = %x, %v", depth, val, got, gerr, want, werr)
			}
			if gerr != nil && !errors.Is(gerr, sext.ErrDepth) {
				t.Fatalf("MaxDepth %d: %v, want ErrDepth", depth, gerr)
			}
		}
	}
}

// benchKey is the four-field key of the allocation test and benchmarks.
type benchKey struct {
	Tenant uint32
	At     time.Time `sext:",desc"`
	User   string
	Seq    int64
}

var benchValue = benchKey{Tenant: 42, At: time.Date(2025, 3, 4, 5, 6, 7, 8, time.UTC), User: "user-12345", Seq: 1 << 40}

func BenchmarkAppendMarshal(b *testing.B) {
	buf := make([]byte, 0, 128)
	k := benchValue
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = sext.AppendMarshal(buf[:0], &k); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendHandBuiltTerm does what AppendMarshal does, by hand.
func BenchmarkAppendHandBuiltTerm(b *testing.B) {
	buf := make([]byte, 0, 128)
	k := benchValue
	b.ReportAllocs()
	for b.Loop() {
		t := term.Tuple(term.Int(int64(k.Tenant)), term.Desc(term.Int(k.At.UnixNano())),
			term.Binary([]byte(k.User)), term.Int(k.Seq))
		var err error
		if buf, err = sext.Append(buf[:0], t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalTerm(b *testing.B) {
	k := benchValue
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sext.MarshalTerm(&k); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	enc, _ := sext.Marshal(benchValue)
	var k benchKey
	b.ReportAllocs()
	for b.Loop() {
		if err := sext.Unmarshal(enc, &k); err != nil {
			b.Fatal(err)
		}
	}
}
