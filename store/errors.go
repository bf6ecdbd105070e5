package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors the store returns wrap these, so errors.Is
// works through the added detail.
var (
	// ErrNotFound: no value is stored under the key.
	ErrNotFound = errors.New("store: key not found")
	// ErrLocked: another process (or another Store in this one) has the
	// directory open.
	ErrLocked = errors.New("store: directory is locked by another process or open store")
	// ErrNoStore: the directory, or its parent when the store would be
	// created, does not exist.
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
)

// PathError wraps one of the sentinels with the directory it concerns,
// so that a message names the path and errors.Is still sees the sentinel.
type PathError struct {
	Path string
	Err  error // a sentinel, possibly wrapping the engine's own error
}

// Error returns "PATH: ERROR".
func (e *PathError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

// Unwrap returns the wrapped error.
func (e *PathError) Unwrap() error { return e.Err }

// wrapErr joins a sentinel with the underlying cause, keeping both visible
// to errors.Is and the sentinel's text first in the message.
type wrapErr struct {
	sentinel, cause error
}

func (e *wrapErr) Error() string   { return e.sentinel.Error() + " (" + e.cause.Error() + ")" }
func (e *wrapErr) Unwrap() []error { return []error{e.sentinel, e.cause} }
