package term

import "errors"

// The nesting limit is the term model's, shared by everything that reads
// or writes terms: this package's Parse, the sext and etf codecs. They use
// these names (sext.DefaultMaxDepth is DefaultMaxDepth, sext.ErrDepth is
// ErrDepth), so one errors.Is test and one number cover them all.

// DefaultMaxDepth is the nesting limit when an option's MaxDepth is 0:
// lists, tuples, maps, binaries and Desc inside one another. It is far
// beyond what real terms need and small enough that a recursive reader's
// stack stays modest. A Go stack overflow cannot be recovered from, so
// readers check depth rather than trust their input.
const DefaultMaxDepth = 10000

// MaxDepthCeiling is the most nesting a recursive path takes, whatever an
// option's MaxDepth says: a goroutine's stack survives it, race builds
// included, as encoding/json's maxNestingDepth does for json.
const MaxDepthCeiling = 100_000

// ErrDepth is the sentinel an error wraps when its input nests deeper than
// the limit allows: a *SyntaxError from Parse, a decoding or encoding
// error from sext or etf. It is separate from ErrSyntax because the input
// may be perfectly well-formed: it is refused to bound time and memory.
// Its text names no package, as io.EOF's does not, since several use it.
var ErrDepth = errors.New("nesting too deep")
