package sext

import (
	"math"
	"math/big"
	"reflect"
	"time"
)

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
