package termgen

import (
	"math"
	"math/big"
	"slices"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

var intEdges = []string{
	"0", "1", "-1", "2", "-2",
	"2147483646", "2147483647", "2147483648", "-2147483647", "-2147483648", "-2147483649",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "18446744073709551617",
	"-18446744073709551615", "-18446744073709551616", "-18446744073709551617",
	"340282366920938463463374607431768211455", "-340282366920938463463374607431768211456",
}

// maxSmall bounds the integers written without a bignum body, the only
// ones whose legacy layout sorts as the current one does.
const maxSmall = 1<<31 - 1

// legacyIntEdges are the edges within ±maxSmall.
var legacyIntEdges = []int64{0, 1, -1, 2, -2, maxSmall - 1, maxSmall, -maxSmall, -maxSmall + 1}

func drawInt(t *rapid.T, o Options) term.Term {
	if o.Legacy {
		switch rapid.IntRange(0, 2).Draw(t, "intkind") {
		case 0:
			return term.Int(rapid.Int64Range(-3, 3).Draw(t, "small"))
		case 1:
			return term.Int(rapid.SampledFrom(legacyIntEdges).Draw(t, "edge"))
		}
		return term.Int(rapid.Int64Range(-maxSmall, maxSmall).Draw(t, "int32"))
	}
	switch rapid.IntRange(0, 4).Draw(t, "intkind") {
	case 0:
		return term.Int(rapid.Int64Range(-3, 3).Draw(t, "small"))
	case 1:
		b, _ := new(big.Int).SetString(rapid.SampledFrom(intEdges).Draw(t, "edge"), 10)
		b.Add(b, big.NewInt(rapid.Int64Range(-1, 1).Draw(t, "nudge")))
		return term.BigInt(b)
	case 2:
		return term.Int(rapid.Int64().Draw(t, "int64"))
	default:
		return term.BigInt(DrawBig(t, 40))
	}
}

// DrawBig draws an integer of up to maxBytes bytes, either sign.
func DrawBig(t *rapid.T, maxBytes int) *big.Int {
	mag := rapid.SliceOfN(rapid.Byte(), 1, maxBytes).Draw(t, "mag")
	b := new(big.Int).SetBytes(mag)
	if rapid.Bool().Draw(t, "neg") {
		b.Neg(b)
	}
	return b
}

var floatEdges = []float64{
	0, 1, 0.5, 0.1, 1.5, 2147483647.5, 2147483648, 2147483648.5, 1 << 52, 1<<52 + 0.5,
	1 << 53, 1 << 63, 1 << 64, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64,
	2.2250738585072014e-308, 2.225073858507201e-308, 123.456, 1e-300,
}

// legacyFloatEdges are the edges whose integer part is within maxSmall.
var legacyFloatEdges = slices.DeleteFunc(slices.Clone(floatEdges), func(f float64) bool { return !fitsLegacy(f) })

func fitsLegacy(f float64) bool { return math.Abs(f) < maxSmall+1 }

func drawFloat(t *rapid.T, o Options) float64 {
	edges := floatEdges
	if o.Legacy {
		edges = legacyFloatEdges
	}
	var f float64
	switch rapid.IntRange(0, 3).Draw(t, "floatkind") {
	case 0:
		f = rapid.SampledFrom(edges).Draw(t, "edge")
	case 1:
		f = float64(rapid.Int64Range(-3, 3).Draw(t, "small"))
	case 2:
		f = math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		if math.IsNaN(f) || math.IsInf(f, 0) || o.Legacy && !fitsLegacy(f) {
			f = 0
		}
	default:
		f = float64(rapid.Int64Range(-1000, 1000).Draw(t, "n")) / 8
	}
	if rapid.Bool().Draw(t, "negf") {
		f = -f
	}
	return f
}

var (
	atomChars = []rune{'a', 'b', 'z', 'A', '_', '@', '0', ' ', '\'', 'é', 'ÿ', 0x7f, 0x80, 0}
	// utf8Chars add characters beyond Latin-1, of two, three and four
	// bytes in UTF-8.
	utf8Chars = append(slices.Clone(atomChars), 0x100, 'λ', '日', '😀')
)

func drawAtomName(t *rapid.T, o Options) string {
	if len(o.Atoms) > 0 {
		return rapid.SampledFrom(o.Atoms).Draw(t, "atom")
	}
	chars := atomChars
	if o.UTF8Atoms {
		chars = utf8Chars
	}
	rs := rapid.SliceOfN(rapid.SampledFrom(chars), 0, 4).Draw(t, "name")
	return string(rs)
}

// drawBits draws a binary or a bitstring.
func drawBits(t *rapid.T) term.Term {
	b := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 0x7f, 0x80, 0xfe, 0xff, 'a'}), 0, 12).Draw(t, "bytes")
	if rapid.IntRange(0, 2).Draw(t, "whole") > 0 || len(b) == 0 {
		return term.Binary(b)
	}
	return term.Bitstring(b, 8*(len(b)-1)+rapid.IntRange(1, 7).Draw(t, "tailbits"))
}

var nodes = []string{"a@b", "b@h", "nonode@nohost", "", "n@é"}

// drawOpaque draws a pid, a port or a reference, as o.Kinds allows.
func drawOpaque(t *rapid.T, o Options) term.Term {
	node := rapid.SampledFrom(nodes).Draw(t, "node")
	u32 := rapid.SampledFrom([]uint32{0, 1, 3, 4, 255, 1<<28 - 1, 1 << 28, math.MaxUint32})
	var which int
	if o.Kinds == nil {
		which = rapid.IntRange(0, 2).Draw(t, "opaque")
	} else {
		var ok []int
		for i, k := range []term.Kind{term.KindPid, term.KindPort, term.KindRef} {
			if slices.Contains(o.Kinds, k) {
				ok = append(ok, i)
			}
		}
		which = rapid.SampledFrom(ok).Draw(t, "opaque")
	}
	switch which {
	case 0:
		return term.Pid{Node: node, ID: u32.Draw(t, "id"), Serial: u32.Draw(t, "serial"), Creation: u32.Draw(t, "creation")}.Term()
	case 1:
		id := rapid.SampledFrom([]uint64{0, 5, 1<<28 - 1, 1 << 28, 1 << 40, math.MaxUint64}).Draw(t, "portid")
		return term.Port{Node: node, ID: id, Creation: u32.Draw(t, "creation")}.Term()
	}
	ids := rapid.SliceOfN(u32, 1, 5).Draw(t, "ids")
	return term.Ref{Node: node, Creation: u32.Draw(t, "creation"), IDs: ids}.Term()
}
