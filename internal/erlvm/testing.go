package erlvm

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/erlsext/sext/term"
)

// ForTest starts a VM for t in t.TempDir and stops it when t ends. Where
// Erlang is missing it skips t, except under CI (CI=true), where that
// fails it: CI installs erlang-nox.
func ForTest(t testing.TB) *VM {
	t.Helper()
	return ForTestArgs(t)
}

// ForTestArgs is ForTest for a VM started with more arguments for erl, as
// StartArgs takes them.
func ForTestArgs(t testing.TB, args ...string) *VM {
	t.Helper()
	needErlang(t)
	ctx, cancel := context.WithCancel(context.Background())
	v, err := StartArgs(ctx, t.TempDir(), args...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(); cancel() })
	return v
}

// needErlang skips t where Erlang is missing, or fails it under CI.
func needErlang(t testing.TB) {
	t.Helper()
	if !Available() {
		if os.Getenv("CI") == "true" {
			t.Fatal(ErrNoErlang)
		}
		t.Skip(ErrNoErlang)
	}
}

var shared struct {
	mu sync.Mutex
	vm *VM
}

// Shared returns the VM that the tests of one test binary share, skipping
// or failing t as ForTest does where Erlang is missing. A VM costs a
// start (a second or more on a loaded machine), so tests that each check
// their cases in a few calls share one. It starts on the first call, and
// again on a call after it has exited (a test's context killed it, or it
// crashed); it stops when the test binary exits and its channel closes.
// Calls from tests running in parallel take turns. A test that needs a VM
// with other flags, or one it may break on purpose, takes its own from
// ForTest or ForTestArgs.
func Shared(t testing.TB) *VM {
	t.Helper()
	needErlang(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if v := shared.vm; v != nil && !v.exited() {
		return v
	}
	dir, err := os.MkdirTemp("", "erlvm-")
	if err != nil {
		t.Fatal(err)
	}
	// The files can go once the VM answers: it has loaded the server.
	defer os.RemoveAll(dir)
	v, err := Start(context.Background(), dir)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err = v.Call(ctx, "ping", term.List())
		cancel()
		if err != nil {
			v.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	shared.vm = v
	return v
}

// exited reports whether the VM's process has exited.
func (v *VM) exited() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}
