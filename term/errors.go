package term

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrSyntax is the sentinel that every SyntaxError about malformed text
// wraps, so callers can test with errors.Is without caring about position.
var ErrSyntax = errors.New("term: syntax error")

// ErrDigits is the sentinel a SyntaxError wraps when an integer has more
// digits than ParseOptions.MaxIntDigits allows: converting digits to binary
// takes time quadratic in their number, so the text is refused to bound it.
var ErrDigits = errors.New("term: integer has too many digits")

// ErrUnprintable is returned by AppendText and MarshalText for a term whose
// text Parse could not read back exactly: a NaN or infinite float, an atom
// name that is not valid UTF-8, or a reference without id words. String
// still prints such terms, in a form Parse refuses.
var ErrUnprintable = errors.New("term: term has no text form")

// SyntaxError reports where and why text could not be parsed as a term.
type SyntaxError struct {
	Offset int    // byte offset of the error in the input, from 0
	Line   int    // line number, from 1
	Column int    // column in characters (runes) of the line, from 1
	Msg    string // description of the problem
	Err    error  // ErrSyntax, ErrDepth or ErrDigits
}

// Error returns the position and message, as in "line 1, column 5:
// unexpected ']'".
func (e *SyntaxError) Error() string {
	return "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Msg
}

// Unwrap returns the sentinel, ErrSyntax, ErrDepth or ErrDigits.
func (e *SyntaxError) Unwrap() error { return e.Err }

// clipLen is the most bytes of a token an error message repeats.
const clipLen = 64

// clip returns s for an error message: s itself up to clipLen bytes, else
// its first clipLen bytes or fewer, cut at a character boundary, and "…".
// An error about a 10 MB token should not be 10 MB long.
func clip(s string) string {
	if len(s) <= clipLen {
		return s
	}
	n := clipLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// syntaxError builds a *SyntaxError at byte offset off of src.
func syntaxError(src string, off int, sentinel error, msg string) *SyntaxError {
	before := src[:off]
	ls := strings.LastIndexByte(before, '\n') + 1
	return &SyntaxError{
		Offset: off,
		Line:   1 + strings.Count(before, "\n"),
		Column: 1 + utf8.RuneCountInString(before[ls:]),
		Msg:    msg,
		Err:    sentinel,
	}
}
