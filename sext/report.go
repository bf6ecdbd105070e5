package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// A report is one line on stderr, "sext: WHERE: WHAT". describe writes
// WHAT: the position an error carries first (the column of a text, the
// byte of an encoding), since a report of many lines is read by where,
// then the error in the library's own words. The typed errors are
// written from their fields, which their Error methods put in another
// order; every other error is printed as it is.

// contextError says which part of an input item an error is in ("the
// value"), without changing how the error itself is written.
type contextError struct {
	what string
	err  error
}

func (e *contextError) Error() string { return e.what + ": " + e.err.Error() }
func (e *contextError) Unwrap() error { return e.err }

// within puts err in the context what; nil stays nil.
func within(what string, err error) error {
	if err == nil {
		return nil
	}
	return &contextError{what, err}
}

// textError marks an error in the hex or sb32 text of an encoding; its
// offset counts characters of the line as read, blanks included.
type textError struct {
	off int // offset in the line as read
	err *sext.DecodeError
}

func (e *textError) Error() string { return e.err.Error() }
func (e *textError) Unwrap() error { return e.err }

// describe formats an error for a one-line report (see above).
func describe(err error) string {
	var (
		ce *contextError
		te *textError
		se *term.SyntaxError
		de *sext.DecodeError
		ee *sext.EncodeError
		xd *etf.DecodeError
		xe *etf.EncodeError
	)
	switch {
	case errors.As(err, &ce):
		return ce.what + ": " + describe(ce.err)
	case errors.As(err, &te):
		return fmt.Sprintf("column %d: %s", te.off+1, withDetail(te.err.Err, te.err.Detail))
	case errors.As(err, &se):
		if se.Line > 1 {
			return fmt.Sprintf("line %d, column %d: %s", se.Line, se.Column, se.Msg)
		}
		return fmt.Sprintf("column %d: %s", se.Column, se.Msg)
	case errors.As(err, &de):
		return fmt.Sprintf("byte %d: %s", de.Offset, withDetail(de.Err, de.Detail))
	case errors.As(err, &ee):
		msg := withDetail(ee.Err, ee.Detail)
		if errors.Is(ee.Err, sext.ErrUnencodable) && strings.Contains(ee.Detail, "UTF8Atoms") {
			msg += "; the command's flag for UTF8Atoms is --utf8-atoms"
		}
		return msg
	case errors.As(err, &xd):
		where := fmt.Sprintf("byte %d", xd.Offset)
		if xd.Compressed {
			where += " of the inflated term"
		}
		return where + ": " + withDetail(xd.Err, xd.Detail)
	case errors.As(err, &xe):
		return withDetail(xe.Err, xe.Detail)
	}
	return err.Error()
}

// withDetail writes a sentinel and the detail a typed error adds to it.
func withDetail(sentinel error, detail string) string {
	if detail == "" {
		return sentinel.Error()
	}
	return sentinel.Error() + ": " + detail
}

// storeErr formats an error from the store for one line: a corrupt
// file's error names the file, then what Pebble said of it; only the
// first line is kept, since Pebble's corruption errors carry multi-line
// hints.
func storeErr(err error) string {
	msg := describe(err)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
