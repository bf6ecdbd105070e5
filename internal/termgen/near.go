package termgen

import (
	"math"
	"math/big"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// Near returns a term close to x: one leaf somewhere replaced or nudged
// (an integer by one, possibly into a float of that value; a float to its
// neighbour or its integer part; a bitstring by one bit), so that x and
// the result sit on either side of an order boundary.
func Near(t *rapid.T, x term.Term, o Options) term.Term {
	switch x.Kind() {
	case term.KindTuple, term.KindList:
		elems := x.Elems()
		if len(elems) == 0 || rapid.IntRange(0, 4).Draw(t, "here") == 0 {
			break
		}
		i := rapid.IntRange(0, len(elems)-1).Draw(t, "at")
		c := append([]term.Term(nil), elems...)
		c[i] = Near(t, c[i], o)
		if x.Kind() == term.KindTuple {
			return term.Tuple(c...)
		}
		if x.IsProper() {
			return term.List(c...)
		}
		return term.ImproperList(c, x.Tail())
	case term.KindDesc:
		return term.Desc(Near(t, x.Inner(), o))
	case term.KindInt:
		b := new(big.Int).Add(x.BigInt(), big.NewInt(rapid.Int64Range(-1, 1).Draw(t, "d")))
		if o.Legacy && (b.CmpAbs(big.NewInt(maxSmall)) > 0) {
			b.Sub(b, big.NewInt(int64(b.Sign()))) // back inside
		}
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
		if math.IsInf(g, 0) || o.Legacy && !fitsLegacy(g) {
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
	return draw(t, o, min(o.Depth, 1))
}
