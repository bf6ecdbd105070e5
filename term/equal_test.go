package term

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// == on terms would compare pointers, not values: it must not compile.
// Comparable is what the compiler checks for == and for map keys.
func TestTermIsThreeWordsAndNotComparable(t *testing.T) {
	if reflect.TypeOf(Term{}).Comparable() {
		t.Error("term.Term is comparable: == and map[term.Term] compile")
	}
	if got, want := unsafe.Sizeof(Term{}), 3*unsafe.Sizeof(uintptr(0)); got != want {
		t.Errorf("unsafe.Sizeof(Term{}) = %d, want three words (%d)", got, want)
	}
}

// go-cmp finds the Equal method without options; without it, cmp panics on
// the unexported fields.
func TestGoCmpUsesTermEqual(t *testing.T) {
	name := []byte("foo")
	a := Tuple(Atom("foo"), List(Int(1), Float(2)))
	b := Tuple(Atom(string(name)), List(Int(1), Float(2)))
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("equal terms differ:\n%s", d)
	}
	if cmp.Equal(a, Tuple(Atom("foo"), List(Int(1), Int(2)))) {
		t.Error("{foo,[1,2.0]} and {foo,[1,2]} reported equal")
	}
	if !a.Equal(b) || a.Equal(Atom("foo")) {
		t.Error("Term.Equal disagrees with Equal")
	}
}
