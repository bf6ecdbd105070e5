package sext

import (
	"reflect"

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
