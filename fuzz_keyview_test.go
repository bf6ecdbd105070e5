package sext

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/erlsext/sext/term"
)

// FuzzView checks that a View's End fails where Decode fails, with the
// same sentinel and offset, and that on bytes that decode the View's
// accessors rebuild the term Decode gives.
func FuzzView(f *testing.F) {
	seedEncodings(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkView(t, Options{MaxDepth: 64}, b)
		pokeView(t, Options{MaxDepth: 64}.View(b), 2)
	})
}

// FuzzMatcher matches hostile keys against patterns made from other
// hostile bytes (read back with PartialDecode, so they hold wildcards):
// the compiled match must say what Decode and Match say, or, for a key
// that does not decode, give Decode's error or no match.
func FuzzMatcher(f *testing.F) {
	for _, pk := range [][2]string{
		{"{order,'_','_',7}", "{order,1,#Desc<2>,7}"},
		{"{'$1',['_'|'$1']}", "{[a],[b,a]}"},
		{"#{a => '$1'}", "#{a => 1}"},
		{"[1|'_']", "[1,2|3]"},
	} {
		p, _ := term.Parse(pk[0])
		k, _ := term.Parse(pk[1])
		pb, _ := Prefix(p)
		kb, _ := Encode(k)
		f.Add(pb, kb)
	}
	f.Fuzz(func(t *testing.T, pb, key []byte) {
		p, _, _, err := PartialDecode(pb)
		if err != nil {
			return
		}
		m, err := CompileMatch(p)
		if err != nil {
			return
		}
		x, derr := Decode(key)
		bs, ok, err := m.Match(key)
		if derr != nil {
			var de, me *DecodeError
			if ok || err != nil && (!errors.As(derr, &de) || !errors.As(err, &me) || de.Offset != me.Offset || de.Err != me.Err) {
				t.Fatalf("%s against %x: %v, %v; Decode: %v", p, key, ok, err, derr)
			}
			return
		}
		want, wantOK := Match(p, x)
		if err != nil || ok != wantOK {
			t.Fatalf("%s against %s: %v, %v; Match says %v", p, x, ok, err, wantOK)
		}
		if diff := cmp.Diff(want, bs, cmp.Comparer(term.Equal)); ok && diff != "" {
			t.Fatalf("%s against %s: bindings (-Match +Matcher):\n%s", p, x, diff)
		}
		if b2, _ := m.Matches(key); b2 != ok {
			t.Fatalf("%s against %s: Matches %v, Match %v", p, x, b2, ok)
		}
	})
}

// pokeView calls every accessor of v, and of the first elements, entries
// and tail it reaches, down to depth levels: on any bytes each must return
// or fail with a *DecodeError inside the input, never panic. FuzzView's
// agreement check reads only what decodes, and a fast path that trusts a
// count it has not checked shows only on bytes that do not.
func pokeView(t *testing.T, v View, depth int) {
	t.Helper()
	n := len(v.bytes())
	check := func(what string, err error) {
		t.Helper()
		var de *DecodeError
		if err != nil && !errors.Is(err, ErrKind) && !errors.Is(err, ErrRange) &&
			(!errors.As(err, &de) || de.Offset < 0 || de.Offset > n) {
			t.Fatalf("%x at %d: %s: %v is not a *DecodeError inside the input", v.bytes(), v.Offset(), what, err)
		}
	}
	_, err := v.Kind()
	check("Kind", err)
	_, err = v.Len()
	check("Len", err)
	_, err = v.End()
	check("End", err)
	_, err = v.Raw()
	check("Raw", err)
	_, err = v.Int64()
	check("Int64", err)
	_, err = v.Float()
	check("Float", err)
	_, err = v.AppendBytes(nil)
	check("AppendBytes", err)
	_, _, err = v.AppendBits(nil)
	check("AppendBits", err)
	_, err = v.AppendAtom(nil)
	check("AppendAtom", err)
	_, err = v.AppendInner(nil)
	check("AppendInner", err)
	_, err = v.AtomIs("a")
	check("AtomIs", err)
	_, err = v.Next()
	check("Next", err)
	if depth == 0 {
		return
	}
	for i := -1; i < 4; i++ {
		e, err := v.Elem(i)
		check("Elem", err)
		if err == nil {
			pokeView(t, e, depth-1)
		}
		k, x, err := v.Entry(i)
		check("Entry", err)
		if err == nil {
			pokeView(t, k, depth-1)
			pokeView(t, x, depth-1)
		}
	}
	tail, ok, err := v.Tail()
	check("Tail", err)
	if err == nil && ok {
		pokeView(t, tail, depth-1)
	}
}

// TestViewAccessorsOnHostileBytes holds the accessors to pokeView's rule
// on bytes outside probing found to panic: counts that claim more elements
// than follow.
func TestViewAccessorsOnHostileBytes(t *testing.T) {
	for _, h := range []string{
		"10000000040cb7dcac965b969008",
		"10000000030c8008",
		"100000000312",
		"1000000002110a",
		"10000000020a",
	} {
		pokeView(t, NewView(mustHex(t, h)), 2)
	}
}
