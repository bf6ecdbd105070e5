package etf

import (
	"errors"
	"strconv"

	"github.com/erlsext/sext/term"
)

// Sentinel errors. Every decoding error is a *DecodeError that wraps one of
// these, so errors.Is(err, etf.ErrTruncated) works through it.
var (
	// ErrVersion: the input does not start with the version byte 131.
	ErrVersion = errors.New("no version byte 131")
	// ErrTruncated: the input ends inside a term.
	ErrTruncated = errors.New("truncated input")
	// ErrTrailing: bytes follow the one term that Decode expects.
	ErrTrailing = errors.New("trailing bytes after term")
	// ErrTag: a byte where a term must start is no known tag.
	ErrTag = errors.New("unknown tag")
	// ErrUnsupported: a known tag for something the term model cannot
	// hold: a fun, an export, an atom cache reference, a distribution
	// header or a LOCAL_EXT term.
	ErrUnsupported = errors.New("unsupported term")
	// ErrInvalid: the bytes are well formed but hold no valid term, such
	// as an atom that is not valid UTF-8 or a float text that is no number.
	ErrInvalid = errors.New("invalid term")
	// ErrDepth: the input nests deeper than the depth limit. It is
	// term.ErrDepth, so errors.Is matches either name.
	ErrDepth = term.ErrDepth
	// ErrSize: a size claim that the input cannot hold, or that exceeds a
	// limit (such as what a compressed term may inflate to).
	ErrSize = errors.New("size out of range")
	// ErrCompressed: the zlib stream of a compressed term is broken or
	// does not inflate to the size it claims.
	ErrCompressed = errors.New("broken compressed term")
	// ErrUnencodable: the term cannot be encoded (a NaN or infinite float,
	// a Desc, an atom that Erlang cannot hold, too many reference words).
	ErrUnencodable = errors.New("term cannot be encoded")
)

// DecodeError reports where and why decoding failed. Offset is the byte
// offset in the input where the failing item starts; inside a compressed
// term it is the offset in the inflated bytes, and Compressed is true.
type DecodeError struct {
	Offset     int
	Compressed bool
	Err        error  // one of the sentinel errors
	Detail     string // what was found, for the message
}

func (e *DecodeError) Error() string {
	s := "etf: " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Compressed {
		return s + " at byte " + strconv.Itoa(e.Offset) + " of the inflated term"
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

func (e *EncodeError) Error() string { return "etf: " + e.Err.Error() + ": " + e.Detail }

// Unwrap returns the sentinel error.
func (e *EncodeError) Unwrap() error { return e.Err }

func errAt(off int, err error, detail string) error {
	return &DecodeError{Offset: off, Err: err, Detail: detail}
}
