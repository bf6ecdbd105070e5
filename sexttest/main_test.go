package sexttest_test

import (
	"flag"
	"os"
	"testing"

	"github.com/erlsext/sext/internal/testsize"
)

// TestMain sizes the properties (internal/testsize).
func TestMain(m *testing.M) {
	flag.Parse()
	testsize.SetRapidChecks()
	os.Exit(m.Run())
}
