package etf_test

import (
	"math"
	"math/big"
	"strings"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// Terms that OTP 25 accepts and writes back unchanged: no -0.0 (OTP 25 has
// 0.0 =:= -0.0, so a map may merge the two), no reference with a zero high
// word, and local (nonode@nohost, creation 0) pids, ports and references
// only in the ranges a non-distributed VM holds.

var genNodes = []string{"a@h", "a@hh", "nonode@nohos", "nonode@nohost", "nonode@nohosta", "z@h", "é@h", "ĳ@h", "nonode@nohost", "nonode@nohost"}

var genCreations = []uint32{0, 0, 0, 1, 2, 3, 4, 1 << 31, math.MaxUint32}

const localNode = "nonode@nohost"

func drawNodeCreation(t *rapid.T) (string, uint32, bool) {
	n := rapid.SampledFrom(genNodes).Draw(t, "node")
	c := rapid.SampledFrom(genCreations).Draw(t, "creation")
	return n, c, n == localNode && c == 0
}

func drawU32(t *rapid.T, label string, limit uint32) uint32 {
	v := rapid.OneOf(rapid.SampledFrom([]uint32{0, 1, 2, 30, 900}), rapid.Uint32()).Draw(t, label)
	if limit != 0 {
		v %= limit
	}
	return v
}

func drawPid(t *rapid.T) term.Term {
	n, c, local := drawNodeCreation(t)
	var idLim, serLim uint32
	if local {
		idLim, serLim = 1<<15, 1<<13
	}
	return term.Pid{Node: n, Creation: c, ID: drawU32(t, "id", idLim), Serial: drawU32(t, "serial", serLim)}.Term()
}

func drawPort(t *rapid.T) term.Term {
	n, c, local := drawNodeCreation(t)
	id := rapid.OneOf(rapid.SampledFrom([]uint64{0, 1, 433, 722, 1<<28 - 1, 1 << 28, math.MaxUint64}), rapid.Uint64()).Draw(t, "portid")
	if local {
		id %= 1 << 28
	}
	return term.Port{Node: n, Creation: c, ID: id}.Term()
}

func drawRef(t *rapid.T) term.Term {
	n, c, local := drawNodeCreation(t)
	if local {
		return term.Ref{Node: n, IDs: []uint32{drawU32(t, "w0", 1<<18), drawU32(t, "w1", 0), drawU32(t, "w2", 0)}}.Term()
	}
	k := rapid.IntRange(1, 5).Draw(t, "words") // erts reads a ref of no words only at the end of its input
	ids := make([]uint32, k)
	for i := range ids {
		ids[i] = drawU32(t, "w", 0)
	}
	if k > 1 && ids[k-1] == 0 {
		ids[k-1] = 1
	}
	return term.Ref{Node: n, Creation: c, IDs: ids}.Term()
}

func drawInt(t *rapid.T) term.Term {
	switch rapid.IntRange(0, 4).Draw(t, "intkind") {
	case 0:
		return term.Int(int64(rapid.IntRange(0, 255).Draw(t, "small")))
	case 1:
		return term.Int(int64(rapid.Int32().Draw(t, "i32")))
	case 2:
		return term.Int(rapid.Int64().Draw(t, "i64"))
	case 3:
		return term.Int(rapid.SampledFrom([]int64{-1, 0, 1, 255, 256, math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxInt64, math.MinInt64}).Draw(t, "edge"))
	}
	n := rapid.OneOf(rapid.IntRange(1, 40), rapid.IntRange(250, 300)).Draw(t, "bigbytes")
	b := new(big.Int).SetBytes(rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, "mag"))
	if rapid.Bool().Draw(t, "neg") {
		b.Neg(b)
	}
	return term.BigInt(b)
}

func drawFloat(t *rapid.T) term.Term {
	f := rapid.OneOf(rapid.Float64(), rapid.SampledFrom([]float64{0, 1, -1, 1.5, 0.1, 1e300, -1e-300, 5e-324, math.MaxFloat64, 2147483648.5, 1 << 53})).Draw(t, "float")
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		f = 0 // never -0.0
	}
	if rapid.Bool().Draw(t, "negf") && f != 0 {
		f = -f
	}
	return term.Float(f)
}

func drawAtom(t *rapid.T) term.Term {
	chars := rapid.SampledFrom([]string{"abz_@AZ09", "aé\u00ff\u00e0", "a\u0133\u4e2d😀"}).Draw(t, "charset")
	rs := []rune(chars)
	n := rapid.OneOf(rapid.IntRange(0, 12), rapid.IntRange(100, 255)).Draw(t, "atomlen")
	var sb strings.Builder
	for range n {
		sb.WriteRune(rs[rapid.IntRange(0, len(rs)-1).Draw(t, "ch")])
	}
	return term.Atom(sb.String())
}

func drawBinary(t *rapid.T) term.Term {
	b := rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "bytes")
	if len(b) == 0 || rapid.IntRange(0, 2).Draw(t, "whole") > 0 {
		return term.Binary(b)
	}
	return term.Bitstring(b, 8*(len(b)-1)+rapid.IntRange(1, 7).Draw(t, "tailbits"))
}

func drawString(t *rapid.T, heavy bool) term.Term {
	n := rapid.IntRange(1, 20).Draw(t, "strlen")
	if heavy && rapid.IntRange(0, 200).Draw(t, "long") == 0 { // around STRING_EXT's limit
		n = rapid.IntRange(65530, 65540).Draw(t, "longlen")
	}
	elems := make([]term.Term, n)
	c := rapid.IntRange(0, 255).Draw(t, "c")
	for i := range elems {
		elems[i] = term.Int(int64((c + i) % 256))
	}
	return term.List(elems...)
}

func drawLeaf(t *rapid.T) term.Term { return drawLeafOf(t, true) }

// drawLeafOf draws a leaf; heavy ones (strings near STRING_EXT's limit,
// LARGE_TUPLE_EXT tuples) only if heavy.
func drawLeafOf(t *rapid.T, heavy bool) term.Term {
	switch rapid.IntRange(0, 11).Draw(t, "leaf") {
	case 0, 1:
		return drawInt(t)
	case 2:
		return drawFloat(t)
	case 3:
		return drawAtom(t)
	case 4:
		return drawBinary(t)
	case 5:
		return drawString(t, heavy)
	case 6:
		return drawPid(t)
	case 7:
		return drawPort(t)
	case 8:
		return drawRef(t)
	case 9:
		return rapid.SampledFrom([]term.Term{term.List(), term.Tuple(), term.Map(), term.Binary(nil), term.Atom("true")}).Draw(t, "empty")
	case 10:
		if !heavy {
			return drawAtom(t)
		}
		n := rapid.IntRange(256, 260).Draw(t, "bigtuple")
		elems := make([]term.Term, n)
		for i := range elems {
			elems[i] = term.Int(int64(i % 3))
		}
		return term.Tuple(elems...)
	}
	return drawPid(t)
}

// drawTerm draws a term of depth up to depth with maps of up to maxKeys
// keys.
func drawTerm(t *rapid.T, depth, maxKeys int) term.Term { return drawTermOf(t, depth, maxKeys, true) }

// drawTermOf is drawTerm with heavy leaves only if heavy.
func drawTermOf(t *rapid.T, depth, maxKeys int, heavy bool) term.Term {
	if depth == 0 {
		return drawLeafOf(t, heavy)
	}
	switch rapid.IntRange(0, 7).Draw(t, "kind") {
	case 0:
		return term.Tuple(drawSlice(t, depth, maxKeys, heavy, 0, 4)...)
	case 1:
		return term.List(drawSlice(t, depth, maxKeys, heavy, 0, 4)...)
	case 2:
		elems := drawSlice(t, depth, maxKeys, heavy, 1, 3)
		return term.ImproperList(elems, rapid.OneOf(rapid.Custom(drawLeaf), rapid.Custom(drawBinary)).Draw(t, "tail"))
	case 3:
		return drawMap(t, depth, rapid.IntRange(0, min(6, maxKeys)).Draw(t, "mapsize"), maxKeys, heavy)
	}
	return drawLeafOf(t, heavy)
}

func drawSlice(t *rapid.T, depth, maxKeys int, heavy bool, lo, hi int) []term.Term {
	n := rapid.IntRange(lo, hi).Draw(t, "n")
	s := make([]term.Term, n)
	for i := range s {
		s[i] = drawTermOf(t, depth-1, maxKeys, heavy)
	}
	return s
}

func drawMap(t *rapid.T, depth, n, maxKeys int, heavy bool) term.Term {
	es := make([]term.MapEntry, n)
	for i := range es {
		es[i] = term.MapEntry{Key: drawTermOf(t, depth-1, maxKeys, heavy), Value: drawTermOf(t, depth-1, maxKeys, heavy)}
	}
	return term.Map(es...)
}

// drawSortable draws terms from a small pool, so that equal, near-equal
// and numerically tied terms meet often, with pids, ports and references
// weighted up.
func drawSortable(t *rapid.T, depth int) term.Term {
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leafy") > 0 {
		switch rapid.IntRange(0, 6).Draw(t, "sleaf") {
		case 0:
			return drawPid(t)
		case 1:
			return drawPort(t)
		case 2:
			return drawRef(t)
		case 3:
			v := rapid.OneOf(rapid.Int64Range(-2, 2), rapid.SampledFrom([]int64{1 << 53, 1<<53 + 1, -(1 << 53) - 1, math.MaxInt64, math.MinInt64})).Draw(t, "v")
			if rapid.Bool().Draw(t, "asfloat") {
				return term.Float(float64(v) + rapid.SampledFrom([]float64{0, 0, 0.5}).Draw(t, "frac"))
			}
			if rapid.IntRange(0, 5).Draw(t, "big") == 0 { // beyond int64, next to 2^64 as a float
				return term.BigInt(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(v), 1), big.NewInt(1)))
			}
			return term.Int(v)
		case 4:
			return rapid.SampledFrom([]term.Term{term.Atom("a"), term.Atom("b"), term.List(), term.Binary(nil), term.Binary([]byte("a")), term.Bitstring([]byte{0x80}, 1)}).Draw(t, "tiny")
		}
		return drawLeafOf(t, false)
	}
	n := rapid.IntRange(0, 3).Draw(t, "sn")
	s := make([]term.Term, n)
	for i := range s {
		s[i] = drawSortable(t, depth-1)
	}
	switch rapid.IntRange(0, 3).Draw(t, "skind") {
	case 0:
		return term.Tuple(s...)
	case 1:
		return term.List(s...)
	case 2:
		if n > 0 {
			return term.ImproperList(s, drawSortable(t, 0))
		}
		return term.List()
	}
	es := make([]term.MapEntry, n)
	for i := range es {
		es[i] = term.MapEntry{Key: s[i], Value: drawSortable(t, 0)}
	}
	return term.Map(es...)
}

// maxMapSize returns the size of the largest map in x.
func maxMapSize(x term.Term) int {
	m := 0
	switch x.Kind() {
	case term.KindMap:
		m = x.Len()
		for _, e := range x.Entries() {
			m = max(m, maxMapSize(e.Key), maxMapSize(e.Value))
		}
	case term.KindTuple:
		for _, e := range x.Elems() {
			m = max(m, maxMapSize(e))
		}
	case term.KindList:
		for _, e := range x.Elems() {
			m = max(m, maxMapSize(e))
		}
		if !x.IsProper() {
			m = max(m, maxMapSize(x.Tail()))
		}
	}
	return m
}

// asErts reports whether this package writes x byte for byte as erts
// does: every map in it of more than 32 keys has keys whose hash this
// package can compute (no atoms, pids, ports or references in them).
func asErts(x term.Term) bool {
	switch x.Kind() {
	case term.KindMap:
		if x.Len() > flatmapMax && !etf.KeysHashable(x) {
			return false
		}
		for _, e := range x.Entries() {
			if !asErts(e.Key) || !asErts(e.Value) {
				return false
			}
		}
	case term.KindTuple, term.KindList:
		for _, e := range x.Elems() {
			if !asErts(e) {
				return false
			}
		}
		if x.Kind() == term.KindList && !x.IsProper() {
			return asErts(x.Tail())
		}
	}
	return true
}
