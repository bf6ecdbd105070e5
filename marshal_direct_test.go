package sext

import (
	"errors"
	"reflect"
	"testing"

	"github.com/erlsext/sext/term"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

type directInner struct {
	_ Record `sext:"in"`
	N uint8
	S string `sext:",atom"`
}

type directKey struct {
	_     Record `sext:"user"`
	ID    int64
	Name  string
	Score float64
	Ok    bool
	Raw   []byte
	In    directInner
	D     directInner `sext:",desc"`
	Tags  []string
	Any   any
	T     term.Term
	Big   uint64
	Latin string `sext:",atom"`
	Small int32
	Tiny  int8
	Char  string `sext:",charlist"`
}

// directKeyWide is directKey with wider integers.
type directKeyWide struct {
	_     Record `sext:"user"`
	ID    int64
	Name  string
	Score float64
	Ok    bool
	Raw   []byte
	In    directInner
	D     directInner `sext:",desc"`
	Tags  []string
	Any   any
	T     term.Term
	Big   uint64
	Latin string `sext:",atom"`
	Small int64
	Tiny  int32
	Char  string `sext:",charlist"`
}

func drawDirectKey(t *rapid.T) directKey {
	k := directKey{
		ID:    rapid.Int64().Draw(t, "id"),
		Name:  rapid.String().Draw(t, "name"),
		Score: rapid.Float64().Draw(t, "score"),
		Ok:    rapid.Bool().Draw(t, "ok"),
		Raw:   rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "raw"),
		In:    directInner{N: rapid.Uint8().Draw(t, "n"), S: rapid.StringMatching(`[a-z]{0,6}`).Draw(t, "s")},
		D:     directInner{N: rapid.Uint8().Draw(t, "dn"), S: rapid.StringMatching(`[a-zé]{0,6}`).Draw(t, "ds")},
		Tags:  rapid.SliceOfN(rapid.StringMatching(`[a-z]{0,3}`), 0, 3).Draw(t, "tags"),
		Any:   term.Int(rapid.Int64().Draw(t, "any")),
		T:     term.Tuple(term.Atom("x"), term.Binary(rapid.SliceOfN(rapid.Byte(), 0, 9).Draw(t, "tb"))),
		Big:   rapid.Uint64().Draw(t, "big"),
		Latin: rapid.StringMatching(`[a-zàé]{0,5}`).Draw(t, "latin"),
		Small: rapid.Int32().Draw(t, "small"),
		Tiny:  rapid.Int8().Draw(t, "tiny"),
		Char:  rapid.StringMatching(`[a-z]{0,3}`).Draw(t, "char"),
	}
	if len(k.Raw) == 0 {
		k.Raw = nil
	}
	if len(k.Tags) == 0 {
		k.Tags = nil
	}
	return k
}

// The direct path of Unmarshal agrees with the term path on every input:
// encodings of random keys, the same damaged (a byte changed, cut short,
// bytes added), and the encodings of other types' values: the same value
// set, or an error on both (the direct path hands every error to the
// term path, so the errors are the term path's by construction).
func TestPropUnmarshalDirectAgreesWithTermPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := drawDirectKey(t)
		b, err := Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		switch rapid.IntRange(0, 4).Draw(t, "damage") {
		case 1:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b[i] ^= rapid.Byte().Draw(t, "flip")
		case 2:
			b = b[:rapid.IntRange(0, len(b)).Draw(t, "len")]
		case 3:
			b = append(b, rapid.SliceOfN(rapid.Byte(), 1, 4).Draw(t, "more")...)
		case 4:
			// The same key with integers that may not fit Small and Tiny.
			w := directKeyWide{ID: k.ID, Name: k.Name, Score: k.Score, Ok: k.Ok, Raw: k.Raw, In: k.In, D: k.D,
				Tags: k.Tags, Any: k.Any, T: k.T, Big: k.Big, Latin: k.Latin, Char: k.Char,
				Small: rapid.Int64().Draw(t, "wsmall"), Tiny: rapid.Int32Range(-300, 300).Draw(t, "wtiny")}
			if b, err = Marshal(w); err != nil {
				t.Fatal(err)
			}
		}
		plan := planFor(reflect.TypeFor[directKey]())
		if plan.direct == nil {
			t.Fatal("no direct plan for directKey")
		}
		var got, want directKey
		o := Options{MaxDepth: Options{}.maxDepth()}
		ok := o.unmarshalDirect(plan.direct, b, reflect.ValueOf(&got).Elem())
		werr := o.unmarshalViaTerm(b, reflect.ValueOf(&want), plan.noTerm)
		if ok != (werr == nil) {
			t.Fatalf("%x: direct path ok=%v, term path %v", b, ok, werr)
		}
		if ok {
			if diff := cmp.Diff(want, got, cmp.Comparer(term.Equal)); diff != "" {
				t.Fatalf("%x: direct path differs from the term path (-term +direct):\n%s", b, diff)
			}
			var all directKey
			if err := Unmarshal(b, &all); err != nil || cmp.Diff(want, all, cmp.Comparer(term.Equal)) != "" {
				t.Fatalf("Unmarshal(%x) = %+v, %v; want %+v", b, all, err, want)
			}
		}
	})
}

// Unmarshal's result does not change with the path: a key that the
// direct path refuses reports the term path's error.
func TestUnmarshalDirectErrorsAreTheTermPaths(t *testing.T) {
	b, err := Marshal(struct {
		_    Record `sext:"user"`
		ID   string
		Name string
	}{ID: "x", Name: "y"})
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		_    Record `sext:"user"`
		ID   int64
		Name string
	}
	err = Unmarshal(b, &k)
	var te *UnmarshalTypeError
	if !errors.As(err, &te) {
		t.Fatalf("Unmarshal of a binary into an int64: %v, want *UnmarshalTypeError", err)
	}
	if want := (Options{}).unmarshalViaTerm(b, reflect.ValueOf(&k), true); err.Error() != want.Error() {
		t.Fatalf("Unmarshal: %v; term path: %v", err, want)
	}
}

// FuzzUnmarshalDirect holds the direct path to the term path on any
// bytes: both succeed with the same value or both fail.
func FuzzUnmarshalDirect(f *testing.F) {
	seed, err := Marshal(directKey{ID: 42, Name: "alice", Tags: []string{"a"}, Any: term.Int(1), T: term.Atom("t")})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	plan := planFor(reflect.TypeFor[directKey]())
	o := Options{MaxDepth: Options{}.maxDepth()}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want directKey
		ok := o.unmarshalDirect(plan.direct, b, reflect.ValueOf(&got).Elem())
		werr := o.unmarshalViaTerm(b, reflect.ValueOf(&want), plan.noTerm)
		if ok != (werr == nil) {
			t.Fatalf("%x: direct path ok=%v, term path %v", b, ok, werr)
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(term.Equal)); ok && diff != "" {
			t.Fatalf("%x: (-term +direct):\n%s", b, diff)
		}
	})
}
