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
	c.app, c.dec = b.funcs(t, o)
	return c
}

// funcs returns both conversions of type t under o, chosen by one switch:
// values of t to their encoding, and terms to values of t.
func (b *builder) funcs(t reflect.Type, o codecOpts) (appendFunc, decodeFunc) {
	app, dec := b.funcsOf(t, o)
	switch {
	case t.Implements(marshalerType):
		app = marshalerEncoder(false)
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType):
		app = marshalerEncoder(true)
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		dec = decodeUnmarshaler
	}
	return app, dec
}

// funcsOf is funcs for a type without conversions of its own.
func (b *builder) funcsOf(t reflect.Type, o codecOpts) (appendFunc, decodeFunc) {
	switch t {
	case termType:
		return appendTermValue, decodeTermValue
	case timeType:
		return appendTime, decodeTime
	case bigIntType:
		return appendBig, decodeBig
	}
	switch t.Kind() {
	case reflect.Bool:
		return appendBool, decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendInt, decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return appendUint, decodeUint
	case reflect.Float32, reflect.Float64:
		return appendFloatValue, decodeFloat
	case reflect.String:
		switch o.str {
		case strAtom:
			return appendAtomString, decodeAtomString
		case strCharlist:
			return appendCharlist, decodeCharlist
		}
		return appendBinaryString, decodeBinaryString
	case reflect.Slice, reflect.Array:
		if isBytes(t, o) {
			return appendBytes, decodeBytes
		}
		elem := b.compile(t.Elem(), codecOpts{str: o.str})
		return seqEncoder(elem, o.tuple), seqDecoder(elem, o.tuple)
	case reflect.Struct:
		sc := b.structCodec(t)
		return sc.append, sc.decode
	case reflect.Map:
		elem := codecOpts{str: o.str}
		key, val := b.compile(t.Key(), elem), b.compile(t.Elem(), elem)
		decKey := key
		if t.Key().Kind() == reflect.Interface && t.Key().NumMethod() == 0 {
			decKey = &codec{dec: decodeInterfaceKey}
		}
		return mapEncoder(key, val), mapDecoder(decKey, val)
	case reflect.Pointer:
		elem := b.compile(t.Elem(), o)
		return pointerEncoder(elem), pointerDecoder(elem)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return appendInterface, decodeInterface
		}
		return appendInterface, unsupportedDecoder(t)
	}
	return unsupportedEncoder(t), unsupportedDecoder(t)
}

// isBytes tells whether a slice or array type marshals as a binary: its
// elements are bytes that convert in no way of their own.
func isBytes(t reflect.Type, o codecOpts) bool {
	e := t.Elem()
	return !o.tuple && e.Kind() == reflect.Uint8 &&
		!e.Implements(marshalerType) && !reflect.PointerTo(e).Implements(marshalerType) &&
		!reflect.PointerTo(e).Implements(unmarshalerType)
}

func unsupportedDecoder(t reflect.Type) decodeFunc {
	return func(term.Term, reflect.Value) error { return &UnsupportedTypeError{Type: t} }
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
