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
// the size the plan's allowance of work is measured in.
func checkShape(ms term.Term) (nodes int, err error) {
	type item struct {
		t           term.Term
		depth, desc int // compounds and Descs open around t
	}
	stack := []item{{t: ms}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		k := it.t.Kind()
		if k != term.KindTuple && k != term.KindList && k != term.KindMap && k != term.KindDesc {
			continue
		}
		depth := it.depth + 1
		if depth > sext.DefaultMaxDepth {
			return nodes, &SpecError{Err: ErrLimit, Detail: "nesting deeper than " + strconv.Itoa(sext.DefaultMaxDepth)}
		}
		switch k {
		case term.KindTuple, term.KindList:
			for _, x := range it.t.Elems() {
				stack = append(stack, item{x, depth, it.desc})
			}
			if k == term.KindList && !it.t.IsProper() {
				stack = append(stack, item{it.t.Tail(), depth, it.desc})
			}
		case term.KindMap:
			for _, e := range it.t.Entries() {
				stack = append(stack, item{e.Key, depth, it.desc}, item{e.Value, depth, it.desc})
			}
		case term.KindDesc:
			if it.desc+1 > MaxDescDepth {
				return nodes, &SpecError{Err: ErrLimit, Detail: "#Desc nested deeper than MaxDescDepth (" + strconv.Itoa(MaxDescDepth) + ")"}
			}
			stack = append(stack, item{it.t.Inner(), depth, it.desc + 1})
		}
	}
	return nodes, nil
}

// countNodes returns the number of subterms of t, without recursion.
func countNodes(t term.Term) int {
	n, _ := checkShape(t) // t is part of a spec that passed checkShape
	return n
}
