package term

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// drawBitsTerm draws a binary or bitstring over a small alphabet, so that
// prefixes of one another are common.
func drawBitsTerm(t *rapid.T, label string) Term {
	b := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 'a', 'b', 0xFF}), 0, 5).Draw(t, label)
	if len(b) > 0 && rapid.IntRange(0, 3).Draw(t, label+"bits") == 0 {
		return Bitstring(b, 8*len(b)-rapid.IntRange(1, 7).Draw(t, label+"short"))
	}
	return Binary(b)
}

// TestBinaryPrefixOrder: a prefix P sorts after exactly the bitstrings
// that begin with P's bytes, and elsewhere as the binary P does; between
// prefixes and binaries the order is total (antisymmetric, transitive),
// and it is the same in Compare, CompareErlang and map key order.
func TestBinaryPrefixOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawBitsTerm(t, "p")
		if p.BitLen()%8 != 0 {
			p = Binary(p.Bytes()[:p.BitLen()/8])
		}
		pre := BinaryPrefix(p.Bytes())
		b := drawBitsTerm(t, "b")
		begins := b.BitLen() >= p.BitLen() && bytes.Equal(b.Bytes()[:p.Len()], p.Bytes())
		want := Compare(p, b)
		if begins {
			want = 1
		}
		for name, cmp := range map[string]func(a, b Term) int{
			"Compare": Compare, "CompareErlang": CompareErlang, "compareKeys": compareKeys,
		} {
			if got := cmp(pre, b); got != want || cmp(b, pre) != -want {
				t.Fatalf("%s(%v, %v) = %d, reversed %d; want %d", name, pre, b, got, cmp(b, pre), want)
			}
		}
		if Equal(pre, b) || Equal(b, pre) || ArithEqual(pre, b) {
			t.Fatalf("%v equals %v", pre, b)
		}
		// Sorting a mix of prefixes and binaries gives one order
		// whatever the start, and each prefix ends its own run.
		var mix []Term
		for range 6 {
			x := drawBitsTerm(t, "x")
			if rapid.Bool().Draw(t, "asprefix") {
				x = BinaryPrefix(x.Bytes()[:x.BitLen()/8])
			}
			mix = append(mix, x)
		}
		a := slices.Clone(mix)
		slices.SortStableFunc(a, Compare)
		slices.Reverse(mix)
		slices.SortStableFunc(mix, Compare)
		for i := range a {
			if Compare(a[i], mix[i]) != 0 {
				t.Fatalf("two sorts differ: %v and %v", a, mix)
			}
			for j := i + 1; j < len(a); j++ {
				if Compare(a[i], a[j]) > 0 || Compare(a[j], a[i]) < 0 {
					t.Fatalf("sorted %v, but %v > %v", a, a[i], a[j])
				}
			}
		}
	})
}

func TestBinaryPrefixEqual(t *testing.T) {
	a, b := BinaryPrefix([]byte("ab")), BinaryPrefix([]byte("ab"))
	if !Equal(a, b) || !ArithEqual(a, b) || Compare(a, BinaryPrefix([]byte("a"))) >= 0 {
		t.Errorf("prefixes of the same bytes: Equal %v; <<\"ab\",_>> vs <<\"a\",_>> %d",
			Equal(a, b), Compare(a, BinaryPrefix([]byte("a"))))
	}
	if Equal(a, Binary([]byte("ab"))) || Equal(BinaryPrefix(nil), Binary(nil)) {
		t.Error("a prefix equals a binary")
	}
	if Compare(BinaryPrefix(nil), Binary([]byte{0xFF, 0xFF})) != 1 || Compare(BinaryPrefix(nil), List(Int(1))) != 1 ||
		Compare(BinaryPrefix(nil), Atom("a")) != 1 {
		t.Error("<<_/binary>> does not sort after every binary and every term before the binaries")
	}
	// As map keys and in Desc, as any term.
	m := Map(MapEntry{BinaryPrefix([]byte("b")), Int(1)}, MapEntry{Binary([]byte("b")), Int(2)},
		MapEntry{BinaryPrefix([]byte("b")), Int(3)})
	if m.Len() != 2 || !Equal(m.Entries()[1].Key, BinaryPrefix([]byte("b"))) || m.Entries()[1].Value.Int64() != 3 {
		t.Errorf("map of prefixes: %v", m)
	}
	if Compare(Desc(BinaryPrefix([]byte("a"))), Desc(Binary([]byte("ab")))) != -1 {
		t.Error("Desc does not reverse a prefix's order")
	}
	if got := a.Kind().String(); got != "binary_prefix" {
		t.Errorf("Kind %s", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Bytes of a prefix did not panic")
		}
	}()
	a.Bytes()
}

func TestBinaryPrefixText(t *testing.T) {
	tests := []struct {
		prefix []byte
		p, w   string
	}{
		{nil, "<<_/binary>>", "<<_/binary>>"},
		{[]byte("ali"), `<<"ali",_/binary>>`, "<<97,108,105,_/binary>>"},
		{[]byte("héllo"), `<<"héllo"/utf8,_/binary>>`, "<<104,195,169,108,108,111,_/binary>>"},
		{[]byte{0xE9}, `<<"é",_/binary>>`, "<<233,_/binary>>"},
		{[]byte{0, 1}, "<<0,1,_/binary>>", "<<0,1,_/binary>>"},
		{[]byte("a\"\n"), `<<"a\"\n",_/binary>>`, "<<97,34,10,_/binary>>"},
	}
	for _, tt := range tests {
		x := Tuple(Atom("k"), BinaryPrefix(tt.prefix))
		for _, c := range []struct {
			f    *Format
			want string
		}{{P, "{k," + tt.p + "}"}, {W, "{k," + tt.w + "}"}} {
			got, err := c.f.AppendText(nil, x)
			if err != nil || string(got) != c.want {
				t.Errorf("%q: printed %s, %v; want %s", tt.prefix, got, err, c.want)
			}
			back, err := Parse(string(got))
			if err != nil || !Equal(back, x) || !bytes.Equal(back.Elems()[1].BinaryPrefix(), tt.prefix) {
				t.Errorf("Parse(%s) = %v, %v", got, back, err)
			}
		}
	}
}
