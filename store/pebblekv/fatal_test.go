package pebblekv

import (
	"bytes"
	"errors"
	"io/fs"
	"log"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFatalfIsAnError: a Fatalf inside a call becomes that call's error,
// and every later call's, instead of ending the process.
func TestFatalfIsAnError(t *testing.T) {
	f := newFaults("d")
	ran := false
	err := f.guard(func() error {
		defer func() { ran = true }()
		f.Fatalf("manifest sync failed: %s", "disk gone")
		return nil
	})
	if !errors.Is(err, ErrEngineFailed) || err.Error() != ErrEngineFailed.Error()+": pebble: manifest sync failed: disk gone" {
		t.Errorf("guard(Fatalf) = %v, want ErrEngineFailed with the message", err)
	}
	if !ran {
		t.Error("deferred function inside the call did not run")
	}
	if !errors.Is(f.failed(), ErrEngineFailed) {
		t.Errorf("failed() = %v after a Fatalf", f.failed())
	}
	// Other panics are not swallowed.
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the other panic passed through", r)
		}
	}()
	f.guard(func() error { panic("other") })
}

// TestFatalfOffKVGoroutine: a Fatalf on one of Pebble's own goroutines,
// where no method of the KV could recover a panic, records the failure
// and returns, for Pebble to go its own way, instead of ending the
// process.
func TestFatalfOffKVGoroutine(t *testing.T) {
	f := newFaults("d")
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		f.Fatalf("MANIFEST write failed: %v", errors.New("bad"))
	}()
	if r := <-done; r != nil {
		t.Fatalf("Fatalf off a KV goroutine panicked: %v", r)
	}
	if !errors.Is(f.failed(), ErrEngineFailed) {
		t.Errorf("failed() = %v, want the Fatalf recorded", f.failed())
	}
}

// TestDiskPanicStopsWrites: Pebble's panic over a log it could not write
// becomes the call's error, wrapping ErrWritesStopped and ENOSPC; the
// engine is marked wedged, so Close will not wait on it; reads are not
// refused. Any other panic goes through.
func TestDiskPanicStopsWrites(t *testing.T) {
	f := newFaults("d")
	err := f.guard(func() error {
		panic(&fs.PathError{Op: "write", Path: "d/000005.log", Err: syscall.ENOSPC})
	})
	if !errors.Is(err, ErrWritesStopped) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "000005.log") {
		t.Errorf("guard(panic(ENOSPC)) = %v, want ErrWritesStopped and ENOSPC naming the log", err)
	}
	if !f.isWedged() || f.failed() != nil || f.unwritable() == nil {
		t.Errorf("after the panic: wedged %v, failed %v, unwritable %v; want wedged, reads allowed, writes refused", f.isWedged(), f.failed(), f.unwritable())
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("a panic with an error that is no disk error was swallowed")
		}
	}()
	f.guard(func() error { panic(errors.New("a bug")) })
}

// TestLogLimit: Pebble's other errors reach the log five a minute at
// most, then one line says how many were held back.
func TestLogLimit(t *testing.T) {
	var buf bytes.Buffer
	log.SetOutput(&buf)
	defer log.SetOutput(os.Stderr)
	f := newFaults("d")
	for i := range 1000 {
		f.Errorf("background error: %d", i)
	}
	if n := strings.Count(buf.String(), "\n"); n != logBurst {
		t.Errorf("1,000 errors logged %d lines, want %d", n, logBurst)
	}
	f.log.start = f.log.start.Add(-time.Minute)
	f.Errorf("later")
	if !strings.Contains(buf.String(), "995 more messages held back") || !strings.HasSuffix(buf.String(), "later\n") {
		t.Errorf("a minute later the log says %q, want the count held back, then the message", buf.String())
	}
}
