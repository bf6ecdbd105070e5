package sext_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// OrderKey is a key type: an Erlang record {order, Customer, At, ID} whose
// encodings sort by customer, then newest first, then by ID.
type OrderKey struct {
	_        sext.Record `sext:"order"`
	Customer int64
	At       time.Time `sext:",desc"`
	ID       string
}

func ExampleMarshal() {
	day := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)
	keys := []OrderKey{
		{Customer: 2, At: day, ID: "a"},
		{Customer: 1, At: day, ID: "b"},
		{Customer: 1, At: day.Add(time.Hour), ID: "c"},
		{Customer: 1, At: day, ID: "a"},
	}
	var encoded [][]byte
	for i := range keys {
		b, err := sext.Marshal(&keys[i])
		if err != nil {
			panic(err)
		}
		encoded = append(encoded, b)
	}
	// A store sorts keys by their bytes; that is the order of the fields.
	slices.SortFunc(encoded, bytes.Compare)
	for _, b := range encoded {
		var k OrderKey
		if err := sext.Unmarshal(b, &k); err != nil {
			panic(err)
		}
		fmt.Println(k.Customer, k.At.Format(time.Kitchen), k.ID)
	}
	// Output:
	// 1 1:00AM c
	// 1 12:00AM a
	// 1 12:00AM b
	// 2 12:00AM a
}

func ExampleMarshalTerm() {
	k := OrderKey{Customer: 7, At: time.Unix(1700000000, 0), ID: "x1"}
	t, err := sext.MarshalTerm(k)
	if err != nil {
		panic(err)
	}
	fmt.Println(t)

	type Person struct {
		_    sext.Record `sext:",map"` // a map, keyed by field names
		Name string      `sext:"name"`
		Tags []string    `sext:"tags,atom"`
		Boss *Person     `sext:"boss"`
	}
	t, _ = sext.MarshalTerm(Person{Name: "ann", Tags: []string{"admin"}})
	fmt.Println(t)
	// Output:
	// {order,7,#Desc<1700000000000000000>,<<"x1">>}
	// #{boss => undefined,name => <<"ann">>,tags => [admin]}
}

func ExampleAppendMarshal() {
	type Event struct {
		Tenant uint32
		At     time.Time `sext:",desc"`
		User   string
		Seq    int64
	}
	e := Event{Tenant: 3, At: time.Unix(1700000000, 0), User: "u1", Seq: 9}
	buf := make([]byte, 0, 64)
	for range 3 {
		// A pointer and a reused buffer: no allocation.
		buf, _ = sext.AppendMarshal(buf[:0], &e)
	}
	t, _ := sext.Decode(buf)
	fmt.Println(t)
	// Output: {3,#Desc<1700000000000000000>,<<"u1">>,9}
}

func ExampleUnmarshal() {
	b, _ := sext.Encode(term.Tuple(term.Atom("order"), term.Int(42),
		term.Desc(term.Int(1700000000000000000)), term.Binary([]byte("z9"))))
	var k OrderKey
	if err := sext.Unmarshal(b, &k); err != nil {
		panic(err)
	}
	fmt.Println(k.Customer, k.At.Format(time.RFC3339), k.ID)

	// A term of another shape is refused, naming the field.
	b, _ = sext.Encode(term.Tuple(term.Atom("order"), term.Int(42), term.Int(0), term.Binary(nil)))
	err := sext.Unmarshal(b, &k)
	var te *sext.UnmarshalTypeError
	fmt.Println(errors.As(err, &te), te.Path)
	fmt.Println(err)
	// Output:
	// 42 2023-11-14T22:13:20Z z9
	// true OrderKey.At
	// sext: OrderKey.At: cannot unmarshal int 0 into time.Time: want a descending term
}

// Celsius converts itself: a value receiver for marshalling, a pointer
// receiver for unmarshalling.
type Celsius float64

// MarshalTerm writes the temperature as {celsius, Degrees}.
func (c Celsius) MarshalTerm() (term.Term, error) {
	return term.Tuple(term.Atom("celsius"), term.Float(float64(c))), nil
}

// UnmarshalTerm reads {celsius, Degrees}.
func (c *Celsius) UnmarshalTerm(t term.Term) error {
	if t.Kind() != term.KindTuple || t.Len() != 2 || t.Elems()[1].Kind() != term.KindFloat {
		return errors.New("want {celsius, Degrees}")
	}
	*c = Celsius(t.Elems()[1].Float())
	return nil
}

func ExampleMarshaler() {
	b, _ := sext.Marshal(Celsius(21.5))
	t, _ := sext.Decode(b)
	var c Celsius
	err := sext.Unmarshal(b, &c)
	fmt.Println(t, c, err)
	// Output: {celsius,21.5} 21.5 <nil>
}

func ExampleUnsupportedValueError() {
	type Reading struct {
		Sensor string
		Values []float64
	}
	_, err := sext.Marshal(Reading{Sensor: "s1", Values: []float64{1, nan()}})
	fmt.Println(err)
	fmt.Println(errors.Is(err, sext.ErrUnencodable))
	// Output:
	// sext: Reading.Values[1]: term cannot be encoded: float is not finite
	// true
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}
