// Package testsize sizes this module's tests: quick by default, so that
// go test ./... on a small machine finishes in about a minute, and full
// where the environment asks for it. Every test runs at either size; only
// its counts change (property cases, random keys, batches, the largest
// input of a growth test), never what it checks.
//
// One knob chooses: the environment variable SEXT_TEST_SIZE, "quick" or
// "full". Unset, tests run full under CI (CI=true, which .ci/run and most
// CI services set) and quick elsewhere. A property's case count given on
// the command line (-rapid.checks N) wins over both.
package testsize

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// Env is the environment variable that chooses the size.
const Env = "SEXT_TEST_SIZE"

// The cases a property runs, without -rapid.checks.
const (
	QuickChecks = 1000  // the default
	FullChecks  = 10000 // under CI, or SEXT_TEST_SIZE=full
	ShortChecks = 100   // with -short, at either size
	checksFlag  = "rapid.checks"
)

// Full reports whether tests run at full size. It panics on a value of
// SEXT_TEST_SIZE other than "quick", "full" or empty, so that a misspelt
// request for the full run is not taken for a quick one.
func Full() bool {
	switch v := os.Getenv(Env); v {
	case "full":
		return true
	case "quick":
		return false
	case "":
		return os.Getenv("CI") == "true"
	default:
		panic(fmt.Sprintf("%s=%q: want quick or full", Env, v))
	}
}

// Pick returns full when tests run at full size, else quick.
func Pick[T any](quick, full T) T {
	if Full() {
		return full
	}
	return quick
}

// Name is "full" or "quick", for a test's log.
func Name() string { return Pick("quick", "full") }

// SetRapidChecks sets -rapid.checks for the test binary's properties,
// unless the command line gave it: ShortChecks with -short, else
// QuickChecks or FullChecks. A TestMain calls it after flag.Parse. In a
// binary without rapid (no such flag) it does nothing.
func SetRapidChecks() { setRapidChecks(flag.CommandLine) }

// Main is a package's TestMain that sizes its properties: it parses the
// flags, calls SetRapidChecks and exits with m.Run's code.
func Main(m *testing.M) {
	flag.Parse()
	SetRapidChecks()
	os.Exit(m.Run())
}

// SetRapidChecksOf is SetRapidChecks for a package whose properties each
// cost as much as a small test (a store opened, transactions run): quick
// and full are its properties' cases at either size (ShortChecks with
// -short). Checks still gives the size's own count, for the tests that
// draw their cases themselves.
func SetRapidChecksOf(quick, full int) {
	if setRapidChecksTo(flag.CommandLine, Pick(quick, full)) {
		ownChecks = flag.CommandLine
	}
}

// ownChecks is the flag set whose -rapid.checks SetRapidChecksOf set.
var ownChecks *flag.FlagSet

func setRapidChecks(fs *flag.FlagSet) { setRapidChecksTo(fs, defaultChecks()) }

// setRapidChecksTo sets fs's -rapid.checks to n (ShortChecks with
// -short) unless it was given or is not defined, and reports whether it
// did.
func setRapidChecksTo(fs *flag.FlagSet, n int) bool {
	if fs.Lookup(checksFlag) == nil || given(fs, checksFlag) {
		return false
	}
	if testing.Short() {
		n = ShortChecks
	}
	if err := fs.Set(checksFlag, strconv.Itoa(n)); err != nil {
		panic(err) // an int flag takes an int
	}
	return true
}

// Checks returns how many cases a property runs: -rapid.checks when it is
// set (on the command line, or by SetRapidChecks), else what
// SetRapidChecks would set. Tests that draw their own cases (a batch for
// a live VM, say) size themselves by it as rapid's properties do.
func Checks() int { return checks(flag.CommandLine) }

func checks(fs *flag.FlagSet) int {
	if f := fs.Lookup(checksFlag); f != nil && given(fs, checksFlag) && fs != ownChecks {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return defaultChecks()
}

func defaultChecks() int {
	if testing.Short() {
		return ShortChecks
	}
	return Pick(QuickChecks, FullChecks)
}

// given reports whether flag name has been set, on the command line or by
// Set.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
