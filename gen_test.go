package sext

import (
	"math"
	"math/big"
	"strconv"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// Generators for the property suite. Leaves are drawn from small sets
// mixed with boundary values so that random pairs are often close: equal
// prefixes, equal values of different number types, neighbours at the
// 2^31, 2^63 and 2^64 boundaries, bitstrings one bit apart.

func genTerm(depth int) *rapid.Generator[term.Term] {
	return rapid.Custom(func(t *rapid.T) term.Term { return drawTerm(t, depth) })
}

func drawTerm(t *rapid.T, depth int) term.Term {
	// rapid favours small draws: numbering compounds first keeps them
	// frequent while depth lasts.
	kind := 7 + rapid.IntRange(0, 11).Draw(t, "leaf")
	if depth > 0 && rapid.IntRange(0, 1).Draw(t, "nest") == 0 {
		kind = rapid.IntRange(8, 11).Draw(t, "compound")
	}
	switch kind % 12 {
	case 0, 1:
		return drawInt(t)
	case 2:
		return term.Float(drawFloat(t))
	case 3:
		return term.Atom(drawAtomName(t))
	case 4, 5:
		return drawBits(t)
	case 6:
		return drawOpaque(t)
	case 7:
		return term.Tuple()
	case 8:
		n := rapid.IntRange(0, 4).Draw(t, "arity")
		elems := make([]term.Term, n)
		for i := range elems {
			elems[i] = drawTerm(t, depth-1)
		}
		return term.Tuple(elems...)
	case 9:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		elems := make([]term.Term, n)
		for i := range elems {
			elems[i] = drawTerm(t, depth-1)
		}
		if n > 0 && rapid.IntRange(0, 3).Draw(t, "improper") == 0 {
			tail := drawTerm(t, depth-1)
			if tail.Kind() != term.KindList {
				return term.ImproperList(elems, tail)
			}
		}
		return term.List(elems...)
	case 10:
		n := rapid.IntRange(0, 3).Draw(t, "size")
		entries := make([]term.MapEntry, n)
		for i := range entries {
			entries[i] = term.MapEntry{Key: drawTerm(t, depth-1), Value: drawTerm(t, depth-1)}
		}
		return term.Map(entries...)
	default:
		return term.Desc(drawTerm(t, depth-1))
	}
}

var intEdges = []string{
	"0", "1", "-1", "2", "-2",
	"2147483646", "2147483647", "2147483648", "-2147483647", "-2147483648", "-2147483649",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "18446744073709551617",
	"-18446744073709551615", "-18446744073709551616", "-18446744073709551617",
	"340282366920938463463374607431768211455", "-340282366920938463463374607431768211456",
}

func drawInt(t *rapid.T) term.Term {
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
		return term.BigInt(drawBig(t, 40))
	}
}

// drawBig draws an integer of up to maxBytes bytes, either sign.
func drawBig(t *rapid.T, maxBytes int) *big.Int {
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

func drawFloat(t *rapid.T) float64 {
	var f float64
	switch rapid.IntRange(0, 3).Draw(t, "floatkind") {
	case 0:
		f = rapid.SampledFrom(floatEdges).Draw(t, "edge")
	case 1:
		f = float64(rapid.Int64Range(-3, 3).Draw(t, "small"))
	case 2:
		f = math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		if math.IsNaN(f) || math.IsInf(f, 0) {
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

var atomChars = []rune{'a', 'b', 'z', 'A', '_', '@', '0', ' ', '\'', 'é', 'ÿ', 0x7f, 0x80, 0}

func drawAtomName(t *rapid.T) string {
	rs := rapid.SliceOfN(rapid.SampledFrom(atomChars), 0, 4).Draw(t, "name")
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

func drawOpaque(t *rapid.T) term.Term {
	node := rapid.SampledFrom(nodes).Draw(t, "node")
	u32 := rapid.SampledFrom([]uint32{0, 1, 3, 4, 255, 1<<28 - 1, 1 << 28, math.MaxUint32})
	switch rapid.IntRange(0, 2).Draw(t, "opaque") {
	case 0:
		return term.Pid{Node: node, ID: u32.Draw(t, "id"), Serial: u32.Draw(t, "serial"), Creation: u32.Draw(t, "creation")}.Term()
	case 1:
		id := rapid.SampledFrom([]uint64{0, 5, 1<<28 - 1, 1 << 28, 1 << 40, math.MaxUint64}).Draw(t, "portid")
		return term.Port{Node: node, ID: id, Creation: u32.Draw(t, "creation")}.Term()
	}
	ids := rapid.SliceOfN(u32, 1, 5).Draw(t, "ids")
	return term.Ref{Node: node, Creation: u32.Draw(t, "creation"), IDs: ids}.Term()
}

// mutate returns a term close to x: one leaf somewhere replaced or nudged.
func mutate(t *rapid.T, x term.Term) term.Term {
	switch x.Kind() {
	case term.KindTuple, term.KindList:
		elems := x.Elems()
		if len(elems) == 0 || rapid.IntRange(0, 4).Draw(t, "here") == 0 {
			break
		}
		i := rapid.IntRange(0, len(elems)-1).Draw(t, "at")
		c := append([]term.Term(nil), elems...)
		c[i] = mutate(t, c[i])
		if x.Kind() == term.KindTuple {
			return term.Tuple(c...)
		}
		if x.IsProper() {
			return term.List(c...)
		}
		return term.ImproperList(c, x.Tail())
	case term.KindDesc:
		return term.Desc(mutate(t, x.Inner()))
	case term.KindInt:
		b := new(big.Int).Add(x.BigInt(), big.NewInt(rapid.Int64Range(-1, 1).Draw(t, "d")))
		if rapid.Bool().Draw(t, "tofloat") {
			f, _ := new(big.Float).SetInt(b).Float64()
			return term.Float(f)
		}
		return term.BigInt(b)
	case term.KindFloat:
		f := x.Float()
		if rapid.Bool().Draw(t, "toint") && math.Abs(f) < 1e30 {
			b, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
			return term.BigInt(b)
		}
		g := math.Nextafter(f, rapid.SampledFrom([]float64{math.Inf(1), math.Inf(-1)}).Draw(t, "dir"))
		if math.IsInf(g, 0) {
			g = math.Nextafter(f, 0)
		}
		return term.Float(g)
	case term.KindBinary:
		n := x.BitLen()
		if n > 0 && rapid.Bool().Draw(t, "flip") {
			b := append([]byte(nil), x.Bytes()...)
			bit := rapid.IntRange(0, n-1).Draw(t, "bit")
			b[bit/8] ^= 0x80 >> (bit % 8)
			return term.Bitstring(b, n)
		}
		if n > 0 {
			return term.Bitstring(x.Bytes(), n-1)
		}
	}
	return drawTerm(t, 1)
}

// drawPattern turns x into a pattern that x matches, by replacing
// subterms (and list tails) with wildcards. Each '$N' is used once.
func drawPattern(t *rapid.T, x term.Term, n *int) term.Term {
	if rapid.IntRange(0, 6).Draw(t, "wild") == 0 {
		return drawWildcard(t, n)
	}
	switch x.Kind() {
	case term.KindTuple:
		elems := x.Elems()
		c := make([]term.Term, len(elems))
		for i := range elems {
			c[i] = drawPattern(t, elems[i], n)
		}
		return term.Tuple(c...)
	case term.KindList:
		elems := x.Elems()
		if len(elems) > 0 && rapid.IntRange(0, 3).Draw(t, "wildtail") == 0 {
			k := rapid.IntRange(0, len(elems)).Draw(t, "keep")
			c := make([]term.Term, k)
			for i := range c {
				c[i] = drawPattern(t, elems[i], n)
			}
			return term.ImproperList(c, drawWildcard(t, n))
		}
		c := make([]term.Term, len(elems))
		for i := range elems {
			c[i] = drawPattern(t, elems[i], n)
		}
		if x.IsProper() {
			return term.List(c...)
		}
		return term.ImproperList(c, drawPattern(t, x.Tail(), n))
	case term.KindMap:
		// Keys stay as they are: a wildcard key could move in key order.
		es := x.Entries()
		c := make([]term.MapEntry, len(es))
		for i, e := range es {
			c[i] = term.MapEntry{Key: e.Key, Value: drawPattern(t, e.Value, n)}
		}
		return term.Map(c...)
	case term.KindDesc:
		return term.Desc(drawPattern(t, x.Inner(), n))
	}
	return x
}

func drawWildcard(t *rapid.T, n *int) term.Term {
	if rapid.Bool().Draw(t, "anon") {
		return term.Atom("_")
	}
	*n++
	return term.Atom("$" + strconv.Itoa(*n))
}
