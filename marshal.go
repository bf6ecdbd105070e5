package sext

import (
	"reflect"
	"sync"

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
// of encodings is the order of the values. It writes the bytes
// directly, building no term (MarshalTerm reads them back as one). Go
// values become these terms:
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
//     A struct whose Record field is tagged `sext:",map"` is an Erlang map
//     from its field names (atoms) to their values instead.
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
//	_ sext.Record `sext:"order"`    // {order, ...}: a record (first field)
//	_ sext.Record `sext:",map"`     // a map from field names to values
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
	out, err := codecFor(rv.Type(), codecOpts{}).app(dst, rv, encCtx{e: o.encodeState()})
	if err != nil {
		err = atRoot(err, rv.Type())
	}
	return settle(dst, out, err)
}

// MarshalTerm converts v to the term that Marshal encodes (see Marshal):
// Encode(MarshalTerm(v)) gives the same bytes as Marshal(v), and under any
// Options o, o.Encode(MarshalTerm(v)) gives what o.Marshal(v) does, the
// same bytes or an error, for MaxDepth up to DefaultMaxDepth. The term
// shares nothing with v.
//
// It is Marshal's encoding decoded again: one conversion, so the two
// cannot disagree. The encoding is written with UTF-8 atoms, so that the
// term may hold atoms that only Options.UTF8Atoms can encode, and the
// default MaxDepth.
func MarshalTerm(v any) (term.Term, error) {
	bp := termScratch.Get().(*[]byte)
	b, err := marshalTermOptions.AppendMarshal((*bp)[:0], v)
	var t term.Term
	if err == nil {
		t, err = marshalTermOptions.Decode(b) // Decode copies what it keeps: t does not hold b
	}
	if cap(b) <= maxTermScratch {
		*bp = b[:0]
		termScratch.Put(bp)
	}
	return t, err
}

var (
	marshalTermOptions = Options{UTF8Atoms: true}

	// termScratch holds MarshalTerm's encodings between calls.
	termScratch = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}
)

// maxTermScratch bounds the buffers termScratch keeps, so that one huge
// value does not pin its encoding's memory.
const maxTermScratch = 64 << 10

// The encodings of the atoms the conversions use; being ASCII they are the
// same in both atom encodings.
var (
	atomUndefined = encodedAtom("undefined")
	atomTrue      = encodedAtom("true")
	atomFalse     = encodedAtom("false")
)

func encodedAtom(name string) []byte {
	b, err := (&encodeState{}).appendAtom([]byte{tagAtom}, name)
	if err != nil {
		panic(err)
	}
	return b
}

// Unmarshal decodes b, which must hold exactly one term, into the value v
// points to, inverting Marshal: it accepts what Marshal writes for the
// type and refuses anything else with an *UnmarshalTypeError naming the
// field, so that a key read back is exactly the key written. Integers must
// fit the Go type, floats must fit a float32 exactly, tuples must have the
// struct's or array's size and a record's atom must match.
//
// Slices and maps are replaced, not merged into; an empty list, binary or
// map gives a nil slice or map, since the encoding cannot tell nil from
// empty. A non-nil pointer is decoded through; a nil one is allocated; the
// atom undefined makes it nil. An empty interface receives the term.Term,
// which loses nothing (an atom stays apart from a binary, a tuple from a
// list); read into the struct that wrote a value to get Go values back,
// or into store.Table's type for tables of records. A map's keys convert
// as its key type's values do: atom keys, as a map-form struct writes,
// need string keys tagged "atom" (or the struct itself).
// Struct fields absent from a map-form struct's map keep their values.
// Unmarshal stops at the first error, leaving v partly set.
func Unmarshal(b []byte, v any) error { return Options{}.Unmarshal(b, v) }

// Unmarshal decodes b under o into the value v points to.
func (o Options) Unmarshal(b []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	// Decoding into values recurses: the terms must be within its ceiling.
	o.MaxDepth = o.maxDepth()
	p := planFor(rv.Type().Elem())
	if p.direct != nil && !o.Canonical && o.unmarshalDirect(p.direct, b, rv.Elem()) {
		return nil
	}
	return o.unmarshalViaTerm(b, rv, p.noTerm)
}

// unmarshalViaTerm is Unmarshal on the term path: b decoded to a term,
// the term converted.
func (o Options) unmarshalViaTerm(b []byte, rv reflect.Value, noTerm bool) error {
	if noTerm {
		// The value will hold none of the term's memory, so the term is
		// built in a pooled arena and never copied out of it.
		s := scratchPool.Get().(*scratchSpace)
		t, _, err := o.decodeReused(s, b, continuation, true)
		if err == nil {
			err = unmarshalTerm(t, rv)
		}
		s.a.reset()
		s.release()
		return err
	}
	t, err := o.Decode(b)
	if err != nil {
		return err
	}
	return unmarshalTerm(t, rv)
}

// UnmarshalTerm sets the value v points to from the term t, as Unmarshal
// does from an encoding. Strings, byte slices and numbers are copied out
// of t, but a term.Term or empty interface in the value receives the part
// of t it stands for, and an Unmarshaler is handed it: those share t's
// memory. A term nested deeper than MaxDepthCeiling fails with ErrDepth:
// decoding recurses.
func UnmarshalTerm(t term.Term, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	if deeperThan(t, MaxDepthCeiling) {
		return errAt(0, ErrDepth, "term nested deeper than MaxDepthCeiling")
	}
	return unmarshalTerm(t, rv)
}
