package sext

import (
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// encCtx is what an encoding carries down the value. It is passed by
// value: a pointer handed to the compiled functions, which are called
// through function values, would escape and cost an allocation a call.
type encCtx struct {
	// e is the encoder every conversion writes with; e.depth counts the
	// compound terms open, as encoding the term would.
	e     encodeState
	descs int                  // desc fields open, one inside another
	refs  int                  // pointers, slices, maps and interfaces entered
	seen  map[seenKey]struct{} // what is being encoded, past cycleDepth
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
	if c.refs > c.e.maxDepth {
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
	if c.e.depth >= c.e.maxDepth {
		return unsupportedValue(ErrDepth, "term nested deeper than MaxDepth")
	}
	c.e.depth++
	return nil
}

// appendTerm writes t at c's depth, as the rest of the value is written.
func (c *encCtx) appendTerm(dst []byte, t term.Term) ([]byte, error) {
	out, err := c.e.appendTerm(dst, t)
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

func encodeErr(err error) error { return &UnsupportedValueError{Err: err} }

// The conversions of numbers: Go's integers, floats, big.Int and
// time.Time, and bool, whose atoms sort as false < true.

func appendBool(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	if v.Bool() {
		return append(dst, atomTrue...), nil
	}
	return append(dst, atomFalse...), nil
}

func (e *encodeState) appendInt64(dst []byte, i int64) []byte {
	if i < 0 {
		return e.appendIntPart(dst, magnitude{u: uint64(-i)}, true, false) // -MinInt64 wraps to 2^63
	}
	return e.appendIntPart(dst, magnitude{u: uint64(i)}, false, false)
}

func appendInt(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	return c.e.appendInt64(dst, v.Int()), nil
}

func appendUint(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	return c.e.appendIntPart(dst, magnitude{u: v.Uint()}, false, false), nil
}

func appendFloatValue(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	out, err := c.e.appendFloat(dst, v.Float())
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

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
	if ns, ok := timeNanos(t); ok {
		return c.e.appendInt64(dst, ns), nil
	}
	return c.appendBig(dst, bigTimeNanos(t))
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
	return c.appendBig(dst, bigOf(v))
}

func (c *encCtx) appendBig(dst []byte, b *big.Int) ([]byte, error) {
	if b.IsInt64() {
		return c.e.appendInt64(dst, b.Int64()), nil
	}
	out, err := c.e.appendInt(dst, magnitude{b: b.Bits()}, b.Sign() < 0)
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

// The conversions of strings and bytes: binaries by default, atoms and
// charlists by tag.

func appendBinaryString(dst []byte, v reflect.Value, _ encCtx) ([]byte, error) {
	dst = append(dst, tagBinary)
	start := len(dst)
	dst = append(dst, v.String()...)
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}

func appendAtomString(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	out, err := c.e.appendAtom(append(dst, tagAtom), v.String())
	if err != nil {
		return dst, encodeErr(err)
	}
	return out, nil
}

const errCharlistUTF8 = "string is not valid UTF-8, so has no charlist"

func appendCharlist(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	if err := c.open(); err != nil {
		return dst, err
	}
	s := v.String()
	start := len(dst)
	dst = append(dst, tagList)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return dst[:start], unsupportedValue(ErrUnencodable, errCharlistUTF8)
		}
		dst = c.e.appendInt64(dst, int64(r))
		i += n
	}
	return append(dst, markEnd), nil
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

var (
	marshalerType = reflect.TypeFor[Marshaler]()
	termType      = reflect.TypeFor[term.Term]()
	timeType      = reflect.TypeFor[time.Time]()
	bigIntType    = reflect.TypeFor[big.Int]()
	recordType    = reflect.TypeFor[Record]()
)
