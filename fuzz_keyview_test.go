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
