package pebblekv

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/erlsext/sext/store/seam"
)

// faults is Pebble's logger and event listener for one KV, and the
// record of what went wrong in it. Pebble's defaults end the process:
// its DataCorruption handler calls the logger's Fatalf, the default
// Fatalf exits, and a failed write to the write-ahead log panics. A
// library under someone else's service must not do that, so:
//
//   - DataCorruption only records the event; Pebble then returns the
//     corruption error from the read that met it, and convert turns that
//     into a *seam.CorruptError naming the file.
//   - A failed write to the disk (a full disk above all: the FS wrapper
//     in space.go sees it first, the background-error listener and
//     Fatalf may see it too) stops the store's writes: every later write
//     returns an error wrapping ErrWritesStopped and the disk's error
//     (syscall.ENOSPC), and reads go on. Pebble's write-ahead log cannot
//     take another record after a failed write, so the store does not
//     try again until it is reopened.
//   - Fatalf (Pebble's invariant checks, a failed manifest write)
//     records the error. On a goroutine inside one of the KV's methods it
//     panics with a private type, which the method recovers at its
//     boundary and returns; on one of Pebble's own goroutines, where no
//     one could recover it, it returns, and Pebble goes its own way
//     (every caller of Fatalf returns an error after it). Either way
//     every later call fails, since the engine cannot be trusted after
//     it (a Fatalf for a failed disk write stops only the writes).
//   - A panic from Pebble carrying a disk error (its commit path panics
//     when the log cannot be written) is recovered at the same boundary
//     and stops the writes; it leaves Pebble's commit pipeline locked
//     (wedged), so Close then keeps the directory locked rather than
//     wait forever for Pebble to close.
type faults struct {
	dir string

	mu      sync.Mutex
	fatal   error                       // the first Fatalf that was no disk error: every call fails
	stopped error                       // a *stopErr, the first failed disk write: writes fail, reads go on
	stop    chan struct{}               // closed when stopped is set
	closing chan struct{}               // closed when Close begins, or an open is abandoned
	wedged  bool                        // a panic left Pebble's commit pipeline locked
	corrupt []pebble.DataCorruptionInfo // seen by the listener, the latest few
	log     logLimit
}

func newFaults(dir string) *faults {
	return &faults{dir: dir, stop: make(chan struct{}), closing: make(chan struct{})}
}

// fatalPanic carries a Fatalf from Pebble to the KV's method boundary.
type fatalPanic struct{ err error }

// ErrEngineFailed: Pebble met a condition it treats as fatal (it would
// have exited the process); the KV refuses every call after it. Close
// and reopen the store.
var ErrEngineFailed = errors.New("pebblekv: the engine failed and must be reopened")

// ErrWritesStopped: a write to the store's disk failed, so the KV takes
// no more writes; what it holds stays readable, and every write
// acknowledged as synced before it is on the disk. The error that wraps
// it wraps the disk's error too: errors.Is(err, syscall.ENOSPC) tells a
// full disk. Close the store and reopen it once the cause is gone.
var ErrWritesStopped = errors.New("pebblekv: writes stopped after a write to the disk failed")

// stopErr is ErrWritesStopped with the disk error that caused it.
type stopErr struct{ cause error }

func (e *stopErr) Error() string {
	return fmt.Sprintf("%v: %s; reads go on; close the store and reopen it once the disk has room", ErrWritesStopped, firstLine(e.cause))
}

func (e *stopErr) Unwrap() []error { return []error{ErrWritesStopped, e.cause} }

// fatalErr is a Fatalf's message, with ErrEngineFailed and the errors
// among its arguments to errors.Is.
type fatalErr struct {
	msg    string
	causes []error
}

func (e *fatalErr) Error() string   { return ErrEngineFailed.Error() + ": " + e.msg }
func (e *fatalErr) Unwrap() []error { return append([]error{ErrEngineFailed}, e.causes...) }

func (f *faults) Infof(string, ...any) {}

// Errorf passes Pebble's errors on to the standard logger, a few a
// minute at most: they are rare and a person should see them, but a
// stuck engine must not flood a terminal.
func (f *faults) Errorf(format string, args ...any) { f.log.printf("pebble: "+format, args...) }

// Fatalf records the failure and, inside a KV method, panics; see faults.
func (f *faults) Fatalf(format string, args ...any) {
	fe := &fatalErr{msg: fmt.Sprintf("pebble: "+format, args...)}
	for _, a := range args {
		if e, ok := a.(error); ok {
			fe.causes = append(fe.causes, e)
		}
	}
	var err error
	if diskError(fe) {
		err = f.stopWrites(fe)
	} else {
		f.mu.Lock()
		if f.fatal == nil {
			f.fatal = fe
		}
		f.mu.Unlock()
		err = fe
	}
	if insideKV() {
		panic(fatalPanic{err})
	}
}

// boundaries are the functions that recover a fatalPanic: the methods
// of the KV, its batches and iterators that call Pebble, and guard.
var boundaries = []string{"(*KV).", "(*batch).", "(*iterator).", "(*faults).guard"}

// insideKV reports whether the calling goroutine is inside one of the
// boundaries; the goroutines Pebble starts for itself are not. It walks
// the stack, which only a Fatalf does.
func insideKV() bool {
	const pkg = "github.com/erlsext/sext/store/pebblekv."
	pcs := make([]uintptr, 512)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)]) // past Callers, insideKV, Fatalf
	for {
		fr, more := frames.Next()
		if fn, ok := strings.CutPrefix(fr.Function, pkg); ok {
			for _, b := range boundaries {
				if strings.HasPrefix(fn, b) {
					return true
				}
			}
		}
		if !more {
			return false
		}
	}
}

// diskError reports whether err comes from the operating system (an
// errno: ENOSPC, EIO, EDQUOT...), that is from the disk rather than
// from the engine's own logic.
func diskError(err error) bool {
	var en syscall.Errno
	return errors.As(err, &en)
}

// noSpace reports whether err says the disk (or the user's quota) is
// full.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// stopWrites records cause as what stopped the writes, if nothing did
// before, and returns the error every write returns from now on.
func (f *faults) stopWrites(cause error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped == nil {
		var se *stopErr
		if !errors.As(cause, &se) {
			se = &stopErr{cause}
		}
		f.stopped = se
		close(f.stop)
	}
	return f.stopped
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
		// when a read meets the same data; a full disk (a flush that
		// found no room) stops the writes, and the next write
		// returns it. Neither is logged, so that the caller's one message
		// is the only one: Pebble retries a failed flush at once and
		// forever, and logging each try flooded the terminal. Others are
		// logged, a few a minute at most.
		BackgroundError: func(err error) {
			switch {
			case pebble.IsCorruptionError(err):
			case noSpace(err):
				f.stopWrites(err)
			default:
				f.Errorf("background error: %v", err)
			}
		},
	}
}

// failed returns the recorded Fatalf, if any: every call fails with it.
func (f *faults) failed() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fatal
}

// unwritable returns why the KV takes no writes, if it does not.
func (f *faults) unwritable() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fatal != nil {
		return f.fatal
	}
	return f.stopped
}

// stopCause returns the disk's error that stopped the writes, if any.
func (f *faults) stopCause() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if se, ok := f.stopped.(*stopErr); ok {
		return se.cause
	}
	return f.stopped
}

// isWedged reports whether Pebble's commit pipeline was left locked.
func (f *faults) isWedged() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wedged
}

// recover is deferred by every method of the KV: it turns a Fatalf's
// panic, or Pebble's panic over a failed disk write, into the method's
// error and lets any other panic through.
func (f *faults) recover(errp *error) {
	if r := recover(); r != nil {
		*errp = f.recovered(r)
	}
}

// recovered returns the error a recovered panic r stands for, or panics
// again with r if it is no fault of the engine's.
func (f *faults) recovered(r any) error {
	switch v := r.(type) {
	case fatalPanic:
		return v.err
	case error:
		if diskError(v) {
			f.mu.Lock()
			f.wedged = true
			f.mu.Unlock()
			return f.stopWrites(v)
		}
	}
	panic(r)
}

// guard runs fn, returning a Fatalf inside it as an error.
func (f *faults) guard(fn func() error) (err error) {
	defer f.recover(&err)
	return fn()
}

// convert gives a corruption error from Pebble the seam's form, naming
// the file Pebble blames, and a disk error the form of the stopped
// writes it causes.
// Pebble marks corruption with cockroachdb/errors, which the standard
// errors.Is does not see: pebble.IsCorruptionError does.
func (f *faults) convert(err error) error {
	if err == nil {
		return nil
	}
	if !pebble.IsCorruptionError(err) {
		if noSpace(err) && !errors.Is(err, ErrEngineFailed) {
			return f.stopWrites(err)
		}
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

func (e *engineErr) Error() string { return firstLine(e.err) }
func (e *engineErr) Unwrap() error { return e.err }

func firstLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// logLimit passes lines to the standard logger, at most logBurst a
// minute, and then says how many it held back.
type logLimit struct {
	mu    sync.Mutex
	start time.Time
	n     int // lines printed since start
	held  int // lines held back since start
}

const logBurst = 5

func (l *logLimit) printf(format string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.start) >= time.Minute {
		if l.held > 0 {
			log.Printf("pebble: %d more messages held back in the last minute", l.held)
		}
		l.start, l.n, l.held = now, 0, 0
	}
	if l.n >= logBurst {
		l.held++
		l.mu.Unlock()
		return
	}
	l.n++
	l.mu.Unlock()
	log.Printf(format, args...)
}
