package etf_test

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/term"
)

func TestHAMTProbe(t *testing.T) {
	vm := erlvm.ForTest(t)
	var bins [][]byte
	var ms []term.Term
	for _, n := range []int{33, 40, 100, 200} {
		es := make([]term.MapEntry, n)
		for i := range es {
			es[i] = term.MapEntry{Key: term.Int(int64(i*7 - 50)), Value: term.Int(0)}
		}
		m := term.Map(es...)
		ms = append(ms, m)
		b, _ := etf.Encode(m)
		bins = append(bins, b)
	}
	for i, r := range reencode(t, vm, bins, term.List()) {
		got := r.Elems()[1].Bytes()
		if !bytes.Equal(got, bins[i]) {
			back, _ := etf.Decode(got)
			t.Errorf("map %d: ours %v\nVM %v", i, ms[i].Entries()[:8], back.Entries()[:8])
		}
	}
}
