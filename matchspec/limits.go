package matchspec

import (
	"strconv"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// MaxDescDepth bounds how deeply #Desc may nest inside #Desc in a
// specification. Each level of a descending term frames the encoding of
// the levels inside it, an eighth more bytes a level, and compiling and
// planning encode the spec and its parts: sixteen levels cost at most
// (9/8)^16, under seven times, the bytes of the inner term, where 5,000
// levels of text crashed the encoder. No key needs a descending term
// inside a descending term more than once (two levels are ascending
// order again).
const MaxDescDepth = 16

// checkShape walks a specification built in code or read from text,
// without recursion, before anything recurses into it or encodes it:
// nesting deeper than sext.DefaultMaxDepth (tuples, lists, maps and Desc,
// counted as the encoder counts them) or Desc inside Desc deeper than
// MaxDescDepth is refused with ErrLimit. It returns the number of subterms,
// the size the plan's allowance of work is measured in. Its stack holds a
// frame for each compound open, not its elements: a wide tuple costs
// nothing.
func checkShape(ms term.Term) (nodes int, err error) {
	type frame struct {
		t    term.Term
		next int // the child to visit next: elements, then a list's tail; a map's keys and values
		desc int // Descs open, this one included
	}
	var stack []frame
	enter := func(t term.Term, desc int) error {
		nodes++
		switch t.Kind() {
		case term.KindTuple, term.KindList, term.KindMap, term.KindDesc:
		default:
			return nil
		}
		if len(stack)+1 > sext.DefaultMaxDepth {
			return &SpecError{Err: ErrLimit, Detail: "nesting deeper than " + strconv.Itoa(sext.DefaultMaxDepth)}
		}
		if t.Kind() == term.KindDesc {
			if desc++; desc > MaxDescDepth {
				return &SpecError{Err: ErrLimit, Detail: "#Desc nested deeper than MaxDescDepth (" + strconv.Itoa(MaxDescDepth) + ")"}
			}
		}
		stack = append(grow(stack), frame{t: t, desc: desc})
		return nil
	}
	if err := enter(ms, 0); err != nil {
		return nodes, err
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		var child term.Term
		ok := true
		switch t, i := f.t, f.next; t.Kind() {
		case term.KindTuple:
			ok = i < t.Len()
			if ok {
				child = t.Elems()[i]
			}
		case term.KindList:
			switch n := t.Len(); {
			case i < n:
				child = t.Elems()[i]
			case i == n && !t.IsProper():
				child = t.Tail()
			default:
				ok = false
			}
		case term.KindMap:
			ok = i < 2*t.Len()
			if ok {
				e := t.Entries()[i/2]
				child = e.Key
				if i%2 == 1 {
					child = e.Value
				}
			}
		case term.KindDesc:
			ok = i == 0
			child = t.Inner()
		}
		if !ok {
			stack = stack[:len(stack)-1]
			continue
		}
		f.next++
		if err := enter(child, f.desc); err != nil {
			return nodes, err
		}
	}
	return nodes, nil
}
