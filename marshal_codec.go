package sext

import (
	"math/big"
	"reflect"
	"sync"
	"time"

	"github.com/erlsext/sext/term"
)

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

var (
	// plainCodecs holds the codecs of types without options, keyed by the
	// type alone: a reflect.Type goes into an interface without allocating,
	// which a codecKey would not.
	plainCodecs sync.Map // reflect.Type -> *codec
	optCodecs   sync.Map // codecKey -> *codec

	// compileMu serializes building, which is rare, so that a recursive
	// type's half-built codec is never seen by another goroutine.
	compileMu sync.Mutex
)

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

var (
	marshalerType = reflect.TypeFor[Marshaler]()
	termType      = reflect.TypeFor[term.Term]()
	timeType      = reflect.TypeFor[time.Time]()
	bigIntType    = reflect.TypeFor[big.Int]()
	recordType    = reflect.TypeFor[Record]()
)

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
