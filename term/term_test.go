package term

import (
	"testing"
)

// ImproperList copies its elements whatever the tail, so changing the
// caller's slice afterwards changes no list; ListWithTail keeps its slice.
func TestImproperListCopies(t *testing.T) {
	for _, tail := range []Term{Atom("t"), List(Int(9)), Binary(nil)} {
		elems := []Term{Int(1), Int(2)}
		l := ImproperList(elems, tail)
		want := l.String()
		elems[0] = Atom("changed")
		if got := l.String(); got != want {
			t.Errorf("ImproperList(_, %v) kept the caller's slice: %s became %s", tail, want, got)
		}
	}
	s := []Term{Int(1), Atom("t")}
	l := ListWithTail(s...)
	s[0] = Int(7)
	if got := l.String(); got != "[7|t]" {
		t.Errorf("ListWithTail copied its slice: got %s, want [7|t]", got)
	}
}
