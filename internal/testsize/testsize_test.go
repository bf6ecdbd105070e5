package testsize

import (
	"flag"
	"testing"
)

// The knob: SEXT_TEST_SIZE wins, and CI=true means full only where it is
// unset.
func TestFull(t *testing.T) {
	for _, c := range []struct {
		size, ci string
		full     bool
	}{
		{"", "", false},
		{"", "true", true},
		{"", "1", false}, // CI=true is the convention; other values are not CI
		{"quick", "true", false},
		{"full", "", true},
		{"full", "true", true},
	} {
		t.Setenv(Env, c.size)
		t.Setenv("CI", c.ci)
		if got := Full(); got != c.full {
			t.Errorf("%s=%q CI=%q: Full() = %v, want %v", Env, c.size, c.ci, got, c.full)
		}
		if got, want := Pick(1, 2), map[bool]int{false: 1, true: 2}[c.full]; got != want {
			t.Errorf("%s=%q CI=%q: Pick(1, 2) = %d, want %d", Env, c.size, c.ci, got, want)
		}
	}
}

// A misspelt size is refused, not taken for quick.
func TestFullRefusesOtherValues(t *testing.T) {
	t.Setenv(Env, "ful")
	defer func() {
		if recover() == nil {
			t.Error("no panic for SEXT_TEST_SIZE=ful")
		}
	}()
	Full()
}

// Checks follows the size until -rapid.checks is set, then the flag.
// The flags are a set of the test's own, defined as rapid defines its.
func TestChecks(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv(Env, "quick")
	fs := flag.NewFlagSet("test", flag.PanicOnError)
	if testing.Short() {
		t.Setenv(Env, "full") // -short wins over the size
		if got := checks(fs); got != ShortChecks {
			t.Errorf("-short: checks = %d, want %d", got, ShortChecks)
		}
		return
	}
	if got := checks(fs); got != QuickChecks {
		t.Errorf("quick: checks = %d, want %d", got, QuickChecks)
	}
	t.Setenv(Env, "full")
	if got := checks(fs); got != FullChecks {
		t.Errorf("full: checks = %d, want %d", got, FullChecks)
	}
	setRapidChecks(fs) // no such flag: nothing to set
	if fs.Lookup(checksFlag) != nil {
		t.Fatal("setRapidChecks defined the flag")
	}
	n := fs.Int(checksFlag, 100, "rapid's default")
	setRapidChecks(fs)
	if *n != FullChecks || checks(fs) != FullChecks {
		t.Errorf("after setRapidChecks at full size: flag %d, checks %d; want %d", *n, checks(fs), FullChecks)
	}

	// A package's own count sets the flag; Checks keeps the size's.
	fs = flag.NewFlagSet("test", flag.PanicOnError)
	n = fs.Int(checksFlag, 100, "rapid's default")
	if !setRapidChecksTo(fs, 300) || *n != 300 {
		t.Errorf("setRapidChecksTo(300): flag %d, want 300", *n)
	}
	ownChecks = fs
	if got := checks(fs); got != FullChecks {
		t.Errorf("a package's own count: checks = %d, want the size's %d", got, FullChecks)
	}
	ownChecks = nil

	fs = flag.NewFlagSet("test", flag.PanicOnError)
	n = fs.Int(checksFlag, 100, "rapid's default")
	fs.Parse([]string{"-" + checksFlag + "=7"})
	if setRapidChecksTo(fs, 300) {
		t.Error("setRapidChecksTo overrode -rapid.checks=7")
	}
	setRapidChecks(fs)
	if *n != 7 || checks(fs) != 7 {
		t.Errorf("with -rapid.checks=7: flag %d, checks %d; want 7", *n, checks(fs))
	}
}
