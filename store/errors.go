package store

import "github.com/erlsext/sext/store/seam"

// Sentinel errors, the seam's (see package seam for what each means).
// Errors the store returns wrap these, so errors.Is works through the
// added detail.
var (
	ErrNotFound    = seam.ErrNotFound    // no value under the key
	ErrLocked      = seam.ErrLocked      // the directory is open elsewhere
	ErrNoStore     = seam.ErrNoStore     // no store there
	ErrClosed      = seam.ErrClosed      // the Store is closed
	ErrBatchClosed = seam.ErrBatchClosed // the batch was applied or discarded
	ErrUnsupported = seam.ErrUnsupported // the backend cannot do it
	ErrUnavailable = seam.ErrUnavailable // a distributed backend did not answer
	ErrCorrupt     = seam.ErrCorrupt     // data failed the engine's checks
	ErrTornLog     = seam.ErrTornLog     // a log ended in a torn record at open
)
