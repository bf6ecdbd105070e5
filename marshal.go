package sext

import (
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// Record is the type of a marker field that gives a struct its record
// name, so that it marshals as an Erlang record does: a tuple whose first
// element is the record's atom. The atom is the field's tag:
//
//	type Order struct {
//		_        sext.Record `sext:"order"` // {order, Customer, At, ID}
//		Customer int64
//		At       time.Time `sext:",desc"`
//		ID       string
//	}
//
// The atom goes where the field is declared, so declare it first. With the
// tag `sext:",map"` instead, the struct marshals as an Erlang map from
// field names to values, with no record name. A struct has at most one
// Record field; it takes no room in the struct.
type Record struct{}

// Marshaler is implemented by types that convert themselves to a term.
// Marshal encodes the term MarshalTerm returns, and calls it on a pointer
// receiver too, taking the value's address (or a copy's) as needed.
type Marshaler interface {
	MarshalTerm() (term.Term, error)
}

// Unmarshaler is implemented by types that set themselves from a term, the
// inverse of Marshaler. UnmarshalTerm must copy anything of the term it
// keeps: the term may share memory with the input.
type Unmarshaler interface {
	UnmarshalTerm(term.Term) error
}

// Marshal returns the encoding of the Go value v as a key: the byte order
// of encodings is the order of the values. It converts v to a term as
// MarshalTerm does and encodes that term, writing the bytes directly:
//
//   - Integers of every size, signed or unsigned, and big.Int: integers,
//     in numeric order.
//   - float32 and float64: floats, in numeric order, with -0.0 before
//     0.0. NaN and infinities are errors, as Erlang has neither.
//   - bool: the atoms false and true, in that order.
//   - string: a binary of its bytes. With the tag option "atom", an atom
//     (which must fit the atom encoding: Latin-1 unless
//     Options.UTF8Atoms); with "charlist", a list of its code points, as
//     Erlang writes strings (it must be valid UTF-8). All three sort as
//     Go compares strings.
//   - []byte and [N]byte: a binary, in bytes.Compare order (with the tag
//     option "tuple", a tuple of integers).
//   - Other slices and arrays: lists, which sort element by element, a
//     prefix first. With the tag option "tuple", tuples, which sort by
//     length first and then element by element.
//   - Structs: a tuple of their exported fields in declaration order, so
//     that keys sort field by field; a Record field adds the record's
//     atom. Embedded structs are fields like any other, not flattened.
//   - Maps: Erlang maps, which sort by size first, then entry by entry in
//     key order.
//   - Pointers: what they point to. A nil pointer or interface is the atom
//     undefined, as an Erlang record's unset field is. So nil sorts where
//     that atom does: after every number, before every tuple, list and
//     binary. A pointer to a value that marshals as undefined unmarshals
//     as nil.
//   - time.Time: an integer, nanoseconds since the Unix epoch (UTC), the
//     unit of Erlang's erlang:system_time(nanosecond). It sorts by instant
//     whatever the location, takes 15 bytes for present-day times, and
//     fits an int64 for the years 1678 to 2262 (beyond, it is a bignum,
//     which sorts all the same). The location and monotonic reading are
//     not kept: Unmarshal returns the same instant in UTC.
//   - term.Term: the term itself.
//   - A type that implements Marshaler: the term MarshalTerm returns.
//
// Channels, functions and complex numbers are errors, as are pointer
// cycles and structs whose fields are all unexported (a type defined on
// time.Time, say): all their values would make the same key. Unexported
// fields of other structs are left out, as encoding/json leaves them. A
// value nested deeper than Options.MaxDepth, which the decoders would
// refuse, is an error too. Every error names the path of the failing field.
//
// A struct field's tag, under the key "sext", is a name and options,
// separated by commas:
//
//	Field T `sext:"-"`              // left out
//	Field T `sext:",desc"`          // sorts in descending order (term.Desc)
//	Field string `sext:",atom"`     // atom; also for []string, map keys...
//	Field string `sext:",charlist"` // list of code points
//	Field []T `sext:",tuple"`       // tuple instead of list
//	Field T `sext:"name"`           // the key's name in a map-form struct
//
// Options combine ("name,desc,atom"). The name matters only for structs in
// map form, whose keys are the fields' names (Go names by default) as
// atoms; error paths use Go names. Unknown or misplaced options are
// errors, reported as *TagError, because a misspelt "desc" that is ignored
// silently reorders keys.
func Marshal(v any) ([]byte, error) { return Options{}.AppendMarshal(nil, v) }

// AppendMarshal appends the encoding of v, as Marshal returns it, to dst.
// Each type's conversion is worked out once and cached, so encoding a
// struct of numbers, strings and times into a buffer with room allocates
// nothing, when v is a pointer: a struct passed by value costs the one
// allocation Go makes to put it in an interface.
func AppendMarshal(dst []byte, v any) ([]byte, error) { return Options{}.AppendMarshal(dst, v) }

// Marshal returns the encoding of v under o (see the function Marshal).
func (o Options) Marshal(v any) ([]byte, error) { return o.AppendMarshal(nil, v) }

// AppendMarshal appends the encoding of v under o to dst. On error it
// returns dst unchanged.
func (o Options) AppendMarshal(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return append(dst, atomUndefined...), nil
	}
	out, err := codecFor(rv.Type(), codecOpts{}).app(dst, rv, encCtx{opts: o})
	if err != nil {
		err = atRoot(err, rv.Type())
	}
	return settle(dst, out, err)
}

// MarshalTerm converts v to the term that Marshal encodes (see Marshal).
// Encode(MarshalTerm(v)) gives the same bytes as Marshal(v). The term
// shares nothing with v that v could change later.
func MarshalTerm(v any) (term.Term, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return termUndefined, nil
	}
	t, err := codecFor(rv.Type(), codecOpts{}).term(rv, encCtx{})
	if err != nil {
		return term.Term{}, atRoot(err, rv.Type())
	}
	return t, nil
}

// The encodings of the atoms the conversions use; being ASCII they are the
// same in both atom encodings.
var (
	atomUndefined = encodedAtom("undefined")
	atomTrue      = encodedAtom("true")
	atomFalse     = encodedAtom("false")
	termUndefined = term.Atom("undefined")
)

func encodedAtom(name string) []byte {
	b, err := (&encoder{}).appendAtom([]byte{tagAtom}, name)
	if err != nil {
		panic(err)
	}
	return b
}

// encCtx is what an encoding carries down the value. It is passed by
// value: a pointer handed to the compiled functions, which are called
// through function values, would escape and cost an allocation a call.
type encCtx struct {
	opts Options
	refs int                  // pointers, slices, maps and interfaces entered
	nest int                  // compound terms open, as the encoder counts them
	seen map[seenKey]struct{} // what is being encoded, past cycleDepth
}

// seenKey identifies a pointer, map or slice on the path being encoded.
type seenKey struct {
	ptr uintptr
	len int
	typ reflect.Type
}

// cycleDepth is the depth past which references are tracked for cycles, as
// encoding/json does: shallow values, nearly all of them, pay nothing.
const cycleDepth = 1000

// enter counts a reference on the way to v and, deep down, checks that v
// is not already being encoded. Pass the key it returns to leave.
func (c *encCtx) enter(v reflect.Value) (seenKey, error) {
	c.refs++
	if c.refs <= cycleDepth {
		return seenKey{}, nil
	}
	if c.refs > c.opts.maxDepth() {
		return seenKey{}, unsupportedValue(ErrDepth, "value nested deeper than MaxDepth")
	}
	var k seenKey
	switch v.Kind() {
	case reflect.Pointer, reflect.Map:
		k = seenKey{ptr: v.Pointer(), typ: v.Type()}
	case reflect.Slice:
		k = seenKey{ptr: v.Pointer(), len: v.Len(), typ: v.Type()}
	default:
		return k, nil
	}
	if c.seen == nil {
		c.seen = make(map[seenKey]struct{})
	}
	if _, ok := c.seen[k]; ok {
		return seenKey{}, unsupportedValue(ErrUnencodable, "pointer cycle through "+v.Type().String())
	}
	c.seen[k] = struct{}{}
	return k, nil
}

func (c *encCtx) leave(k seenKey) {
	if k.typ != nil {
		delete(c.seen, k)
	}
}

// open counts a compound term (tuple, list, map or Desc) about to be
// written, refusing what the encoder would refuse to encode from the term
// (and the decoder to read back).
func (c *encCtx) open() error {
	if c.nest >= c.opts.maxDepth() {
		return unsupportedValue(ErrDepth, "term nested deeper than MaxDepth")
	}
	c.nest++
	return nil
}

// encoder returns an encoder for a term to be written at c's depth.
func (c *encCtx) encoder() encoder {
	e := newEncoder(c.opts)
	e.depth = c.nest
	return e
}

// appendFunc appends the encoding of v; termFunc converts v to a term.
// Compiled once per type (codecFor), they are the two halves of every
// conversion, kept apart so that appending need not build terms.
type (
	appendFunc func(dst []byte, v reflect.Value, c encCtx) ([]byte, error)
	termFunc   func(v reflect.Value, c encCtx) (term.Term, error)
)

var (
	marshalerType = reflect.TypeFor[Marshaler]()
	termType      = reflect.TypeFor[term.Term]()
	timeType      = reflect.TypeFor[time.Time]()
	bigIntType    = reflect.TypeFor[big.Int]()
	recordType    = reflect.TypeFor[Record]()
)

// encoders returns the conversions of values of type t.
func (b *builder) encoders(t reflect.Type, o codecOpts) (appendFunc, termFunc) {
	switch {
	case t.Implements(marshalerType):
		return marshalerEncoders(false)
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType):
		return marshalerEncoders(true)
	case t == termType:
		return appendTermValue, termTermValue
	case t == timeType:
		return appendTime, termTime
	case t == bigIntType:
		return appendBig, termBig
	}
	switch t.Kind() {
	case reflect.Bool:
		return appendBool, termBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendInt, termInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return appendUint, termUint
	case reflect.Float32, reflect.Float64:
		return appendFloatValue, termFloat
	case reflect.String:
		switch o.str {
		case strAtom:
			return appendAtomString, termAtomString
		case strCharlist:
			return appendCharlist, termCharlist
		}
		return appendBinaryString, termBinaryString
	case reflect.Slice, reflect.Array:
		if isBytes(t, o) {
			return appendBytes, termBytes
		}
		return seqEncoders(b.compile(t.Elem(), codecOpts{str: o.str}), o.tuple)
	case reflect.Struct:
		s := b.structCodec(t)
		return s.append, s.term
	case reflect.Map:
		elem := codecOpts{str: o.str}
		return mapEncoders(b.compile(t.Key(), elem), b.compile(t.Elem(), elem))
	case reflect.Pointer:
		return pointerEncoders(b.compile(t.Elem(), o))
	case reflect.Interface:
		return appendInterface, termInterface
	}
	return unsupportedEncoders(t)
}

// isBytes tells whether a slice or array type marshals as a binary: its
// elements are bytes that convert in no way of their own.
func isBytes(t reflect.Type, o codecOpts) bool {
	e := t.Elem()
	return !o.tuple && e.Kind() == reflect.Uint8 &&
		!e.Implements(marshalerType) && !reflect.PointerTo(e).Implements(marshalerType) &&
		!reflect.PointerTo(e).Implements(unmarshalerType)
}

func unsupportedEncoders(t reflect.Type) (appendFunc, termFunc) {
	return func(dst []byte, _ reflect.Value, _ encCtx) ([]byte, error) {
			return dst, &UnsupportedTypeError{Type: t}
		}, func(reflect.Value, encCtx) (term.Term, error) {
			return term.Term{}, &UnsupportedTypeError{Type: t}
		}
}

// valueOf returns the T that v holds without allocating: through its
// address if it has one, else from the memory v already points to.
func valueOf[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *v.Addr().Interface().(*T)
	}
	return v.Interface().(T)
}

func encodeErr(err error) error { return &UnsupportedValueError{Err: err} }

func appendBool(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	if v.Bool() {
		return append(dst, atomTrue...), nil
	}
	return append(dst, atomFalse...), nil
}

func termBool(v reflect.Value, _ encCtx) (term.Term, error) { return term.Bool(v.Bool()), nil }

func (e *encoder) appendInt64(dst []byte, i int64) []byte {
	if i < 0 {
		return e.appendIntPart(dst, magnitude{u: uint64(-i)}, true, false) // -MinInt64 wraps to 2^63
	}
	return e.appendIntPart(dst, magnitude{u: uint64(i)}, false, false)
}

func appendInt(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	e := newEncoder(c.opts)
	return e.appendInt64(dst, v.Int()), nil
}

func termInt(v reflect.Value, _ encCtx) (term.Term, error) { return term.Int(v.Int()), nil }

func appendUint(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	e := newEncoder(c.opts)
	return e.appendIntPart(dst, magnitude{u: v.Uint()}, false, false), nil
}

func termUint(v reflect.Value, _ encCtx) (term.Term, error) { return term.Uint(v.Uint()), nil }

func appendFloatValue(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	e := newEncoder(c.opts)
	out, err := e.appendFloat(dst, v.Float())
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

func termFloat(v reflect.Value, _ encCtx) (term.Term, error) {
	f := v.Float()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return term.Term{}, unsupportedValue(ErrUnencodable, "float is not finite")
	}
	return term.Float(f), nil
}

func appendBinaryString(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	dst = append(dst, tagBinary)
	start := len(dst)
	dst = append(dst, v.String()...)
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}

func termBinaryString(v reflect.Value, _ encCtx) (term.Term, error) {
	return term.Binary([]byte(v.String())), nil
}

func appendAtomString(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	e := newEncoder(c.opts)
	out, err := e.appendAtom(append(dst, tagAtom), v.String())
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

func termAtomString(v reflect.Value, _ encCtx) (term.Term, error) { return term.Atom(v.String()), nil }

const errCharlistUTF8 = "string is not valid UTF-8, so has no charlist"

func appendCharlist(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	if err := c.open(); err != nil {
		return dst, err
	}
	e := newEncoder(c.opts)
	s := v.String()
	start := len(dst)
	dst = append(dst, tagList)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return dst[:start], unsupportedValue(ErrUnencodable, errCharlistUTF8)
		}
		dst = e.appendInt64(dst, int64(r))
		i += n
	}
	return append(dst, markEnd), nil
}

func termCharlist(v reflect.Value, _ encCtx) (term.Term, error) {
	s := v.String()
	if !utf8.ValidString(s) {
		return term.Term{}, unsupportedValue(ErrUnencodable, errCharlistUTF8)
	}
	elems := make([]term.Term, 0, len(s))
	for _, r := range s {
		elems = append(elems, term.Int(int64(r)))
	}
	return term.List(elems...), nil
}

// appendByteValues appends the bytes of a byte slice or array.
func appendByteValues(dst []byte, v reflect.Value) []byte {
	if v.Kind() == reflect.Slice || v.CanAddr() {
		return append(dst, v.Bytes()...)
	}
	for i := range v.Len() {
		dst = append(dst, byte(v.Index(i).Uint()))
	}
	return dst
}

func appendBytes(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	dst = append(dst, tagBinary)
	start := len(dst)
	dst = appendByteValues(dst, v)
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}

func termBytes(v reflect.Value, _ encCtx) (term.Term, error) {
	return term.Binary(appendByteValues(nil, v)), nil
}

func appendTermValue(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	e := c.encoder()
	out, err := e.appendTerm(dst, valueOf[term.Term](v))
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

func termTermValue(v reflect.Value, _ encCtx) (term.Term, error) { return valueOf[term.Term](v), nil }

const nsPerSec = 1_000_000_000

// timeNanos returns t's nanoseconds since the Unix epoch, and false if
// they do not fit in an int64.
func timeNanos(t time.Time) (int64, bool) {
	sec := t.Unix()
	if sec < math.MinInt64/nsPerSec || sec >= math.MaxInt64/nsPerSec {
		return 0, false
	}
	return sec*nsPerSec + int64(t.Nanosecond()), true
}

func bigTimeNanos(t time.Time) *big.Int {
	n := new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(nsPerSec))
	return n.Add(n, big.NewInt(int64(t.Nanosecond())))
}

func appendTime(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	t := valueOf[time.Time](v)
	e := newEncoder(c.opts)
	if ns, ok := timeNanos(t); ok {
		return e.appendInt64(dst, ns), nil
	}
	return e.appendTerm(dst, term.BigInt(bigTimeNanos(t)))
}

func termTime(v reflect.Value, _ encCtx) (term.Term, error) {
	t := valueOf[time.Time](v)
	if ns, ok := timeNanos(t); ok {
		return term.Int(ns), nil
	}
	return term.BigInt(bigTimeNanos(t)), nil
}

// bigOf returns the big.Int v holds, copying it (shallowly, to read)
// only when v has no address.
func bigOf(v reflect.Value) *big.Int {
	if v.CanAddr() {
		return v.Addr().Interface().(*big.Int)
	}
	b := v.Interface().(big.Int)
	return &b
}

func appendBig(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	b := bigOf(v)
	e := newEncoder(c.opts)
	if b.IsInt64() {
		return e.appendInt64(dst, b.Int64()), nil
	}
	return e.appendInt(dst, magnitude{b: b.Bits()}, b.Sign() < 0)
}

func termBig(v reflect.Value, _ encCtx) (term.Term, error) { return term.BigInt(bigOf(v)), nil }

// marshalerEncoders call MarshalTerm; addr says that the method needs a
// pointer receiver. An unaddressable value is copied rather than encoded
// without the method: the encoding of a key must not depend on whether
// the caller passed a pointer.
func marshalerEncoders(addr bool) (appendFunc, termFunc) {
	tf := func(v reflect.Value, _ encCtx) (term.Term, error) {
		var m Marshaler
		switch {
		case addr && v.CanAddr():
			m = v.Addr().Interface().(Marshaler)
		case addr:
			p := reflect.New(v.Type())
			p.Elem().Set(v)
			m = p.Interface().(Marshaler)
		case (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil():
			return termUndefined, nil
		default:
			m = v.Interface().(Marshaler)
		}
		t, err := m.MarshalTerm()
		if err != nil {
			return term.Term{}, &MarshalerError{Type: v.Type(), Func: "MarshalTerm", Err: err}
		}
		return t, nil
	}
	return viaTerm(tf), tf
}

// viaTerm makes the bytes encoder of a type that is encoded by building
// its term first (Marshaler implementations, Go maps, which must be sorted).
func viaTerm(tf termFunc) appendFunc {
	return func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
		t, err := tf(v, c)
		if err != nil {
			return dst, err
		}
		e := c.encoder()
		out, err := e.appendTerm(dst, t)
		if err != nil {
			return dst, encodeErr(err)
		}
		return out, nil
	}
}

func indexSeg(i int) string { return "[" + strconv.Itoa(i) + "]" }

// seqEncoders convert a slice or array to a list, or to a tuple.
func seqEncoders(elem *codec, tuple bool) (appendFunc, termFunc) {
	af := func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
		var k seenKey
		if v.Kind() == reflect.Slice {
			var err error
			if k, err = c.enter(v); err != nil {
				return dst, err
			}
		}
		if err := c.open(); err != nil {
			return dst, err
		}
		n := v.Len()
		if tuple {
			dst = binary.BigEndian.AppendUint32(append(dst, tagTuple), uint32(n))
		} else {
			dst = append(dst, tagList)
		}
		for i := range n {
			var err error
			if dst, err = elem.app(dst, v.Index(i), c); err != nil {
				return dst, withPath(err, indexSeg(i))
			}
		}
		c.leave(k)
		if !tuple {
			dst = append(dst, markEnd)
		}
		return dst, nil
	}
	tf := func(v reflect.Value, c encCtx) (term.Term, error) {
		var k seenKey
		if v.Kind() == reflect.Slice {
			var err error
			if k, err = c.enter(v); err != nil {
				return term.Term{}, err
			}
		}
		elems := make([]term.Term, v.Len())
		for i := range elems {
			var err error
			if elems[i], err = elem.term(v.Index(i), c); err != nil {
				return term.Term{}, withPath(err, indexSeg(i))
			}
		}
		c.leave(k)
		if tuple {
			return term.Tuple(elems...), nil
		}
		return term.List(elems...), nil
	}
	return af, tf
}

// mapEncoders convert a Go map to an Erlang map. Entries must be written
// in Erlang's map key order, which term.Map knows, so both directions
// build the term; maps are the one conversion that allocates when
// appending.
func mapEncoders(key, val *codec) (appendFunc, termFunc) {
	var tf termFunc
	tf = func(v reflect.Value, c encCtx) (term.Term, error) {
		k, err := c.enter(v)
		if err != nil {
			return term.Term{}, err
		}
		entries := make([]term.MapEntry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			kt, err := key.term(it.Key(), c)
			if err != nil {
				return term.Term{}, withPath(err, keySeg(it.Key()))
			}
			vt, err := val.term(it.Value(), c)
			if err != nil {
				return term.Term{}, withPath(err, keySeg(it.Key()))
			}
			entries = append(entries, term.MapEntry{Key: kt, Value: vt})
		}
		c.leave(k)
		n := len(entries)
		m := term.Map(entries...)
		if m.Len() != n {
			// Distinct Go keys can make equal terms: pointers to equal values.
			return term.Term{}, unsupportedValue(ErrUnencodable, "two map keys marshal to the same term")
		}
		return m, nil
	}
	return viaTerm(tf), tf
}

// keySeg is the path segment of a map entry, written as Go would index it.
func keySeg(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return "[" + strconv.Quote(k.String()) + "]"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "[" + strconv.FormatInt(k.Int(), 10) + "]"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "[" + strconv.FormatUint(k.Uint(), 10) + "]"
	}
	return "[" + k.Type().String() + " key]"
}

func pointerEncoders(elem *codec) (appendFunc, termFunc) {
	af := func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
		if v.IsNil() {
			return append(dst, atomUndefined...), nil
		}
		k, err := c.enter(v)
		if err != nil {
			return dst, err
		}
		dst, err = elem.app(dst, v.Elem(), c)
		c.leave(k)
		return dst, err
	}
	tf := func(v reflect.Value, c encCtx) (term.Term, error) {
		if v.IsNil() {
			return termUndefined, nil
		}
		k, err := c.enter(v)
		if err != nil {
			return term.Term{}, err
		}
		t, err := elem.term(v.Elem(), c)
		c.leave(k)
		return t, err
	}
	return af, tf
}

// An interface holds values of any type, converted as if given alone:
// struct tag options do not reach into it.
func appendInterface(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	if v.IsNil() {
		return append(dst, atomUndefined...), nil
	}
	if _, err := c.enter(v); err != nil {
		return dst, err
	}
	e := v.Elem()
	return codecFor(e.Type(), codecOpts{}).app(dst, e, c)
}

func termInterface(v reflect.Value, c encCtx) (term.Term, error) {
	if v.IsNil() {
		return termUndefined, nil
	}
	if _, err := c.enter(v); err != nil {
		return term.Term{}, err
	}
	e := v.Elem()
	return codecFor(e.Type(), codecOpts{}).term(e, c)
}
