package sexttest

import (
	"bytes"
	"reflect"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
)

// CheckKeyOrder checks, on keys drawn from gen, that the bytes sext.Marshal
// writes sort as cmp orders the keys, and that sext.Unmarshal reads back a
// key equal under cmp whose bytes are the same. cmp returns a negative
// number, zero or a positive number, as cmp.Compare does: the order the
// key type's author declares (a field tagged desc counts backwards, a nil
// pointer sorts as the atom undefined, after every number).
//
// For a struct type the second key of a pair is usually the first with a
// few fields redrawn, so that pairs share leading fields and the order of
// every later field is put to the test, not only the first one's. Failures
// are reported through t, as rapid.Check reports them, with a shrunk
// counterexample.
func CheckKeyOrder[T any](t rapid.TB, gen *rapid.Generator[T], cmp func(a, b T) int) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		a := gen.Draw(rt, "a")
		b := gen.Draw(rt, "b")
		b = share(rt, a, b)
		ea, err := sext.Marshal(&a) // by pointer and by value, to cover both
		if err != nil {
			rt.Fatalf("Marshal(%+v): %v", a, err)
		}
		eb, err := sext.Marshal(b)
		if err != nil {
			rt.Fatalf("Marshal(%+v): %v", b, err)
		}
		if got, want := bytes.Compare(ea, eb), sign(cmp(a, b)); got != want {
			rt.Fatalf("the bytes compare %d but cmp says %d:\n%+v\n%+v\n%x\n%x", got, want, a, b, ea, eb)
		}
		var back T
		if err := sext.Unmarshal(ea, &back); err != nil {
			rt.Fatalf("Unmarshal(Marshal(%+v)): %v\n%x", a, err, ea)
		}
		if c := cmp(a, back); c != 0 {
			rt.Fatalf("Unmarshal(Marshal(%+v)) = %+v, which cmp orders %d against it", a, back, c)
		}
		if eback, err := sext.Marshal(back); err != nil || !bytes.Equal(eback, ea) {
			rt.Fatalf("Marshal(Unmarshal(Marshal(%+v))) = %x, %v; want %x", a, eback, err, ea)
		}
	})
}

// share returns a copy of a with each exported field, one time in three,
// taken from b; for a type that is not a struct it returns b.
func share[T any](rt *rapid.T, a, b T) T {
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(b)
	if va.Kind() != reflect.Struct {
		return b
	}
	typ := va.Type()
	for i := range va.NumField() {
		if !typ.Field(i).IsExported() {
			continue
		}
		if rapid.IntRange(0, 2).Draw(rt, typ.Field(i).Name+" differs") == 0 {
			va.Field(i).Set(vb.Field(i))
		}
	}
	return a
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}
