package pebblekv

import (
	"errors"
	"testing"
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
