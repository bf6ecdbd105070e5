package term

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// == on terms would compare pointers, not values: it must not compile.
// Comparable is what the compiler checks for == and for map keys.
// A Term is two words (16 bytes on 64-bit machines), and the zero Term
// is the empty list.
func TestTermIsTwoWordsAndNotComparable(t *testing.T) {
	if reflect.TypeOf(Term{}).Comparable() {
		t.Error("term.Term is comparable: == and map[term.Term] compile")
	}
	if got, want := unsafe.Sizeof(Term{}), unsafe.Sizeof(uintptr(0))+8; got != want {
		t.Errorf("unsafe.Sizeof(Term{}) = %d, want two words (%d)", got, want)
	}
	if unsafe.Sizeof(uintptr(0)) == 8 && unsafe.Sizeof(Term{}) != 16 {
		t.Errorf("unsafe.Sizeof(Term{}) = %d, want 16", unsafe.Sizeof(Term{}))
	}
	var z Term
	if z.Kind() != KindList || z.Len() != 0 || !z.IsProper() || !Equal(z, List()) || z.String() != "[]" {
		t.Errorf("the zero Term is %s of kind %v, not []", z, z.Kind())
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
