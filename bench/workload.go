package main

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// A workload is a named generator of terms, deterministic from a seed.
type workload struct {
	name  string
	doc   string
	n     int // default number of terms for the runner and the chart
	bench int // number of terms for one op of the Go benchmarks
	gen   func(r *rand.Rand) term.Term
}

// workloads lists every workload, in the order reports show them.
var workloads = []workload{
	{"study", "the cps-decoder study's random terms, depth 1..5", 100000, 10000, studyTerm},
	{"kv", "store keys: {user, Id, <<Name>>}, {order, CustomerId, {Y,M,D}, OrderId}", 100000, 10000, kvKey},
	{"binary", "binaries of 1 KB to 64 KB", 200, 64, bigBinary},
	{"deep", "lists and tuples nested 1000 levels", 200, 20, deepTerm},
	{"numbers", "floats and bignums", 100000, 10000, number},
}

func findWorkload(name string) (workload, error) {
	for _, w := range workloads {
		if w.name == name {
			return w, nil
		}
	}
	names := make([]string, len(workloads))
	for i, w := range workloads {
		names[i] = w.name
	}
	return workload{}, fmt.Errorf("unknown workload %q (have %s)", name, strings.Join(names, ", "))
}

// newRand returns the generator every workload draws from.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
}

// generate returns n terms of w drawn from seed.
func (w workload) generate(n int, seed uint64) []term.Term {
	r := newRand(seed)
	ts := make([]term.Term, n)
	for i := range ts {
		ts[i] = w.gen(r)
	}
	return ts
}

// corpus is a workload's terms with their encodings.
type corpus struct {
	name  string
	terms []term.Term
	encs  [][]byte
	bytes int // total encoded bytes
}

func newCorpus(name string, terms []term.Term) (*corpus, error) {
	c := &corpus{name: name, terms: terms, encs: make([][]byte, len(terms))}
	for i, t := range terms {
		b, err := sext.Encode(t)
		if err != nil {
			return nil, fmt.Errorf("%s: term %d: %v", name, i, err)
		}
		c.encs[i] = b
		c.bytes += len(b)
	}
	return c, nil
}

// uniform is Erlang's rand:uniform(n): an integer in 1..n.
func uniform(r *rand.Rand, n int) int { return 1 + r.IntN(n) }

// studyTerm ports generate.erl of github.com/mikpe/cps-decoder: a depth
// uniform in 1..5, then a list, tuple, binary, positive or negative
// integer with equal chance.
func studyTerm(r *rand.Rand) term.Term { return studyDepth(r, uniform(r, 5)) }

func studyDepth(r *rand.Rand, d int) term.Term {
	switch uniform(r, 5) {
	case 1:
		return studyList(r, d)
	case 2:
		if d == 0 {
			return term.Tuple()
		}
		elems := make([]term.Term, uniform(r, 1<<d)-1)
		for i := range elems {
			elems[i] = studyDepth(r, d-1)
		}
		return term.Tuple(elems...)
	case 3:
		b := make([]byte, uniform(r, 1<<d)-1)
		randBytes(r, b)
		return term.Binary(b)
	case 4:
		return term.BigInt(studyPosInt(r, d))
	default:
		return term.BigInt(new(big.Int).Neg(studyPosInt(r, d)))
	}
}

// studyList makes up to 2^d-1 elements of depth d-1; the last one either
// ends the proper list or, with even chance, is its tail (so a list of one
// element may be no list at all, as in the study).
func studyList(r *rand.Rand, d int) term.Term {
	if d == 0 {
		return term.List()
	}
	w := uniform(r, 1<<d) - 1
	if w == 0 {
		return term.List()
	}
	elems := make([]term.Term, w-1, w)
	for i := range elems {
		elems[i] = studyDepth(r, d-1)
	}
	last := studyDepth(r, d-1)
	if uniform(r, 16) > 8 {
		return term.List(append(elems, last)...)
	}
	return term.ImproperList(elems, last)
}

// studyPosInt is a non-negative integer of 1..2^d random bytes.
func studyPosInt(r *rand.Rand, d int) *big.Int {
	b := make([]byte, uniform(r, 1<<d))
	randBytes(r, b)
	return new(big.Int).SetBytes(b)
}

func randBytes(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

var names = []string{"alice", "bob", "carol", "dave", "eve", "frank", "grace",
	"heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert",
	"sybil", "trent", "victor", "walter", "xavier", "yolanda", "zoe"}

// kvKey is a key of an ordered store, as applications write them.
func kvKey(r *rand.Rand) term.Term {
	switch r.IntN(4) {
	case 0, 1:
		return term.Tuple(term.Atom("user"), term.Int(int64(r.IntN(10_000_000))),
			term.Binary([]byte(names[r.IntN(len(names))])))
	case 2:
		return term.Tuple(term.Atom("order"), term.Int(int64(r.IntN(1_000_000))),
			term.Tuple(term.Int(int64(2020+r.IntN(10))), term.Int(int64(uniform(r, 12))), term.Int(int64(uniform(r, 28)))),
			term.Int(int64(r.IntN(1<<40))))
	default:
		sid := make([]byte, 16)
		randBytes(r, sid)
		return term.Tuple(term.Atom("session"), term.Binary(sid), term.Atom("active"))
	}
}

// bigBinary is a binary of 1 KB to 64 KB random bytes.
func bigBinary(r *rand.Rand) term.Term {
	b := make([]byte, 1024+r.IntN(63*1024+1))
	randBytes(r, b)
	return term.Binary(b)
}

// deepTerm nests 1000 levels, alternating a list [Child, Level] and a
// tuple {Level, Child}, around a short binary.
func deepTerm(r *rand.Rand) term.Term {
	const levels = 1000
	b := make([]byte, 1+r.IntN(8))
	randBytes(r, b)
	t := term.Binary(b)
	for i := levels; i > 0; i-- {
		if i%2 == 0 {
			t = term.List(t, term.Int(int64(i)))
		} else {
			t = term.Tuple(term.Int(int64(i)), t)
		}
	}
	return t
}

// number is a float or an integer beyond 64 bits, either sign.
func number(r *rand.Rand) term.Term {
	neg := r.IntN(2) == 0
	if r.IntN(2) == 0 {
		// Exponents from 2^-64 to 2^100: fractions, mixed, large
		// integral floats with a bignum integer part.
		e := uint64(1023 - 64 + r.IntN(165))
		f := math.Float64frombits(e<<52 | r.Uint64()&(1<<52-1))
		if neg {
			f = -f
		}
		return term.Float(f)
	}
	b := make([]byte, 9+r.IntN(56)) // 9..64 bytes
	randBytes(r, b)
	b[0] |= 1
	x := new(big.Int).SetBytes(b)
	if neg {
		x.Neg(x)
	}
	return term.BigInt(x)
}

// concat joins the encodings, the input of DecodeNext.
func (c *corpus) concat() []byte {
	return slices.Concat(c.encs...)
}
