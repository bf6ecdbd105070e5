package term

import "math/big"

// Digits to binary. math/big's SetString takes time quadratic in the
// number of digits; for long integers parseDigits splits the digits in
// halves, converts each, and joins them as hi·base^k + lo, so that the
// work is the multiplications math/big does in subquadratic time
// (Karatsuba): ten million digits take seconds, not minutes.

// directDigits is the length below which SetString is fastest.
const directDigits = 2000

// parseDigits converts digits, already checked to be valid in base, to a
// non-negative integer.
func parseDigits(digits string, base int) *big.Int {
	if len(digits) <= directDigits {
		b, _ := new(big.Int).SetString(digits, base)
		return b
	}
	c := digitPowers{base: big.NewInt(int64(base)), pow: map[int]*big.Int{}}
	return c.parse(digits)
}

// digitPowers caches base^k for the few k that halving a length gives.
type digitPowers struct {
	base *big.Int
	pow  map[int]*big.Int
}

func (c *digitPowers) power(k int) *big.Int {
	if p, ok := c.pow[k]; ok {
		return p
	}
	p := new(big.Int).Exp(c.base, big.NewInt(int64(k)), nil)
	c.pow[k] = p
	return p
}

func (c *digitPowers) parse(digits string) *big.Int {
	if len(digits) <= directDigits {
		b, _ := new(big.Int).SetString(digits, int(c.base.Int64()))
		return b
	}
	k := len(digits) / 2
	hi, lo := c.parse(digits[:len(digits)-k]), c.parse(digits[len(digits)-k:])
	return hi.Add(hi.Mul(hi, c.power(k)), lo)
}
