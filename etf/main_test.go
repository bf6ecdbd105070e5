package etf_test

import (
	"testing"

	"github.com/erlsext/sext/internal/testsize"
)

// Unless -rapid.checks is given, each property runs testsize's count:
// 1,000 cases by default, 10,000 under CI or SEXT_TEST_SIZE=full, 100
// with -short.
func TestMain(m *testing.M) { testsize.Main(m) }

// checks is the number of cases a property runs; the properties against
// the VM that draw their terms in the VM run as many.
func checks() int { return testsize.Checks() }
