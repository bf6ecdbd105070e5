package termgen

import (
	"strconv"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// Pattern turns x into a pattern that x matches, by replacing subterms
// (and list tails) with wildcards: '_' or '$N', numbered on from *n. With
// o.RepeatVars a '$N' may be used again, which asks for equal subterms,
// so x may no longer match.
func Pattern(t *rapid.T, x term.Term, n *int, o Options) term.Term {
	return pattern(t, x, n, o, false)
}

// PatternWithPrefixes is Pattern that also replaces binaries (whole bytes)
// with term.BinaryPrefix patterns of some of their first bytes, all or
// none among them, which x still matches.
func PatternWithPrefixes(t *rapid.T, x term.Term, n *int, o Options) term.Term {
	return pattern(t, x, n, o, true)
}

// pattern is Pattern, and PatternWithPrefixes if prefixes: without them
// it draws exactly what Pattern always drew.
func pattern(t *rapid.T, x term.Term, n *int, o Options, prefixes bool) term.Term {
	if rapid.IntRange(0, 6).Draw(t, "wild") == 0 {
		return wildcard(t, n, o)
	}
	switch x.Kind() {
	case term.KindTuple:
		elems := x.Elems()
		c := make([]term.Term, len(elems))
		for i := range elems {
			c[i] = pattern(t, elems[i], n, o, prefixes)
		}
		return term.Tuple(c...)
	case term.KindList:
		elems := x.Elems()
		if len(elems) > 0 && rapid.IntRange(0, 3).Draw(t, "wildtail") == 0 {
			k := rapid.IntRange(0, len(elems)).Draw(t, "keep")
			c := make([]term.Term, k)
			for i := range c {
				c[i] = pattern(t, elems[i], n, o, prefixes)
			}
			return term.ImproperList(c, wildcard(t, n, o))
		}
		c := make([]term.Term, len(elems))
		for i := range elems {
			c[i] = pattern(t, elems[i], n, o, prefixes)
		}
		if x.IsProper() {
			return term.List(c...)
		}
		return term.ImproperList(c, pattern(t, x.Tail(), n, o, prefixes))
	case term.KindMap:
		// Keys stay as they are: a wildcard key could move in key order.
		es := x.Entries()
		c := make([]term.MapEntry, len(es))
		for i, e := range es {
			c[i] = term.MapEntry{Key: e.Key, Value: pattern(t, e.Value, n, o, prefixes)}
		}
		return term.Map(c...)
	case term.KindDesc:
		return term.Desc(pattern(t, x.Inner(), n, o, prefixes))
	case term.KindBinary:
		if prefixes && x.BitLen()%8 == 0 && rapid.IntRange(0, 2).Draw(t, "prefix") == 0 {
			b := x.Bytes()
			return term.BinaryPrefix(b[:rapid.IntRange(0, len(b)).Draw(t, "keep")])
		}
	}
	return x
}

func wildcard(t *rapid.T, n *int, o Options) term.Term {
	if rapid.Bool().Draw(t, "anon") {
		return term.Atom("_")
	}
	if o.RepeatVars && *n > 0 && rapid.IntRange(0, 2).Draw(t, "repeat") == 0 {
		return term.Atom("$" + strconv.Itoa(rapid.IntRange(1, *n).Draw(t, "as")))
	}
	*n++
	return term.Atom("$" + strconv.Itoa(*n))
}

// Key draws a key shaped as most keys are: usually a tuple of one to four
// elements led by an atom tag, its other elements nested to o.Depth-1;
// one time in ten any term of depth o.Depth.
func Key(t *rapid.T, o Options) term.Term {
	if rapid.IntRange(0, 9).Draw(t, "anykey") == 9 {
		return Draw(t, o)
	}
	n := rapid.IntRange(1, 4).Draw(t, "arity")
	elems := make([]term.Term, n)
	elems[0] = term.Atom(drawAtomName(t, o))
	inner := o
	inner.Depth = max(o.Depth-1, 0)
	for i := 1; i < n; i++ {
		elems[i] = Draw(t, inner)
	}
	return term.Tuple(elems...)
}
