package etf_test

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// Unless -rapid.checks is given, each property runs 10,000 cases (100 with
// -short), as in the rest of the repository.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		n := "10000"
		if testing.Short() {
			n = "100"
		}
		flag.Set("rapid.checks", n)
	}
	os.Exit(m.Run())
}

// checks is the number of cases a property runs.
func checks() int {
	n, err := strconv.Atoi(flag.Lookup("rapid.checks").Value.String())
	if err != nil || n < 1 {
		return 100
	}
	return n
}
