package etf

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/erlsext/sext/term"
)

// OTP 25 stores a map of more than 32 keys as a HAMT keyed by its internal
// term hash (make_internal_hash with salt 0, Bob Jenkins' mix on Debian's
// amd64 build), four hash bits a level, and term_to_binary writes the
// leaves in the trie's order. This file computes that hash and order for
// the keys whose hash depends on nothing but the term: numbers, binaries,
// bitstrings, and lists, tuples and maps of those. Atoms hash by their
// index in the VM's atom table, pids, ports and references of other nodes
// by the address of their node's entry, and local ones as words only the
// VM knows to be local, so no one outside that VM can know their hash; a
// map with such a key keeps this package's key order.

// flatmapLimit is the most keys erts keeps in a flat, sorted map.
const flatmapLimit = 32

// Constants of erts's hash: the golden ratio, its multiples and the salt
// of the internal hash.
const (
	hconst    = 0x9e3779b9
	hconst4   = 0x78dde6e4
	hconst9   = 0x8ff34781
	hconst10  = 0x2e2ac13a
	hconst11  = 0xcc623af3
	hconst12  = 0x6a99b4ac
	hconst13  = 0x08d12e65
	hconst15  = 0x454021d7
	hconst16  = 0xe3779b90
	hconst17  = 0x81af1549
	hconst18  = 0x1fe68f02
	hconst22  = 0x98c475e6
	hashSalt  = 3432918353
	nilWord   = 0x3b // the tagged word of [] (OTP 25)
	smallTag  = 0xf  // a small integer's immediate tag
	smallBits = 60   // the width of a small integer on 64 bits
)

// mix is Bob Jenkins' 96-bit mix; the hash is the third word.
func mix(a, b, c uint32) uint32 {
	_, _, c = mix3(a, b, c)
	return c
}

func hash2(h, x, y, k uint32) uint32 { return mix(k+x, k+y, h) }

func hashWord(h uint32, w uint64) uint32 { return hash2(h, uint32(w), uint32(w>>32), hconst) }

// constHash mixes in a type constant cheaply, as erts does around a cons
// cell's head and tail.
func constHash(h, k uint32) uint32 { return bits.RotateLeft32(h^k, 17) }

// hashable reports whether t's internal hash is a function of t alone,
// looking no more than depth levels down (deeper terms are left to the
// encoder's depth error), and whether t holds no more than nest maps of
// more than 32 keys one inside another's key. Each such map's hash needs
// its keys' order, so their hashes, and then hashes them again in that
// order: the cost doubles with each one a key holds inside another's key,
// and nest bounds it.
func hashable(t term.Term, depth, nest int) bool {
	if depth < 0 {
		return false
	}
	switch t.Kind() {
	case term.KindInt, term.KindFloat, term.KindBinary:
		return true
	case term.KindTuple, term.KindList:
		for _, x := range t.Elems() {
			if !hashable(x, depth-1, nest) {
				return false
			}
		}
		return t.Kind() == term.KindTuple || t.IsProper() || hashable(t.Tail(), depth-1, nest)
	case term.KindMap:
		es := t.Entries()
		keyNest := nest
		if len(es) > flatmapLimit {
			if nest == 0 {
				return false
			}
			keyNest--
		}
		for _, e := range es {
			if !hashable(e.Key, depth-1, keyNest) || !hashable(e.Value, depth-1, nest) {
				return false
			}
		}
		return true
	}
	return false
}

// hashNest is how many maps of more than 32 keys a hashmap's key may hold
// one inside another's key, for the hashmap to be written in erts's order:
// hashing such a key costs up to 2^hashNest times its size. A key nesting
// more is written in key order, as one holding an atom is.
const hashNest = 3

// internalHash continues the hash h with t, which must be hashable.
func internalHash(h uint32, t term.Term) uint32 {
	switch t.Kind() {
	case term.KindInt:
		return hashInt(h, t)
	case term.KindFloat:
		f := t.Float()
		if f == 0 {
			f = 0 // -0.0 hashes as 0.0
		}
		b := math.Float64bits(f)
		return hash2(h, uint32(b), uint32(b>>32), hconst12)
	case term.KindBinary:
		return hashBits(h, t.Bytes(), t.BitLen())
	case term.KindTuple:
		elems := t.Elems()
		h = hash2(h, uint32(len(elems)), 0, hconst9)
		for _, x := range elems {
			h = internalHash(h, x)
		}
		return h
	case term.KindList:
		if len(t.Elems()) == 0 {
			return hashWord(h, nilWord)
		}
		return hashList(h, t.Elems(), t.Tail())
	case term.KindMap:
		es := t.Entries()
		h = hash2(h, uint32(len(es)), 0, hconst16)
		if len(es) > flatmapLimit {
			es = hamtOrder(es)
		}
		for _, e := range es {
			h = internalHash(internalHash(h, e.Key), e.Value)
		}
		return h
	}
	return h // unreachable: callers check hashable first
}

func hashInt(h uint32, t term.Term) uint32 {
	if t.IsInt64() && t.Int64() >= -1<<(smallBits-1) && t.Int64() < 1<<(smallBits-1) {
		return hashWord(h, uint64(t.Int64())<<4|smallTag)
	}
	k := uint32(hconst11)
	words, neg := t.BigBits()
	if t.IsInt64() { // beyond erts's small integers, within int64
		mag := uint64(t.Int64())
		if t.Int64() < 0 {
			neg, mag = true, -mag
		}
		var buf [2]big.Word
		words = append(buf[:0], big.Word(mag))
		if bits.UintSize == 32 && mag>>32 != 0 {
			words = append(words, big.Word(mag>>32))
		}
	}
	if neg {
		k = hconst10
	}
	// erts's bignum digits are 64-bit words, least significant first,
	// whatever this machine's word.
	step := 64 / bits.UintSize
	for i := 0; i < len(words); i += step {
		w := uint64(words[i])
		if step == 2 && i+1 < len(words) {
			w |= uint64(words[i+1]) << 32
		}
		h = hash2(h, uint32(w), uint32(w>>32), k)
	}
	return h
}

// hashBits is the hash of a binary: Jenkins' block hash of its whole bytes,
// then the trailing bits of a bitstring.
func hashBits(h uint32, b []byte, nbits int) uint32 {
	whole, tail := nbits/8, nbits%8
	con := hconst13 + h
	if whole == 0 && tail == 0 {
		return con
	}
	h = blockHash(b[:whole], con)
	if tail > 0 {
		h = hash2(h, uint32(tail), uint32(b[whole]>>(8-tail)), hconst15)
	}
	return h
}

func le32(k []byte) uint32 {
	return uint32(k[0]) | uint32(k[1])<<8 | uint32(k[2])<<16 | uint32(k[3])<<24
}

func blockHash(k []byte, initval uint32) uint32 {
	a, b, c := uint32(hconst), uint32(hconst), initval
	n := len(k)
	for len(k) >= 12 {
		a += le32(k)
		b += le32(k[4:])
		c += le32(k[8:])
		a, b, c = mix3(a, b, c)
		k = k[12:]
	}
	c += uint32(n)
	var last [12]byte
	copy(last[:], k)
	// The first byte of c is the length's: the tail fills c from byte 1.
	a += le32(last[:])
	b += le32(last[4:])
	c += le32(last[8:]) << 8
	return mix(a, b, c)
}

// mix3 is Jenkins' mix returning all three words, for the block hash's
// rounds.
func mix3(a, b, c uint32) (uint32, uint32, uint32) {
	a -= b
	a -= c
	a ^= c >> 13
	b -= c
	b -= a
	b ^= a << 8
	c -= a
	c -= b
	c ^= b >> 13
	a -= b
	a -= c
	a ^= c >> 12
	b -= c
	b -= a
	b ^= a << 16
	c -= a
	c -= b
	c ^= b >> 5
	a -= b
	a -= c
	a ^= c >> 3
	b -= c
	b -= a
	b ^= a << 10
	c -= a
	c -= b
	c ^= b >> 15
	return a, b, c
}

func isByte(t term.Term) bool {
	return t.IsInt64() && t.Int64() >= 0 && t.Int64() <= 255
}

// hashList hashes the cons cells of elems ending in tail: runs of byte
// heads four at a time, other heads between two type constants.
func hashList(h uint32, elems []term.Term, tail term.Term) uint32 {
	i := 0
	for {
		c, sh := 0, uint32(0)
		for ; i < len(elems) && isByte(elems[i]); i++ {
			sh = sh<<8 + uint32(elems[i].Int64())
			if c == 3 {
				h = hash2(h, sh, 0, hconst4)
				c, sh = 0, 0
			} else {
				c++
			}
		}
		if c > 0 {
			h = hash2(h, sh, uint32(c), hconst22)
		}
		if i == len(elems) {
			return internalHash(h, tail)
		}
		h = internalHash(constHash(h, hconst17), elems[i])
		i++
		if i == len(elems) {
			return internalHash(constHash(h, hconst18), tail)
		}
	}
}

// keyHash is the hash that places key at level lvl of the trie. Each
// eight levels use up a 32-bit hash, so erts (make_map_hash) starts the
// internal hash of the next eight from a seed of the depth lvl/8, mixed
// as a one-byte string's run would be; depth 0 is the plain internal hash.
func keyHash(key term.Term, lvl int) uint32 {
	var seed uint32
	if d := uint32(lvl >> 3); d > 0 {
		seed = hash2(0, d, 1, hconst22)
	}
	return internalHash(seed^hashSalt, key)
}

// maxLevels bounds the trie's depth: keys whose seeded hashes agree this
// far are left in their key order.
const maxLevels = 64

// hamtOrder returns es, all of whose keys are hashable, in the order
// term_to_binary writes a hashmap's leaves: depth first, the highest slot
// of a node first. That is the descending order of the keys' hashes read
// four bits at a time from the lowest, so a sort on the nibble-reversed
// hash gives it; keys whose first hashes tie go on to the salted hashes
// of the deeper levels.
func hamtOrder(es []term.MapEntry) []term.MapEntry {
	ks := make([]keyed, len(es))
	for i, e := range es {
		ks[i] = keyed{reverseNibbles(keyHash(e.Key, 0)), int32(i)}
	}
	sortKeyed(es, ks, 0)
	out := make([]term.MapEntry, len(ks))
	for i, k := range ks {
		out[i] = es[k.i]
	}
	return out
}

// keyed is a key's place in the sort: no pointers, so sorting moves eight
// bytes and no write barriers.
type keyed struct {
	r uint32 // the nibble-reversed hash of the current eight levels
	i int32  // the entry's index, which breaks final ties in key order
}

// sortKeyed sorts ks, indices into es, from level lvl on; ties are
// rehashed eight levels down.
func sortKeyed(es []term.MapEntry, ks []keyed, lvl int) {
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.r != b.r {
			return cmp.Compare(b.r, a.r)
		}
		return cmp.Compare(a.i, b.i)
	})
	if lvl+8 >= maxLevels {
		return
	}
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j].r == ks[i].r {
			j++
		}
		if j-i > 1 {
			tie := ks[i:j]
			for t := range tie {
				tie[t].r = reverseNibbles(keyHash(es[tie[t].i].Key, lvl+8))
			}
			sortKeyed(es, tie, lvl+8)
		}
		i = j
	}
}

// reverseNibbles reverses the order of the eight 4-bit groups of x.
func reverseNibbles(x uint32) uint32 {
	return bits.ReverseBytes32(x&0x0f0f0f0f<<4 | x>>4&0x0f0f0f0f)
}

// hashableKeys reports whether every key of es is hashable within depth
// and hashNest.
func hashableKeys(es []term.MapEntry, depth int) bool {
	for _, e := range es {
		if !hashable(e.Key, depth, hashNest) {
			return false
		}
	}
	return true
}
