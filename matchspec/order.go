package matchspec

import (
	"cmp"
	"math"
	"math/big"

	"github.com/erlsext/sext/term"
)

// Guard comparisons follow Erlang's term order, which is the encoding's
// order (term.Compare) except for numbers: Erlang compares them by value,
// so 1 == 1.0 and 0.0 == -0.0, at any depth ([1] == [1.0]), where the
// encoding puts an integer and a float of the same value apart. Map keys
// are the exception inside the exception: they compare exactly, integers
// before floats, as Erlang's map key order has it. Pids, ports and
// references compare as the encoding orders them (node name first); Erlang
// orders them by node-internal fields, which a term does not fully carry.

// kindRank orders the kinds as both Erlang and the encoding do: numbers,
// atoms, references, ports, pids, tuples, maps, lists (the empty list
// first), binaries. A Desc, which Erlang has no counterpart for, sorts
// first as it does in the encoding.
var kindRank = [...]uint8{
	term.KindDesc:   0,
	term.KindInt:    1,
	term.KindFloat:  1,
	term.KindAtom:   2,
	term.KindRef:    3,
	term.KindPort:   4,
	term.KindPid:    5,
	term.KindTuple:  6,
	term.KindMap:    7,
	term.KindList:   8,
	term.KindBinary: 9,
}

// compareErlang returns -1, 0 or +1 as a is less than, equal to (==) or
// greater than b in Erlang's term order.
func compareErlang(a, b term.Term) int {
	if a.IsInt64() && b.IsInt64() { // the common case, first
		return cmp.Compare(a.Int64(), b.Int64())
	}
	ka, kb := a.Kind(), b.Kind()
	if ra, rb := kindRank[ka], kindRank[kb]; ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch ka {
	case term.KindInt, term.KindFloat:
		return compareValues(a, b)
	case term.KindTuple:
		if c := cmp.Compare(a.Len(), b.Len()); c != 0 {
			return c
		}
		ea, eb := a.Elems(), b.Elems()
		for i := range ea {
			if c := compareErlang(ea[i], eb[i]); c != 0 {
				return c
			}
		}
		return 0
	case term.KindList:
		return compareListsErlang(a, b)
	case term.KindMap:
		if c := cmp.Compare(a.Len(), b.Len()); c != 0 {
			return c
		}
		// Entries are held in map key order: all keys first, exactly,
		// then the values in that order, by value.
		ea, eb := a.Entries(), b.Entries()
		for i := range ea {
			if c := compareMapKeys(ea[i].Key, eb[i].Key); c != 0 {
				return c
			}
		}
		for i := range ea {
			if c := compareErlang(ea[i].Value, eb[i].Value); c != 0 {
				return c
			}
		}
		return 0
	case term.KindDesc:
		return -compareErlang(a.Inner(), b.Inner())
	}
	return term.Compare(a, b)
}

// compareMapKeys is Erlang's map key order: term.Compare, except that an
// integer sorts before every float, at any depth. Only the int-float
// placement differs, and only when the kinds differ at the same place.
func compareMapKeys(a, b term.Term) int {
	ka, kb := a.Kind(), b.Kind()
	if isNumber(ka) && isNumber(kb) && ka != kb {
		if ka == term.KindInt {
			return -1
		}
		return 1
	}
	if ka != kb {
		return term.Compare(a, b)
	}
	switch ka {
	case term.KindTuple, term.KindList:
		if ka == term.KindTuple {
			if c := cmp.Compare(a.Len(), b.Len()); c != 0 {
				return c
			}
		}
		ea, eb := a.Elems(), b.Elems()
		for i := range min(len(ea), len(eb)) {
			if c := compareMapKeys(ea[i], eb[i]); c != 0 {
				return c
			}
		}
		// The common elements are exactly equal: what is left is
		// structure (length, list ends), which term.Compare orders.
	}
	return term.Compare(a, b)
}

// compareListsErlang walks two lists cons by cons: where one runs out of
// elements its remainder is [] or its improper tail, compared with the
// other's remainder ([] below a cons, a tail by its kind's rank).
func compareListsErlang(a, b term.Term) int {
	ea, eb := a.Elems(), b.Elems()
	n := min(len(ea), len(eb))
	for i := range n {
		if c := compareErlang(ea[i], eb[i]); c != 0 {
			return c
		}
	}
	consA, consB := len(ea) > n, len(eb) > n
	switch {
	case consA && consB: // unreachable: the loop stopped at the shorter
		return 0
	case !consA && !consB:
		if a.IsProper() && b.IsProper() {
			return 0
		}
		return compareErlang(a.Tail(), b.Tail()) // [] against a tail, or two tails
	case consA:
		return -compareRest(b.Tail())
	default:
		return compareRest(a.Tail())
	}
}

// compareRest compares a list's remainder, [] or an improper tail, with a
// non-empty list.
func compareRest(rest term.Term) int {
	if rest.Kind() == term.KindList { // []
		return -1
	}
	return cmp.Compare(kindRank[rest.Kind()], kindRank[term.KindList])
}

func isNumber(k term.Kind) bool { return k == term.KindInt || k == term.KindFloat }

// compareValues compares two numbers by value, exactly: 1 and 1.0 are
// equal, 2^53+1 is greater than 2^53 as a float.
func compareValues(a, b term.Term) int {
	switch {
	case a.Kind() == term.KindInt && b.Kind() == term.KindInt:
		return term.Compare(a, b)
	case a.Kind() == term.KindFloat && b.Kind() == term.KindFloat:
		return cmp.Compare(a.Float(), b.Float()) // -0.0 == 0.0
	case a.Kind() == term.KindInt:
		return compareIntFloat(a, b.Float())
	}
	return -compareIntFloat(b, a.Float())
}

func compareIntFloat(i term.Term, f float64) int {
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		// No integer equals f, so the encoding's order, which is exact,
		// is the value order.
		return term.Compare(i, term.Float(f))
	}
	if i.IsInt64() && f >= -(1<<63) && f < 1<<63 {
		return cmp.Compare(i.Int64(), int64(f))
	}
	w, _ := new(big.Float).SetFloat64(f).Int(nil)
	return i.BigInt().Cmp(w)
}
