package sext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// A negative bignum just below a power of 2^64 has a large word count and
// few bytes. What Encode writes, both decoders must read back under the
// same options; what they could not read, Encode refuses.

// onesBelow returns 2^(64*words) - 1 - adj.
func onesBelow(words int, adj uint64) *big.Int {
	m := new(big.Int).Lsh(big.NewInt(1), uint(64*words))
	m.Sub(m, big.NewInt(1))
	return m.Sub(m, new(big.Int).SetUint64(adj))
}

func TestHugeNegativeBignums(t *testing.T) {
	// The issue's number: -16#FFF...F with 131,088 hex digits, 8,193 words.
	issue := onesBelow(131_088/16, 0)
	issue.Neg(issue)
	if b, err := Encode(term.BigInt(issue)); !errors.Is(err, ErrUnencodable) {
		t.Errorf("-16#F...F (131,088 digits): %d bytes, %v; want ErrUnencodable", len(b), err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dense := make([]big.Word, 9000)
	for i := range dense {
		dense[i] = big.Word(rng.Uint64())
	}
	for _, c := range []struct {
		name string
		m    *big.Int
	}{
		{"8,192 words of ones, the most a few bytes may claim", onesBelow(8192, 0)},
		{"8,192 words of ones less 12345", onesBelow(8192, 12345)},
		{"9,000 dense words", new(big.Int).SetBits(dense)},
	} {
		x := term.BigInt(new(big.Int).Neg(c.m))
		b, err := Encode(x)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		for _, d := range decoders {
			if back, err := d.decode(b); err != nil || !term.Equal(back, x) {
				t.Errorf("%s, %s decoder: %v", c.name, d.name, err)
			}
		}
	}
}

// TestPropHugeNegativeBignums: around the 8,192-word bound, a negative
// bignum either encodes to bytes both decoders read back as itself, or is
// refused with ErrUnencodable, and only past the bound.
func TestPropHugeNegativeBignums(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.IntRange(8150, 8250).Draw(t, "words")
		var m *big.Int
		switch rapid.IntRange(0, 2).Draw(t, "form") {
		case 0: // all ones less a little: a few bytes
			m = onesBelow(words, rapid.Uint64().Draw(t, "adj"))
		case 1: // all ones less a number of some words: short, or not
			adj := make([]big.Word, rapid.IntRange(1, words-1).Draw(t, "adjWords"))
			rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
			for i := range adj {
				adj[i] = big.Word(rng.Uint64())
			}
			m = onesBelow(words, 0)
			m.Sub(m, new(big.Int).SetBits(adj))
		default: // the top bit alone: as long as it is large
			m = new(big.Int).Lsh(big.NewInt(1), uint(64*words-1))
		}
		x := term.BigInt(m.Neg(m))
		b, err := Encode(x)
		if err != nil {
			if !errors.Is(err, ErrUnencodable) || words <= 8192 {
				t.Fatalf("%d words: %v", words, err)
			}
			return
		}
		for _, d := range decoders {
			if back, err := d.decode(b); err != nil || !term.Equal(back, x) {
				t.Fatalf("%d words in %d bytes, %s decoder: %v", words, len(b), d.name, err)
			}
		}
	})
}

// TestNegativeSizeDeparture: a negative bignum's bytes are the complement
// of its magnitude in whole 64-bit words, so from 249 bytes of magnitude
// (32 words) they are 256 bytes long, where the reference's size prefix
// stops sorting (FORMAT.md's first departure). Up to 248 bytes the bytes
// are the reference's (its encode/1 on OTP 25 gave these); at 249 they
// take this project's prefix, and sort where the number does.
func TestNegativeSizeDeparture(t *testing.T) {
	neg := func(k uint) term.Term { return term.BigInt(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), k))) }
	const ref1983 = "08FFFFFFE0FFFF2017FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE008FF"
	const ref1984 = "08FFFFFFDFFFE038101807FFFFFFFFFFFFFFFFF7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF808FF"
	if got, err := Encode(neg(1983)); err != nil || fmt.Sprintf("%X", got) != ref1983 {
		t.Errorf("-(2^1983) encodes to %X, %v; the reference writes %s", got, err, ref1983)
	}
	got, err := Encode(neg(1984))
	if err != nil || fmt.Sprintf("%X", got) == ref1984 {
		t.Errorf("-(2^1984) encodes to %X, %v: the reference's bytes, whose size prefix does not sort", got, err)
	}
	below, _ := Encode(term.BigInt(new(big.Int).Sub(neg(1984).BigInt(), big.NewInt(1))))
	above, _ := Encode(term.BigInt(new(big.Int).Add(neg(1984).BigInt(), big.NewInt(1))))
	if bytes.Compare(below, got) >= 0 || bytes.Compare(got, above) >= 0 {
		t.Errorf("-(2^1984) does not sort between its neighbours")
	}
	// -(2^2048-2^2030) < -(2^1984), but its complement takes 255 bytes to
	// -(2^1984)'s 256, and the reference's bytes sort it above (checked on
	// the reference).
	lower, _ := Encode(term.BigInt(new(big.Int).Neg(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 2048), new(big.Int).Lsh(big.NewInt(1), 2030)))))
	if bytes.Compare(lower, got) >= 0 {
		t.Errorf("-(2^2048-2^2030) does not sort below -(2^1984)")
	}
}

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
