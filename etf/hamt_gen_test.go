package etf_test

import (
	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// drawHashKey draws a map key of a kind whose OTP 25 hash depends on the
// term alone: integers small and big, floats, binaries, bitstrings,
// strings, tuples, lists proper and improper, and maps (small and, now and
// then, hashmaps) of those.
func drawHashKey(t *rapid.T, depth int) term.Term {
	k := rapid.IntRange(0, 11).Draw(t, "hkind")
	if depth == 0 && k >= 6 {
		k %= 6
	}
	switch k {
	case 0, 1:
		return drawInt(t)
	case 2:
		return drawFloat(t)
	case 3:
		return drawBinary(t)
	case 4:
		return drawString(t, false)
	case 5:
		return rapid.SampledFrom([]term.Term{term.List(), term.Tuple(), term.Map(), term.Binary(nil), term.Int(0)}).Draw(t, "hempty")
	case 6, 7:
		return term.Tuple(drawHashKeys(t, depth-1, 0, 4)...)
	case 8:
		return term.List(drawHashKeys(t, depth-1, 0, 4)...)
	case 9:
		return term.ImproperList(drawHashKeys(t, depth-1, 1, 3), drawHashKey(t, 0))
	case 10:
		return drawHashMap(t, depth-1, 0, 5)
	}
	if rapid.IntRange(0, 3).Draw(t, "bignested") == 0 {
		return drawHashMap(t, 0, 33, 40) // a hashmap as a key
	}
	return drawHashMap(t, depth-1, 0, 5)
}

func drawHashKeys(t *rapid.T, depth, lo, hi int) []term.Term {
	s := make([]term.Term, rapid.IntRange(lo, hi).Draw(t, "hn"))
	for i := range s {
		s[i] = drawHashKey(t, depth)
	}
	return s
}

// drawHashMap draws a map of lo..hi keys (fewer if some coincide) whose
// keys and values are all hashable.
func drawHashMap(t *rapid.T, depth, lo, hi int) term.Term {
	es := make([]term.MapEntry, rapid.IntRange(lo, hi).Draw(t, "hmapsize"))
	for i := range es {
		es[i] = term.MapEntry{Key: drawHashKey(t, depth), Value: drawHashKey(t, 0)}
	}
	return term.Map(es...)
}

// drawBigMap draws a map of 33..200 keys from key, topped up with integer
// keys when drawn keys coincide, with leaves of every kind as values.
func drawBigMap(t *rapid.T, key func(*rapid.T) term.Term) term.Term {
	n := rapid.IntRange(33, 200).Draw(t, "bigmapsize")
	es := make([]term.MapEntry, n, n+flatmapMax)
	for i := range es {
		es[i] = term.MapEntry{Key: key(t), Value: drawLeafOf(t, false)}
	}
	m := term.Map(es...)
	for i := 0; m.Len() <= flatmapMax; i++ {
		m = term.Map(append(m.Entries(), term.MapEntry{Key: term.Int(int64(1<<40 + i)), Value: term.Int(0)})...)
	}
	return m
}

const flatmapMax = 32
