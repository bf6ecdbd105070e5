package sext

import (
	"reflect"
	"strconv"
	"strings"
)

// Errors of Marshal and Unmarshal. Each names the path of the failing value
// from the root, as Go would write it: "Order.Lines[2].Price" for the Price
// field of the third element of the Lines field of the Order passed in
// (pointers are followed silently). Paths are built as an error travels out
// of the value, so a successful call spends nothing on them.

// UnsupportedTypeError is returned for a Go type that has no term
// conversion: channels, functions, complex numbers, unsafe pointers,
// structs whose fields are all unexported, and interfaces with methods as
// Unmarshal targets.
type UnsupportedTypeError struct {
	Type reflect.Type
	Path string // of the value, from the root: "Order.Lines[2].Price"
}

// Error names the path and the type.
func (e *UnsupportedTypeError) Error() string {
	return "sext: " + e.Path + ": unsupported type " + e.Type.String()
}

// UnsupportedValueError is returned for a value of a supported type that
// has no encoding: a NaN or infinite float, a string outside the atom
// encoding, a string with invalid UTF-8 as a charlist, a pointer cycle, a
// value nested too deep, or map keys that collide. Err is an *EncodeError
// wrapping ErrUnencodable or ErrDepth, so errors.Is works through it.
type UnsupportedValueError struct {
	Path string // of the value, from the root: "Order.Lines[2].Price"
	Err  error
}

// Error names the path and why the value has no encoding.
func (e *UnsupportedValueError) Error() string {
	if ee, ok := e.Err.(*EncodeError); ok {
		return "sext: " + e.Path + ": " + ee.Err.Error() + ": " + ee.Detail
	}
	return "sext: " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *UnsupportedValueError) Unwrap() error { return e.Err }

// MarshalerError wraps an error returned by a MarshalTerm or UnmarshalTerm
// method.
type MarshalerError struct {
	Type reflect.Type
	Path string // of the value, from the root: "Order.Lines[2].Price"
	Func string // "MarshalTerm" or "UnmarshalTerm"
	Err  error
}

// Error names the path, the method and the type, then gives the method's error.
func (e *MarshalerError) Error() string {
	return "sext: " + e.Path + ": " + e.Func + " of " + e.Type.String() + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *MarshalerError) Unwrap() error { return e.Err }

// UnmarshalTypeError is returned when a term does not fit the Go value it
// is unmarshalled into: a term of another kind, an integer out of the
// type's range, a tuple of the wrong size, a record of another name.
type UnmarshalTypeError struct {
	Value  string       // the term, briefly: "int 300", "atom foo", "tuple of 3"
	Type   reflect.Type // the Go type it could not be stored in
	Path   string       // of the value, from the root: "Order.Lines[2].Price"
	Detail string       // why, when Value and Type do not say it: "out of range"
}

// Error names the path, the term and the Go type.
func (e *UnmarshalTypeError) Error() string {
	s := "sext: " + e.Path + ": cannot unmarshal " + e.Value + " into " + e.Type.String()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// InvalidUnmarshalError is returned for an Unmarshal target that is not a
// non-nil pointer.
type InvalidUnmarshalError struct {
	Type reflect.Type
}

// Error says what was passed instead of a non-nil pointer.
func (e *InvalidUnmarshalError) Error() string {
	switch {
	case e.Type == nil:
		return "sext: Unmarshal(nil)"
	case e.Type.Kind() != reflect.Pointer:
		return "sext: Unmarshal(non-pointer " + e.Type.String() + ")"
	}
	return "sext: Unmarshal(nil " + e.Type.String() + ")"
}

// TagError reports a struct tag that Marshal and Unmarshal cannot follow:
// an unknown option, an option that does not apply to the field's type,
// or a misplaced Record field. Ignoring a misspelt "desc" would silently
// change the order of keys, so tags are checked strictly.
type TagError struct {
	Struct reflect.Type
	Field  string // the Go name of the field
	Tag    string // the field's sext tag
	Detail string
	Path   string // of the struct
}

// Error names the path, the field and the tag, and says what is wrong.
func (e *TagError) Error() string {
	return "sext: " + e.Path + ": field " + e.Field + " of " + e.Struct.String() +
		": tag " + strconv.Quote(e.Tag) + ": " + e.Detail
}

// maxPath bounds an error's path; past it, outer segments are dropped for
// an ellipsis (a cyclic value's path would otherwise be very long).
const maxPath = 120

const ellipsis = "…"

func joinPath(seg, path string) string {
	if strings.HasPrefix(path, ellipsis) {
		return path
	}
	if len(seg)+len(path) > maxPath {
		return ellipsis + path
	}
	return seg + path
}

func (e *UnsupportedTypeError) path() *string  { return &e.Path }
func (e *UnsupportedValueError) path() *string { return &e.Path }
func (e *MarshalerError) path() *string        { return &e.Path }
func (e *UnmarshalTypeError) path() *string    { return &e.Path }
func (e *TagError) path() *string              { return &e.Path }

// withPath prefixes seg to the path of err. Only errors made afresh for
// this call carry a path, so changing them in place is safe.
func withPath(err error, seg string) error {
	if p, ok := err.(interface{ path() *string }); ok {
		*p.path() = joinPath(seg, *p.path())
	}
	return err
}

// atRoot finishes err's path with the name of the root value's type, which
// goes on even after an ellipsis.
func atRoot(err error, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.Name()
	if name == "" {
		name = t.String()
	}
	if p, ok := err.(interface{ path() *string }); ok {
		*p.path() = name + *p.path()
	}
	return err
}

func unsupportedValue(err error, detail string) *UnsupportedValueError {
	return &UnsupportedValueError{Err: &EncodeError{Err: err, Detail: detail}}
}
