package sext

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// bigDecoder returns a decoder over b in direct mode.
func bigDecoder(b []byte) *decodeState {
	d := Options{}.state(b, new(scratchSpace), recursive)
	d.a.direct = true
	return &d
}

// slowBignum decodes the bignum at b[0] the general way: its frame
// unframed into bytes whatever its length, then bigRest.
func slowBignum(b []byte) (term.Term, int, error) {
	d := bigDecoder(b)
	neg, p, words, err := d.bigHead(0)
	if err != nil {
		return term.Term{}, 0, err
	}
	raw, end, err := d.longBytesFrame(p)
	if err != nil {
		return term.Term{}, 0, err
	}
	return d.bigRest(0, neg, words, raw, end)
}

// wordTaken reports whether bignum reads the bignum at b[0] from
// registers, and what it reads: the general way writes the frame's bytes
// into the decoder's scratch, which the short way leaves untouched.
func wordTaken(b []byte) (int64, bool) {
	d := bigDecoder(b)
	x, _, err := d.bignum(0)
	if err != nil || cap(d.scratch) > 0 || x.Kind() != term.KindInt || x.IsBig() {
		return 0, false
	}
	return x.Int64(), true
}

// TestPropBignumFromRegisters holds bignum, which reads short frames
// into registers and takes an int64 from them, to the general way on
// integers near every edge of a word, on floats, and on their bytes
// mangled or cut short: the same term, end and error.
func TestPropBignumFromRegisters(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bitsLen := rapid.IntRange(28, 130).Draw(t, "bits") // where the frames' edges are
		x := new(big.Int).Lsh(big.NewInt(1), uint(bitsLen))
		x.Add(x, big.NewInt(rapid.Int64Range(-3, 3).Draw(t, "adjust")))
		if rapid.Bool().Draw(t, "neg") {
			x.Neg(x)
		}
		v := term.BigInt(x)
		if rapid.IntRange(0, 9).Draw(t, "float") == 0 {
			f, _ := x.Float64()
			v = term.Float(f + 0.5)
		}
		enc, err := Encode(v)
		if err != nil || enc[0] != tagPosBig && enc[0] != tagNegBig {
			return // a small form: not bignum's
		}
		for range rapid.IntRange(0, 2).Draw(t, "mangles") {
			i := rapid.IntRange(1, len(enc)-1).Draw(t, "at")
			enc[i] ^= byte(1) << rapid.IntRange(0, 7).Draw(t, "bit")
		}
		enc = enc[:rapid.IntRange(1, len(enc)).Draw(t, "len")]
		want, wend, werr := slowBignum(enc)
		got, end, err := bigDecoder(enc).bignum(0)
		if (err != nil) != (werr != nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("%x: error %v, the general way %v", enc, err, werr)
		}
		if err == nil && (!got.Equal(want) || end != wend) {
			t.Fatalf("%x: %v end %d, the general way %v end %d", enc, got, end, want, wend)
		}
	})
}

// TestWordValueTakes lists which integers bignum takes from registers
// and which it leaves to the general way.
func TestWordValueTakes(t *testing.T) {
	tests := []struct {
		v    term.Term
		take bool
	}{
		{term.Int(1 << 31), true},
		{term.Int(1 << 32), true},
		{term.Int(1<<56 - 1), true},
		{term.Int(math.MaxInt64), true},
		{term.Int(-(1 << 31) - 1), true},
		{term.Int(-(1 << 40)), true},
		{term.Int(math.MinInt64 + 1), true},
		{term.Int(math.MinInt64), true},
		{term.BigInt(new(big.Int).Lsh(big.NewInt(1), 63)), false},
		{term.BigInt(new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1))), false},
		{term.BigInt(new(big.Int).Lsh(big.NewInt(-1), 64)), false},
		{term.BigInt(new(big.Int).Lsh(big.NewInt(1), 100)), false},
		{term.Float(1 << 40), false},
		{term.Float(-(1 << 40) - 0.5), false},
	}
	for _, tt := range tests {
		enc, err := Encode(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		x, ok := wordTaken(enc)
		if ok != tt.take {
			t.Errorf("%v: taken from registers: %v, want %v", tt.v, ok, tt.take)
			continue
		}
		if ok && x != tt.v.Int64() {
			t.Errorf("%v: read as %d", tt.v, x)
		}
	}
}
