package sext

import (
	"errors"
	"strconv"

	"github.com/erlsext/sext/term"
)

// Sentinel errors. Every decoding error is a *DecodeError that wraps one of
// these, so errors.Is(err, sext.ErrTruncated) works through it.
var (
	// ErrTruncated: the input ends inside a term.
	ErrTruncated = errors.New("truncated input")
	// ErrTrailing: bytes follow the one term that Decode expects.
	ErrTrailing = errors.New("trailing bytes after term")
	// ErrTag: a byte where a term must start is no known type tag.
	ErrTag = errors.New("unknown type tag")
	// ErrFraming: the bit framing of a binary, atom or number is broken.
	ErrFraming = errors.New("broken framing")
	// ErrInvalid: the bytes are well framed but hold no valid term, such
	// as a float whose bits are inconsistent.
	ErrInvalid = errors.New("invalid term")
	// ErrDepth: the input nests deeper than the depth limit. It is
	// term.ErrDepth, so errors.Is matches either name.
	ErrDepth = term.ErrDepth
	// ErrSize: a size claim that the input cannot hold, or that exceeds a
	// limit.
	ErrSize = errors.New("size out of range")
	// ErrCanonical: canonical decoding met bytes that are not exactly the
	// encoding of the term they decode to.
	ErrCanonical = errors.New("not canonical")
	// ErrUnencodable: the term cannot be encoded (a NaN or infinite float,
	// an atom outside the atom encoding, a reference without ids).
	ErrUnencodable = errors.New("term cannot be encoded")
)

// DecodeError reports where and why decoding failed. Offset is the byte
// offset in the input where the failing item starts.
type DecodeError struct {
	Offset int
	Err    error  // one of the sentinel errors
	Detail string // what was found, for the message
}

func (e *DecodeError) Error() string {
	s := "sext: " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s + " at byte " + strconv.Itoa(e.Offset)
}

// Unwrap returns the sentinel error.
func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError reports a term that cannot be encoded.
type EncodeError struct {
	Err    error // ErrUnencodable or ErrDepth
	Detail string
}

func (e *EncodeError) Error() string { return "sext: " + e.Err.Error() + ": " + e.Detail }

// Unwrap returns the sentinel error.
func (e *EncodeError) Unwrap() error { return e.Err }

func errAt(off int, err error, detail string) error {
	return &DecodeError{Offset: off, Err: err, Detail: detail}
}
