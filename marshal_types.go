package sext

import (
	"reflect"
	"sync"

	"github.com/erlsext/sext/term"
)

// noTermTypes caches keepsNoTerm: reflect.Type -> bool.
var noTermTypes sync.Map

// keepsNoTerm reports whether a value of type t, decoded, keeps none of
// the term's memory: nowhere in it is a term.Term, an empty interface
// (which receives the term) or an Unmarshaler (which may keep it). Every
// other conversion copies what it takes.
func keepsNoTerm(t reflect.Type) bool {
	if v, ok := noTermTypes.Load(t); ok {
		return v.(bool)
	}
	ok := noTermIn(t, make(map[reflect.Type]bool))
	noTermTypes.Store(t, ok)
	return ok
}

func noTermIn(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	if t == termType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Interface:
		return false
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return noTermIn(t.Elem(), seen)
	case reflect.Map:
		return noTermIn(t.Key(), seen) && noTermIn(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if !noTermIn(t.Field(i).Type, seen) {
				return false
			}
		}
	}
	return true
}

// decodeFunc sets v, which is settable, from t. Terms are finite and Go
// types are, so decoding needs neither cycle checks nor depth counts.
type decodeFunc func(t term.Term, v reflect.Value) error

var unmarshalerType = reflect.TypeFor[Unmarshaler]()

// decoder returns the conversion of terms to values of type t.
func (b *builder) decodeFuncFor(t reflect.Type, o codecOpts) decodeFunc {
	switch {
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return decodeUnmarshaler
	case t == termType:
		return decodeTermValue
	case t == timeType:
		return decodeTime
	case t == bigIntType:
		return decodeBig
	}
	switch t.Kind() {
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	case reflect.String:
		switch o.str {
		case strAtom:
			return decodeAtomString
		case strCharlist:
			return decodeCharlist
		}
		return decodeBinaryString
	case reflect.Slice, reflect.Array:
		if isBytes(t, o) {
			return decodeBytes
		}
		return seqDecoder(b.compile(t.Elem(), codecOpts{str: o.str}), o.tuple)
	case reflect.Struct:
		return b.structCodec(t).decode
	case reflect.Map:
		elem := codecOpts{str: o.str}
		key := b.compile(t.Key(), elem)
		if t.Key().Kind() == reflect.Interface && t.Key().NumMethod() == 0 {
			key = &codec{dec: decodeInterfaceKey}
		}
		return mapDecoder(key, b.compile(t.Elem(), elem))
	case reflect.Pointer:
		return pointerDecoder(b.compile(t.Elem(), o))
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return decodeInterface
		}
	}
	return func(term.Term, reflect.Value) error { return &UnsupportedTypeError{Type: t} }
}

// A codec is the compiled conversion of one Go type (with the tag options
// that reach it): everything reflection can tell about the type is looked
// up once, when the codec is built, as encoding/json does, so that
// marshalling walks no type metadata.
type codec struct {
	app appendFunc
	dec decodeFunc
}

// appendFunc appends the encoding of v. Terms are never built on the way,
// except for the keys of Go maps (mapEncoder), and MarshalTerm reads the
// encoding back: the bytes are the one conversion.
type appendFunc func(dst []byte, v reflect.Value, c encCtx) ([]byte, error)

type codecKey struct {
	t reflect.Type
	o codecOpts
}

func loadCodec(k codecKey) *codec {
	var c any
	var ok bool
	if k.o == (codecOpts{}) {
		c, ok = plainCodecs.Load(k.t)
	} else {
		c, ok = optCodecs.Load(k)
	}
	if !ok {
		return nil
	}
	return c.(*codec)
}

// codecFor returns the codec of type t under options o, building it and
// the codecs it uses on first need.
func codecFor(t reflect.Type, o codecOpts) *codec {
	if c := loadCodec(codecKey{t, o}); c != nil {
		return c
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	b := builder{building: make(map[codecKey]*codec)}
	c := b.compile(t, o)
	// Every codec in building is complete now that the outermost is.
	for k, bc := range b.building {
		if k.o == (codecOpts{}) {
			plainCodecs.Store(k.t, bc)
		} else {
			optCodecs.Store(k, bc)
		}
	}
	return c
}

// builder builds codecs under compileMu. A type met again while its codec
// is being built (a recursive type) gets the unfinished codec, whose
// functions are read when called, by which time they are set.
type builder struct {
	building map[codecKey]*codec
}

func (b *builder) compile(t reflect.Type, o codecOpts) *codec {
	k := codecKey{t, o}
	if c := loadCodec(k); c != nil {
		return c
	}
	if c, ok := b.building[k]; ok {
		return c
	}
	c := new(codec)
	b.building[k] = c
	c.app = b.appendFuncFor(t, o)
	c.dec = b.decodeFuncFor(t, o)
	return c
}

// encoder returns the conversion of values of type t.
func (b *builder) appendFuncFor(t reflect.Type, o codecOpts) appendFunc {
	switch {
	case t.Implements(marshalerType):
		return marshalerEncoder(false)
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType):
		return marshalerEncoder(true)
	case t == termType:
		return appendTermValue
	case t == timeType:
		return appendTime
	case t == bigIntType:
		return appendBig
	}
	switch t.Kind() {
	case reflect.Bool:
		return appendBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return appendUint
	case reflect.Float32, reflect.Float64:
		return appendFloatValue
	case reflect.String:
		switch o.str {
		case strAtom:
			return appendAtomString
		case strCharlist:
			return appendCharlist
		}
		return appendBinaryString
	case reflect.Slice, reflect.Array:
		if isBytes(t, o) {
			return appendBytes
		}
		return seqEncoder(b.compile(t.Elem(), codecOpts{str: o.str}), o.tuple)
	case reflect.Struct:
		return b.structCodec(t).append
	case reflect.Map:
		elem := codecOpts{str: o.str}
		return mapEncoder(b.compile(t.Key(), elem), b.compile(t.Elem(), elem))
	case reflect.Pointer:
		return pointerEncoder(b.compile(t.Elem(), o))
	case reflect.Interface:
		return appendInterface
	}
	return unsupportedEncoder(t)
}

// isBytes tells whether a slice or array type marshals as a binary: its
// elements are bytes that convert in no way of their own.
func isBytes(t reflect.Type, o codecOpts) bool {
	e := t.Elem()
	return !o.tuple && e.Kind() == reflect.Uint8 &&
		!e.Implements(marshalerType) && !reflect.PointerTo(e).Implements(marshalerType) &&
		!reflect.PointerTo(e).Implements(unmarshalerType)
}

func unsupportedEncoder(t reflect.Type) appendFunc {
	return func(dst []byte, _ reflect.Value, _ encCtx) ([]byte, error) {
		return dst, &UnsupportedTypeError{Type: t}
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
