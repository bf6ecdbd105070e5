package seam

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors the store and its backends return wrap these,
// so errors.Is works through the added detail. An error about a store's
// directory is an *fs.PathError (Op "open", Path the directory) wrapping
// one of them, as package os reports a file.
var (
	// ErrNotFound: no value is stored under the key.
	ErrNotFound = errors.New("store: key not found")
	// ErrLocked: another process (or another Store in this one) has the
	// directory open.
	ErrLocked = errors.New("store: directory is locked by another process or open store")
	// ErrNoStore: the directory, or its parent when the store would be
	// created, does not exist, or the directory holds no store.
	ErrNoStore = errors.New("store: no such store directory")
	// ErrClosed: the Store has been closed.
	ErrClosed = errors.New("store: closed")
	// ErrBatchClosed: the batch was already applied or discarded.
	ErrBatchClosed = errors.New("store: batch already applied or discarded")
	// ErrUnsupported: the backend does not offer the operation.
	ErrUnsupported = errors.New("store: not supported by this backend")
	// ErrUnavailable: a distributed backend did not answer in time, or
	// cannot serve without a quorum. Callers may retry; the write may or
	// may not have been applied.
	ErrUnavailable = errors.New("store: backend unavailable (no quorum, or no member reachable)")
	// ErrCorrupt: the backend met data that fails its own checks (a
	// table's checksum, a store directory without its manifest, a torn
	// log). The call that met it returns it; the process goes on.
	// Errors wrapping it are usually a *CorruptError naming the file.
	ErrCorrupt = errors.New("store: data corrupt")
	// ErrTornLog: a write-ahead log ended inside a record when the store
	// opened, so the writes after that point were lost (those not yet
	// synced when a process crashed, or synced ones if the file was cut
	// short on disk). It comes wrapped in a *CorruptError, so errors.Is
	// sees ErrCorrupt too.
	ErrTornLog = errors.New("store: write-ahead log ends in a torn record; writes after it were lost")
)

// CorruptError reports corrupt data in one file of a store. errors.Is(e,
// ErrCorrupt) holds for every CorruptError.
type CorruptError struct {
	Path   string // the file, or the store's directory when no one file is to blame
	Offset int64  // the byte offset in the file where it was found, or -1
	Err    error  // what was wrong: the engine's error, or ErrTornLog
}

// Error returns "store: data corrupt: PATH[ at offset N]: DETAIL".
func (e *CorruptError) Error() string {
	at := ""
	if e.Offset >= 0 {
		at = fmt.Sprintf(" at offset %d", e.Offset)
	}
	if errors.Is(e.Err, ErrTornLog) {
		return fmt.Sprintf("%s%s: %v", e.Path, at, e.Err)
	}
	return fmt.Sprintf("%v: %s%s: %v", ErrCorrupt, e.Path, at, e.Err)
}

// Unwrap returns ErrCorrupt and the cause.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// Mark joins a sentinel with the underlying cause, keeping both visible
// to errors.Is and the sentinel's text first in the message.
func Mark(sentinel, cause error) error { return &markErr{sentinel, cause} }

type markErr struct {
	sentinel, cause error
}

func (e *markErr) Error() string   { return e.sentinel.Error() + " (" + e.cause.Error() + ")" }
func (e *markErr) Unwrap() []error { return []error{e.sentinel, e.cause} }
