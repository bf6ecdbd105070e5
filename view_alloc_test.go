//go:build !race

package sext

import (
	"errors"
	"testing"
)

// Allocation budgets of the View, out of -race builds, where the
// race detector's instrumentation allocates.

func TestViewAllocatesNothing(t *testing.T) {
	key, _ := Encode(mustParse(t, `{user, 42, <<"alice">>, 'é', 1.5, 123456789012, #Desc<{7, x}>, [a, b | c], #{k => v}}`))
	v := NewView(key)
	buf := make([]byte, 0, 64)
	for name, read := range map[string]func() error{
		"Elem(1).Int64": func() error { e, err := v.Elem(1); _, err2 := e.Int64(); return errors.Join(err, err2) },
		"Elem(2).AppendBytes": func() error {
			e, err := v.Elem(2)
			_, err2 := e.AppendBytes(buf[:0])
			return errors.Join(err, err2)
		},
		"Elem(3).AppendAtom": func() error {
			e, err := v.Elem(3)
			_, err2 := e.AppendAtom(buf[:0])
			return errors.Join(err, err2)
		},
		"Elem(0).AtomIs": func() error { e, err := v.Elem(0); _, err2 := e.AtomIs("user"); return errors.Join(err, err2) },
		"Elem(4).Float":  func() error { e, err := v.Elem(4); _, err2 := e.Float(); return errors.Join(err, err2) },
		"Elem(5).Int64":  func() error { e, err := v.Elem(5); _, err2 := e.Int64(); return errors.Join(err, err2) },
		"Elem(6).AppendInner": func() error {
			e, err := v.Elem(6)
			_, err2 := e.AppendInner(buf[:0])
			return errors.Join(err, err2)
		},
		"Elem(7).Tail": func() error { e, err := v.Elem(7); _, _, err2 := e.Tail(); return errors.Join(err, err2) },
		"Elem(8).Entry": func() error {
			e, err := v.Elem(8)
			_, _, err2 := e.Entry(0)
			return errors.Join(err, err2)
		},
		"End": func() error { _, err := v.End(); return err },
	} {
		if err := read(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := testing.AllocsPerRun(100, func() { read() }); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}

func TestMatcherAllocatesNothing(t *testing.T) {
	m, err := CompileMatch(mustParse(t, "{order, '_', '$1', 500000}"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"{order, 7, #Desc<1735689600>, 500000}", "{order, 7, #Desc<1735689600>, 12}", "{user, 1}"} {
		key, _ := Encode(mustParse(t, k))
		if n := testing.AllocsPerRun(100, func() { m.Matches(key) }); n != 0 {
			t.Errorf("Matches(%s): %v allocations", k, n)
		}
	}
}
