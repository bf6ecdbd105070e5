//go:build !race

// Allocation budgets are kept out of race builds: the race detector makes
// sync.Pool drop items at random and instruments allocation, so counts
// there say nothing about the library. CI runs them in the normal pass.

package sext_test

import (
	"math/big"
	"testing"

	"github.com/erlsext/sext"
)

func TestAppendMarshalAllocs(t *testing.T) {
	buf := make([]byte, 0, 128)
	k := benchValue
	e := eventKey{Region: 3, Kind: "click", Score: -2.5, Big: big.NewInt(7), Flag: true}
	for _, tc := range []struct {
		name string
		v    any
	}{{"benchKey", &k}, {"eventKey", &e}, {"int", ptr(5)}} {
		var err error
		n := testing.AllocsPerRun(100, func() { buf, err = sext.AppendMarshal(buf[:0], tc.v) })
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("AppendMarshal(%s) allocated %v times, want 0", tc.name, n)
		}
	}
}
