package etf_test

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/erlsext/sext/internal/testsize"
)

// Unless -rapid.checks is given, each property runs testsize's count:
// 1,000 cases by default, 10,000 under CI or SEXT_TEST_SIZE=full, 100
// with -short.
func TestMain(m *testing.M) { testsize.Main(m) }

// vmSeedFlag replays a sample of the tests whose terms the VM generates.
var vmSeedFlag = flag.Int64("vmseed", 0, "the seed of the VM's generator in the tests whose terms it draws (each logs its own); 0 draws a new sample each run")

// vmSeed returns -vmseed, or a new seed.
func vmSeed() int64 {
	if *vmSeedFlag != 0 {
		return *vmSeedFlag
	}
	return rand.Int64N(1<<40) + 1
}

// checks is the number of cases a property runs; the properties against
// the VM that draw their terms in the VM run as many.
func checks() int { return testsize.Checks() }
