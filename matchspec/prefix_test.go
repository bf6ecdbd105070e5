package matchspec_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/specgen"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// TestHeadBinaryPrefix: a binary prefix in a head matches, as
// <<"ali",_/binary>> does in an Erlang function head, the binaries of
// whole bytes that start with its bytes, wherever it stands: a key
// tuple, a list, a list's tail, a map's value, a Desc, the whole key.
func TestHeadBinaryPrefix(t *testing.T) {
	for _, c := range []struct {
		head  string
		match []string
		not   []string
	}{
		{`{user,<<"ali",_/binary>>}`,
			[]string{`{user,<<"ali">>}`, `{user,<<"alice">>}`, `{user,<<"ali",0>>}`},
			[]string{`{user,<<"al">>}`, `{user,<<"alj">>}`, `{user,<<"ali",1:3>>}`, `{user,"alice"}`, `{user,alice}`, `{user,<<"ali">>,1}`, `{other,<<"alice">>}`}},
		{`{user,<<_/binary>>}`,
			[]string{`{user,<<>>}`, `{user,<<"x">>}`},
			[]string{`{user,<<1:1>>}`, `{user,[]}`}},
		{`<<"a",_/binary>>`,
			[]string{`<<"a">>`, `<<"ab">>`},
			[]string{`<<"b">>`, `{<<"a">>}`}},
		{`{t,[<<"ab",_/binary>>|'_']}`,
			[]string{`{t,[<<"ab">>]}`, `{t,[<<"abc">>,1,2]}`},
			[]string{`{t,[<<"a">>]}`, `{t,[]}`}},
		{`{t,[x|<<"ab",_/binary>>]}`,
			[]string{`{t,[x|<<"ab">>]}`, `{t,[x|<<"abc">>]}`},
			[]string{`{t,[x]}`, `{t,[x,y|<<"ab">>]}`, `{t,[x|<<"a">>]}`}},
		{`{t,#{a => <<"ab",_/binary>>}}`,
			[]string{`{t,#{a => <<"abz">>}}`, `{t,#{a => <<"ab">>, b => 1}}`},
			[]string{`{t,#{a => <<"b">>}}`, `{t,#{b => <<"ab">>}}`}},
		{`{t,#Desc<<<"ab",_/binary>>>}`,
			[]string{`{t,#Desc<<<"ab">>>}`, `{t,#Desc<<<"abc">>>}`},
			[]string{`{t,<<"abc">>}`, `{t,#Desc<<<"b">>>}`}},
		{`{t,<<"ab",_/binary>>,<<"ab",_/binary>>}`,
			[]string{`{t,<<"ab">>,<<"abc">>}`},
			[]string{`{t,<<"ab">>,<<"b">>}`}},
	} {
		spec, err := matchspec.Parse(`[{` + c.head + `,[],['$_']}]`)
		if err != nil {
			t.Fatalf("%s: %v", c.head, err)
		}
		for _, want := range []bool{true, false} {
			objs := c.not
			if want {
				objs = c.match
			}
			for _, text := range objs {
				obj, err := term.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				if _, got := spec.Match(obj); got != want {
					t.Errorf("head %s on %s: match %v, want %v", c.head, text, got, want)
				}
			}
		}
	}
}

// TestBinaryPrefixOutsideHeadRefused: guards and bodies hold values, and a
// binary prefix is none; a map key must be a constant. Each is a
// *SpecError wrapping ErrSpec, not a panic or an encoding error.
func TestBinaryPrefixOutsideHeadRefused(t *testing.T) {
	for _, text := range []string{
		`[{{k,'$1'},[{'==','$1',<<"a",_/binary>>}],['$_']}]`,
		`[{{k,'$1'},[{'==','$1',{const,{x,<<"a",_/binary>>}}}],['$_']}]`,
		`[{{k,'$1'},[],[<<"a",_/binary>>]}]`,
		`[{{k,'$1'},[],[{{'$1',<<"a",_/binary>>}}]}]`,
		`[{#{<<"a",_/binary>> => 1},[],['$_']}]`,
	} {
		_, err := matchspec.Parse(text)
		var se *matchspec.SpecError
		if !errors.As(err, &se) || !errors.Is(err, matchspec.ErrSpec) {
			t.Errorf("%s: got %v, want a *SpecError wrapping ErrSpec", text, err)
		}
	}
}

// TestSpecIDBinaryPrefix: specs with binary prefixes have identities, the
// same for the same spec however written, and different from the spec
// with '_' or another prefix in the same place, or the same prefix in
// another place.
func TestSpecIDBinaryPrefix(t *testing.T) {
	ids := map[string]string{}
	for _, text := range []string{
		`[{{user,<<"ali",_/binary>>,'_'},[],['$_']}]`,
		`[{{user,'_',<<"ali",_/binary>>},[],['$_']}]`,
		`[{{user,'_','_'},[],['$_']}]`,
		`[{{user,<<"al",_/binary>>,'_'},[],['$_']}]`,
		`[{{user,<<_/binary>>,'_'},[],['$_']}]`,
		`[{{user,<<"ali">>,'_'},[],['$_']}]`,
		`[{{user,<<"ali",_/binary>>,<<"ali",_/binary>>},[],['$_']}]`,
		`[{{user,'_','_'},[],['$_']},{{user,<<"ali",_/binary>>,'_'},[],['$_']}]`,
		`[{{user,<<"ali",_/binary>>,'_'},[],['$_']},{{user,'_','_'},[],['$_']}]`,
	} {
		spec, err := matchspec.Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if other, ok := ids[spec.ID()]; ok {
			t.Errorf("%s and %s have the same identity %s", text, other, spec.ID())
		}
		ids[spec.ID()] = text
	}
	a := matchspec.MustParse(`[{{user,<<"ali",_/binary>>,'_'},[],['$_']}]`)
	b := matchspec.MustParse("[ { {user, << \"a\", \"li\", _/binary >>, '_'}, [], ['$_'] } ]")
	if a.ID() != b.ID() {
		t.Errorf("one spec written two ways has identities %s and %s", a.ID(), b.ID())
	}
}

// rangeOf is sext.PrefixRange of a pattern's text, as a plan range.
func rangeOf(t *testing.T, pattern string, clauses ...int) matchspec.Range {
	t.Helper()
	p, err := term.Parse(pattern)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err := sext.PrefixRange(p)
	if err != nil {
		t.Fatal(err)
	}
	return matchspec.Range{Lower: lo, Upper: hi, Clauses: clauses}
}

// TestPlanBinaryPrefix: a head's binary prefix gives the plan
// sext.PrefixRange's range (its whole bytes, then the bits of the next
// byte that it fixes; only whole bytes under a Desc); a variable after
// it narrows nothing, one before it goes on to it when the guards pin
// the variable; clauses' ranges merge.
func TestPlanBinaryPrefix(t *testing.T) {
	enc := func(s string) []byte {
		x, err := term.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sext.Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pre := func(s string) []byte {
		x, err := term.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sext.Prefix(x)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	varRange := rangeOf(t, `{user,'$1',<<"ali",_/binary>>}`, 0)
	varRange.Lower = append(pre(`{user,'$1',<<"ali",_/binary>>}`), enc(`b`)...)
	for _, c := range []struct {
		spec string
		want []matchspec.Range
	}{
		{`[{{user,<<"ali",_/binary>>,'_'},[],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{user,<<"ali",_/binary>>,'_'}`, 0)}},
		// The variable after the prefix cannot extend it.
		{`[{{user,<<"ali",_/binary>>,'$1'},[{'=:=','$1',7}],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{user,<<"ali",_/binary>>,'_'}`, 0)}},
		{`[{{user,<<"ali",_/binary>>,'$1'},[{'>','$1',7}],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{user,<<"ali",_/binary>>,'_'}`, 0)}},
		// A pinned variable before it is substituted, and the prefix narrows after it.
		{`[{{user,'$1',<<"ali",_/binary>>},[{'=:=','$1',7}],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{user,7,<<"ali",_/binary>>}`, 0)}},
		// A range of it is appended to its prefix.
		{`[{{user,'$1',<<"ali",_/binary>>},[{'>=','$1',b}],['$_']}]`,
			[]matchspec.Range{varRange}},
		{`[{{t,[<<"ab",_/binary>>|'_']},[],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{t,[<<"ab",_/binary>>|'_']}`, 0)}},
		{`[{{t,[x|<<"ab",_/binary>>]},[],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{t,[x|<<"ab",_/binary>>]}`, 0)}},
		// A map is a wildcard: its value's prefix narrows nothing.
		{`[{{t,#{a => <<"ab",_/binary>>}},[],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{t,'_'}`, 0)}},
		{`[{{t,#Desc<<<"alice",_/binary>>>},[],['$_']}]`,
			[]matchspec.Range{rangeOf(t, `{t,#Desc<<<"alice",_/binary>>>}`, 0)}},
		// Nested ranges merge: the inner one serves both clauses.
		{`[{{user,<<"al",_/binary>>},[],['$_']},{{user,<<"alice",_/binary>>},[],[x]}]`,
			splitRange(t, `{user,<<"al",_/binary>>}`, `{user,<<"alice",_/binary>>}`)},
		{`[{{user,<<"bob",_/binary>>},[],['$_']},{{user,<<"alice",_/binary>>},[],[x]}]`,
			[]matchspec.Range{rangeOf(t, `{user,<<"alice",_/binary>>}`, 1), rangeOf(t, `{user,<<"bob",_/binary>>}`, 0)}},
	} {
		spec, err := matchspec.Parse(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		got := spec.Plan()
		if !slices.EqualFunc(got, c.want, sameRange) {
			t.Errorf("%s\nplan %s\nwant %v", c.spec, explain(spec), c.want)
		}
	}
}

// splitRange is the plan of two clauses, outer's range holding inner's:
// outer's on either side, both in the middle.
func splitRange(t *testing.T, outer, inner string) []matchspec.Range {
	o, i := rangeOf(t, outer), rangeOf(t, inner)
	return []matchspec.Range{
		{Lower: o.Lower, Upper: i.Lower, Clauses: []int{0}},
		{Lower: i.Lower, Upper: i.Upper, Clauses: []int{0, 1}},
		{Lower: i.Upper, Upper: o.Upper, Clauses: []int{0}},
	}
}

func sameRange(a, b matchspec.Range) bool {
	return bytes.Equal(a.Lower, b.Lower) && (a.Upper == nil) == (b.Upper == nil) &&
		bytes.Equal(a.Upper, b.Upper) && slices.Equal(a.Clauses, b.Clauses)
}

// TestPlanBinaryPrefixTight: for specgen's one-clause specs without
// guards, which hold binary prefixes in every place a head can, the plan
// is exactly sext.PrefixRange of the head (maps read as '_'): no wider,
// and no narrower, so that the keys it reads are exactly those whose
// encoding begins with the prefix's bits.
func TestPlanBinaryPrefixTight(t *testing.T) {
	withPrefix := 0
	rapid.Check(t, func(rt *rapid.T) {
		g := specgen.New(rapid.Uint64().Draw(rt, "seed"))
		cl := g.Spec().Elems()[0].Elems()
		head := cl[0]
		spec, err := matchspec.Compile(term.List(term.Tuple(head, term.List(), cl[2])))
		if err != nil {
			rt.Fatalf("Compile: %v", err)
		}
		lo, hi, err := sext.PrefixRange(mapsAsWildcards(head))
		if err != nil {
			rt.Fatal(err)
		}
		if len(lo) == 0 {
			lo = nil
		}
		want := []matchspec.Range{{Lower: lo, Upper: hi, Clauses: []int{0}}}
		if got := spec.Plan(); !slices.EqualFunc(got, want, sameRange) {
			rt.Fatalf("head %s\nplan %s\nwant [%x, %x)", head, explain(spec), lo, hi)
		}
		if containsPrefix(head) {
			withPrefix++
		}
	})
	if withPrefix == 0 {
		t.Fatal("no head held a binary prefix")
	}
	t.Logf("%d heads with a binary prefix", withPrefix)
}

func mapsAsWildcards(t term.Term) term.Term {
	switch t.Kind() {
	case term.KindMap:
		return term.Atom("_")
	case term.KindTuple:
		es := make([]term.Term, t.Len())
		for i, x := range t.Elems() {
			es[i] = mapsAsWildcards(x)
		}
		return term.Tuple(es...)
	case term.KindList:
		if t.Len() == 0 {
			return t
		}
		es := make([]term.Term, t.Len())
		for i, x := range t.Elems() {
			es[i] = mapsAsWildcards(x)
		}
		return term.ImproperList(es, mapsAsWildcards(t.Tail()))
	case term.KindDesc:
		return term.Desc(mapsAsWildcards(t.Inner()))
	}
	return t
}

func containsPrefix(t term.Term) bool {
	switch t.Kind() {
	case term.KindBinaryPrefix:
		return true
	case term.KindTuple:
		return slices.ContainsFunc(t.Elems(), containsPrefix)
	case term.KindList:
		return slices.ContainsFunc(t.Elems(), containsPrefix) || !t.IsProper() && containsPrefix(t.Tail())
	case term.KindMap:
		return slices.ContainsFunc(t.Entries(), func(e term.MapEntry) bool { return containsPrefix(e.Value) })
	case term.KindDesc:
		return containsPrefix(t.Inner())
	}
	return false
}
