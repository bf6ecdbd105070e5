package sext

import (
	"encoding/binary"
	"reflect"
	"strconv"

	"github.com/erlsext/sext/term"
)

// The conversions of values that hold others: slices and arrays, maps,
// pointers and interfaces; and of values that are terms already, term.Term
// and Marshaler implementations.

func appendTermValue(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	return c.appendTerm(dst, valueOf[term.Term](v))
}

// marshalerEncoder calls MarshalTerm; addr says that the method needs a
// pointer receiver. An unaddressable value is copied rather than encoded
// without the method: the encoding of a key must not depend on whether
// the caller passed a pointer.
func marshalerEncoder(addr bool) appendFunc {
	return func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
		var m Marshaler
		switch {
		case addr && v.CanAddr():
			m = v.Addr().Interface().(Marshaler)
		case addr:
			p := reflect.New(v.Type())
			p.Elem().Set(v)
			m = p.Interface().(Marshaler)
		case (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil():
			return append(dst, atomUndefined...), nil
		default:
			m = v.Interface().(Marshaler)
		}
		t, err := m.MarshalTerm()
		if err != nil {
			return dst, &MarshalerError{Type: v.Type(), Func: "MarshalTerm", Err: err}
		}
		return c.appendTerm(dst, t)
	}
}

func indexSeg(i int) string { return "[" + strconv.Itoa(i) + "]" }

// seqEncoder converts a slice or array to a list, or to a tuple.
func seqEncoder(elem *codec, tuple bool) appendFunc {
	return func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
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
}

// mapEncoder converts a Go map to an Erlang map. Its entries go in
// Erlang's map key order, which is not byte order (integers come before
// floats) and which only term.Map knows, so each key is written, read back
// as a term and sorted: maps are the one conversion that allocates when
// appending. The values stay as bytes.
func mapEncoder(key, val *codec) appendFunc {
	return func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
		k, err := c.enter(v)
		if err != nil {
			return dst, err
		}
		if err := c.open(); err != nil {
			return dst, err
		}
		keyOpts := Options{UTF8Atoms: c.e.utf8Atoms, MaxDepth: MaxDepthCeiling}
		var enc []byte // the entries' encodings, key then value
		var ends []int // where each entry's key and value end in enc
		var entries []term.MapEntry
		for it := v.MapRange(); it.Next(); {
			at := len(enc)
			if enc, err = key.app(enc, it.Key(), c); err != nil {
				return dst, withPath(err, keySeg(it.Key()))
			}
			kt, err := keyOpts.Decode(enc[at:])
			if err != nil {
				return dst, withPath(encodeErr(err), keySeg(it.Key()))
			}
			keyEnd := len(enc)
			if enc, err = val.app(enc, it.Value(), c); err != nil {
				return dst, withPath(err, keySeg(it.Key()))
			}
			// The value of the sorting entry is its index.
			entries = append(entries, term.MapEntry{Key: kt, Value: term.Int(int64(len(ends) / 2))})
			ends = append(ends, keyEnd, len(enc))
		}
		c.leave(k)
		n := len(entries)
		m := term.Map(entries...)
		if m.Len() != n {
			// Distinct Go keys can make equal terms: pointers to equal values.
			return dst, unsupportedValue(ErrUnencodable, "two map keys marshal to the same term")
		}
		dst = binary.BigEndian.AppendUint32(append(dst, tagList, markMap), uint32(n))
		for _, x := range m.Entries() {
			i := x.Value.Int64()
			start := 0
			if i > 0 {
				start = ends[2*i-1]
			}
			dst = append(dst, enc[start:ends[2*i+1]]...)
		}
		return dst, nil
	}
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

func pointerEncoder(elem *codec) appendFunc {
	return func(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
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
