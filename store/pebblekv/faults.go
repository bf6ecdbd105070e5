package pebblekv

import (
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/erlsext/sext/store/seam"
)

// faults is Pebble's logger and event listener for one KV. Pebble's
// defaults end the process: its DataCorruption handler calls the logger's
// Fatalf, and the default Fatalf exits. A library under someone else's
// service must not do that, so:
//
//   - DataCorruption only records the event; Pebble then returns the
//     corruption error from the read that met it, and convert turns that
//     into a *seam.CorruptError naming the file.
//   - Fatalf (Pebble's invariant checks, a failed manifest sync) records
//     the error and panics with a private type; every method of the KV
//     recovers that panic at its boundary and returns the error, and
//     every later call returns it too, since the engine cannot be
//     trusted after it. A Fatalf on one of Pebble's own background
//     goroutines cannot be recovered there and still ends the process;
//     DESIGN.md says which those are.
type faults struct {
	dir string

	mu      sync.Mutex
	fatal   error                       // the first Fatalf, if any
	corrupt []pebble.DataCorruptionInfo // seen by the listener, the latest few
}

// fatalPanic carries a Fatalf from Pebble to the KV's method boundary.
type fatalPanic struct{ err error }

// ErrEngineFailed: Pebble met a condition it treats as fatal (it would
// have exited the process); the KV refuses every call after it. Close
// and reopen the store.
var ErrEngineFailed = errors.New("pebblekv: the engine failed and must be reopened")

func (f *faults) Infof(string, ...any) {}

// Errorf passes Pebble's errors on to the standard logger, as before:
// they are rare and a person should see them.
func (f *faults) Errorf(format string, args ...any) { log.Printf("pebble: "+format, args...) }

// Fatalf records the failure and panics; see faults.
func (f *faults) Fatalf(format string, args ...any) {
	err := fmt.Errorf("%w: pebble: "+format, append([]any{ErrEngineFailed}, args...)...)
	f.mu.Lock()
	if f.fatal == nil {
		f.fatal = err
	}
	f.mu.Unlock()
	panic(fatalPanic{err})
}

func (f *faults) listener() *pebble.EventListener {
	return &pebble.EventListener{
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.corrupt) < 16 {
				f.corrupt = append(f.corrupt, info)
			}
		},
		// A background error from corrupt data (a compaction that read a
		// corrupt table) is retried by Pebble and reaches a caller, typed,
		// when a read meets the same data: it is not logged, so that the
		// caller's one message is the only one. Others are logged.
		BackgroundError: func(err error) {
			if !pebble.IsCorruptionError(err) {
				f.Errorf("background error: %v", err)
			}
		},
	}
}

// failed returns the recorded Fatalf, if any.
func (f *faults) failed() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fatal
}

// recover is deferred by every method of the KV: it turns a Fatalf's
// panic into the method's error and lets any other panic through.
func (f *faults) recover(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	fp, ok := r.(fatalPanic)
	if !ok {
		panic(r)
	}
	*errp = fp.err
}

// guard runs fn, returning a Fatalf inside it as an error.
func (f *faults) guard(fn func() error) (err error) {
	defer f.recover(&err)
	return fn()
}

// convert gives a corruption error from Pebble the seam's form, naming
// the file Pebble blames.
// Pebble marks corruption with cockroachdb/errors, which the standard
// errors.Is does not see: pebble.IsCorruptionError does.
func (f *faults) convert(err error) error {
	if err == nil || !pebble.IsCorruptionError(err) {
		return err
	}
	var ce *seam.CorruptError
	if errors.As(err, &ce) {
		return err
	}
	path := f.dir
	if info := pebble.ExtractDataCorruptionInfo(err); info != nil && info.Path != "" {
		path = info.Path
	}
	return &seam.CorruptError{Path: path, Offset: -1, Err: &engineErr{err}}
}

// engineErr is Pebble's error with only the first line of its text:
// the rest is a carrier of details ("<corruption detail carrier>") that
// means nothing to a person.
type engineErr struct{ err error }

func (e *engineErr) Error() string {
	msg := e.err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

func (e *engineErr) Unwrap() error { return e.err }
