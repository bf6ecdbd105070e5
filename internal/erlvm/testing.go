package erlvm

import (
	"context"
	"os"
	"testing"
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
	if !Available() {
		if os.Getenv("CI") == "true" {
			t.Fatal(ErrNoErlang)
		}
		t.Skip(ErrNoErlang)
	}
	ctx, cancel := context.WithCancel(context.Background())
	v, err := StartArgs(ctx, t.TempDir(), args...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close(); cancel() })
	return v
}
