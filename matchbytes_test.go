package sext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// renameWilds makes some '$N' of p repeat an earlier one, so that a
// pattern drawn from a term also needs equal parts.
func renameWilds(t *rapid.T, p term.Term, n int) term.Term {
	switch p.Kind() {
	case term.KindAtom:
		name := p.Atom()
		if len(name) > 1 && name[0] == '$' && rapid.IntRange(0, 2).Draw(t, "repeat") == 0 {
			k, _ := strconv.Atoi(name[1:])
			return term.Atom("$" + strconv.Itoa(rapid.IntRange(1, max(1, k)).Draw(t, "as")))
		}
	case term.KindTuple:
		c := append([]term.Term(nil), p.Elems()...)
		for i := range c {
			c[i] = renameWilds(t, c[i], n)
		}
		return term.Tuple(c...)
	case term.KindList:
		c := append([]term.Term(nil), p.Elems()...)
		for i := range c {
			c[i] = renameWilds(t, c[i], n)
		}
		if p.IsProper() {
			return term.List(c...)
		}
		return term.ImproperList(c, renameWilds(t, p.Tail(), n))
	case term.KindMap:
		es := append([]term.MapEntry(nil), p.Entries()...)
		for i := range es {
			es[i].Value = renameWilds(t, es[i].Value, n)
		}
		return term.Map(es...)
	case term.KindDesc:
		return term.Desc(renameWilds(t, p.Inner(), n))
	}
	return p
}

// appendOdd writes x in one of the forms the decoders accept and the
// encoder never writes, where x has one: maps with their entries shuffled
// and a key repeated (the last one wins), a list split into an element
// and a tail that is the rest of the list, small integers in bignum form,
// -0 for 0, framing with an empty last unit, the long form of a small
// creation, and descending terms with the whole-byte end mark 247.
func appendOdd(t *rapid.T, dst []byte, x term.Term) []byte {
	odd := rapid.IntRange(0, 2).Draw(t, "odd") == 0
	switch x.Kind() {
	case term.KindTuple:
		dst = binary.BigEndian.AppendUint32(append(dst, tagTuple), uint32(x.Len()))
		for _, e := range x.Elems() {
			dst = appendOdd(t, dst, e)
		}
		return dst
	case term.KindList:
		elems := x.Elems()
		if len(elems) == 0 {
			break
		}
		dst = append(dst, tagList)
		for i, e := range elems {
			if i > 0 && rapid.IntRange(0, 3).Draw(t, "splittail") == 0 {
				rest := term.List(elems[i:]...)
				if !x.IsProper() {
					rest = term.ImproperList(elems[i:], x.Tail())
				}
				return appendOdd(t, append(dst, markImproper), rest)
			}
			dst = appendOdd(t, dst, e)
		}
		if x.IsProper() {
			return append(dst, markEnd)
		}
		return appendOdd(t, append(dst, markImproper), x.Tail()) // 1 even for a bitstring
	case term.KindMap:
		es := append([]term.MapEntry(nil), x.Entries()...)
		if len(es) == 0 {
			break
		}
		order := rapid.Permutation(es).Draw(t, "order")
		dup := rapid.Bool().Draw(t, "dup")
		n := len(order)
		if dup {
			n++
		}
		dst = binary.BigEndian.AppendUint32(append(dst, tagList, markMap), uint32(n))
		if dup { // a repeated key first: the later entry wins
			dst = appendOdd(t, dst, order[0].Key)
			dst = appendOdd(t, dst, term.Atom("shadowed"))
		}
		for _, e := range order {
			dst = appendOdd(t, appendOdd(t, dst, e.Key), e.Value)
		}
		return dst
	case term.KindDesc:
		dst = append(dst, tagDesc)
		start := len(dst)
		dst = appendOdd(t, dst, x.Inner())
		dst = frameTail(dst, start, 8*(len(dst)-start), true)
		if odd {
			dst[len(dst)-1] = 0xFF - 8
		}
		return dst
	case term.KindInt:
		i, small := int64(0), x.IsInt64()
		if small {
			i = x.Int64()
		}
		if bi := x.BigInt(); odd && bi.Sign() > 0 && bi.BitLen() > 64 {
			// A magnitude with a leading zero byte it does not need.
			mag := append([]byte{0}, bi.Bytes()...)
			dst = append(dst, tagPosBig)
			start := len(dst)
			dst = append(appendSize(append(dst, sizeMark), len(mag)), mag...)
			return append(frameTail(dst, start, 8*(len(dst)-start), false), 0)
		}
		switch {
		case !odd || !small || i < 0 || i > max31:
		case i == 0:
			return append(dst, tagNeg4, 0xFF, 0xFF, 0xFF, 0xFF)
		default:
			var mag [8]byte
			binary.BigEndian.PutUint64(mag[:], uint64(i))
			k := 0
			for mag[k] == 0 {
				k++
			}
			start := len(dst) + 1
			dst = append(append(dst, tagPosBig, sizeMark, byte(8-k)), mag[k:]...)
			return append(frameTail(dst, start, 8*(len(dst)-start), false), 0)
		}
	case term.KindAtom, term.KindBinary:
		if odd && (x.Kind() == term.KindAtom || x.BitLen()%8 == 0) {
			enc, err := Encode(x)
			if err != nil || len(enc) < 2 {
				break
			}
			// The same bytes framed with one more, empty, unit.
			f, err := scanFrame(enc, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, f.units)
			if err := unframe(data, enc, 1, f, 0); err != nil {
				t.Fatal(err)
			}
			dst = append(dst, enc[0])
			start := len(dst)
			dst = frameTail(append(append(dst, data...), 0), start, 8*len(data)+8, false)
			dst[len(dst)-1] = 0
			return dst
		}
	case term.KindFloat:
		if f := x.Float(); odd && f >= 1<<64 {
			// An integral float with a fraction of 52 zero bits where the
			// encoder writes none.
			enc, err := Encode(x)
			if err != nil {
				break
			}
			dst = append(dst, enc[:len(enc)-1]...)
			return append(dst, frameTail(make([]byte, 7), 0, 52, false)...)
		}
	case term.KindPid:
		if p := x.Pid(); odd && p.Creation <= 3 {
			dst, err := appendNode(append(dst, tagPid), p.Node)
			if err != nil {
				break
			}
			dst = binary.BigEndian.AppendUint32(dst, p.ID)
			dst = binary.BigEndian.AppendUint32(dst, p.Serial)
			return binary.BigEndian.AppendUint32(append(dst, 0xFF), p.Creation)
		}
	}
	b, err := Append(dst, x)
	if err != nil {
		t.Skip("unencodable")
	}
	return b
}

// checkMatcher compares the Matcher with Decode and Match on key.
func checkMatcher(t *rapid.T, o Options, p term.Term, key []byte) {
	m, err := o.CompileMatch(p)
	if err != nil {
		t.Fatalf("CompileMatch(%s): %v", p, err)
	}
	x, derr := o.Decode(key)
	var wantBs Bindings
	var want bool
	if derr == nil {
		wantBs, want = Match(p, x)
	}
	ok, err := m.Matches(key)
	bs, ok2, err2 := m.Match(key)
	kt, bs3, ok3, err3 := m.MatchKey(key)
	for i, r := range []struct {
		ok  bool
		err error
	}{{ok, err}, {ok2, err2}, {ok3, err3}} {
		if derr == nil {
			if r.err != nil || r.ok != want {
				t.Fatalf("call %d: %s against %s (%x): %v, %v; Match says %v", i, p, x, key, r.ok, r.err, want)
			}
			continue
		}
		// A key that does not decode: Decode's error, or no match.
		if r.ok {
			t.Fatalf("call %d: %s matches %x, which Decode refuses: %v", i, p, key, derr)
		}
		var de, me *DecodeError
		if r.err != nil && (!errors.As(derr, &de) || !errors.As(r.err, &me) || de.Offset != me.Offset || de.Err != me.Err) {
			t.Fatalf("call %d: %s against %x: error %v; Decode's %v", i, p, key, r.err, derr)
		}
	}
	if derr != nil || !want {
		return
	}
	eq := cmp.Comparer(term.Equal)
	if diff := cmp.Diff(wantBs, bs, eq); diff != "" {
		t.Fatalf("%s against %s: bindings differ (-Match +Matcher):\n%s", p, x, diff)
	}
	if diff := cmp.Diff(wantBs, bs3, eq); diff != "" || !term.Equal(kt, x) {
		t.Fatalf("%s against %s: MatchKey gives %s, bindings (-Match +MatchKey):\n%s", p, x, kt, diff)
	}
}

func drawMatchCase(t *rapid.T) (term.Term, term.Term) {
	x := drawTerm(t, 3)
	var n int
	p := renameWilds(t, drawPattern(t, x, &n), n)
	if rapid.Bool().Draw(t, "mutate") {
		x = mutate(t, x)
	}
	return p, x
}

func TestPropCompiledMatchAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, x := drawMatchCase(t)
		o := Options{UTF8Atoms: rapid.Bool().Draw(t, "utf8")}
		key, err := o.Encode(x)
		if err != nil {
			t.Skip("unencodable")
		}
		if _, err := o.Encode(term.Tuple(p)); err != nil {
			t.Skip("unencodable pattern")
		}
		checkMatcher(t, o, p, key)
	})
}

func TestPropCompiledMatchLegacyBignums(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, x := drawMatchCase(t)
		key, err := Options{Legacy: true}.Encode(x)
		if err != nil {
			t.Skip("unencodable")
		}
		checkMatcher(t, Options{}, p, key)
	})
}

func TestPropCompiledMatchOddForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, x := drawMatchCase(t)
		key := appendOdd(t, nil, x)
		if back, err := Decode(key); err != nil || !term.Equal(back, x) {
			t.Fatalf("the odd form %x of %s decodes to %s, %v", key, x, back, err)
		}
		checkMatcher(t, Options{}, p, key)
	})
}

func TestPropCompiledMatchBadKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, x := drawMatchCase(t)
		key, err := Encode(x)
		if err != nil {
			t.Skip("unencodable")
		}
		checkMatcher(t, Options{MaxDepth: 3}, p, mutateBytes(t, key))
	})
}

// Hand-built keys that real Erlang systems write and this encoder does
// not: the Matcher must answer as Decode and Match do.
func TestCompiledMatchNonCanonicalKeys(t *testing.T) {
	legacy, err := Options{Legacy: true}.Encode(mustParse(t, "{n, 123456789012345678901234567890}"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pattern, hex string
		want         bool
		binds        string // the bindings as a list, when it matches
	}{
		// #{b => 1, a => 2}, entries in the wrong order.
		{"#{a => '$1', b => '$2'}", "1101000000020cb100080a000000020cb080080a00000004", true, "[2,1]"},
		{"#{a => 2, b => '_'}", "1101000000020cb100080a000000020cb080080a00000004", true, "[]"},
		{"#{a => 1, b => '_'}", "1101000000020cb100080a000000020cb080080a00000004", false, ""},
		// #{a => 1, a => 2}: a repeated key, the last one wins: #{a => 2}.
		{"#{a => '$1'}", "1101000000020cb080080a000000020cb080080a00000004", true, "[2]"},
		{"#{'$1' => '_', '$2' => '_'}", "1101000000020cb080080a000000020cb080080a00000004", false, ""},
		// A legacy bignum, against the same number as a literal and bound.
		{"{n, 123456789012345678901234567890}", toHex(legacy), true, "[]"},
		{"{n, '$1'}", toHex(legacy), true, "[123456789012345678901234567890]"},
		{"{'$1', '$1'}", toHex(legacy), false, ""},
		// [1 | [2]]: a list tail that is a list, which is [1, 2].
		{"[1, 2]", "110a0000000201110a0000000402", true, "[]"},
		{"[1, '$1']", "110a0000000201110a0000000402", true, "[2]"},
		{"[1 | '$1']", "110a0000000201110a0000000402", true, "[[2]]"},
		// 0 written as -0, and 1 in bignum form.
		{"{0, '_'}", "100000000209ffffffff0a00000002", true, "[]"},
		{"{'$1', '$1'}", "10000000020bffc0602008000a00000002", true, "[1]"},
		{"{1, 2}", "10000000020bffc0602008000a00000002", false, ""},
	} {
		p := mustParse(t, c.pattern)
		key := mustHex(t, c.hex)
		x, err := Decode(key)
		if err != nil {
			t.Fatalf("%s: %v", c.hex, err)
		}
		if _, ok := Match(p, x); ok != c.want {
			t.Fatalf("bad case: Match(%s, %s) = %v", p, x, ok)
		}
		m, err := CompileMatch(p)
		if err != nil {
			t.Fatal(err)
		}
		bs, ok, err := m.Match(key)
		if err != nil || ok != c.want {
			t.Errorf("%s against %s (%s): %v, %v; want %v", p, x, c.hex, ok, err, c.want)
			continue
		}
		if !ok {
			continue
		}
		var got []term.Term
		for _, b := range bs {
			got = append(got, b.Value)
		}
		if s := term.List(got...).String(); s != c.binds {
			t.Errorf("%s against %s: bindings %s, want %s", p, x, s, c.binds)
		}
	}
}

func toHex(b []byte) string { return Hex.EncodeToString(b) }

func BenchmarkMatcherOrderKey(b *testing.B) {
	p, _ := term.Parse("{order, '_', '_', 500000}")
	x, _ := term.Parse("{order, 4711, #Desc<1735689600>, 12345}")
	key, _ := Encode(x)
	m, err := CompileMatch(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("mode=compiled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := m.Matches(key); ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("mode=view", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e, err := NewView(key).Elem(3)
			if err != nil {
				b.Fatal(err)
			}
			if id, err := e.Int64(); id == 500000 || err != nil {
				b.Fatal(id, err)
			}
		}
	})
	b.Run("mode=decode+match", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t, err := Decode(key)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := Match(p, t); ok {
				b.Fatal(ok)
			}
		}
	})
}

func TestPropViewAgreesWithDecodeOnOddForms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := appendOdd(t, nil, drawTerm(t, 3))
		checkView(t, Options{}, key)
	})
}

// One Matcher serves many goroutines at once (run with -race): its
// scratch memory is per call.
func TestMatcherConcurrentUse(t *testing.T) {
	m, err := CompileMatch(mustParse(t, "{order, '$1', #Desc<'_'>, '$2'}"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 200 {
				x := term.Tuple(term.Atom("order"), term.Int(int64(g)), term.Desc(term.Binary(make([]byte, i%40))), term.Int(int64(i)))
				key, _ := Encode(x)
				bs, ok, err := m.Match(key)
				if err != nil || !ok {
					done <- errors.Join(err, errors.New("no match"))
					return
				}
				if v, _ := bs.Get("$2"); !term.Equal(v, term.Int(int64(i))) {
					done <- errors.New("wrong binding " + v.String())
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestNegBigFractionIsTheEncoders(t *testing.T) {
	for _, f := range []float64{-1 << 52, -1 << 64, -1e300} {
		enc, err := Encode(term.Float(f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(enc, negBigFraction) {
			t.Errorf("%v encodes as %x, which does not end with %x", f, enc, negBigFraction)
		}
	}
}

// A float of 2^64 and more written with 52 zero fraction bits, which the
// decoders read as the same float: literal and repeated '$N' comparisons
// must not take its bytes for another float's.
func TestCompiledMatchOddBigFloat(t *testing.T) {
	for _, f := range []float64{1 << 70, 1.5e300} {
		x := term.Float(f)
		enc, _ := Encode(x)
		odd := append(enc[:len(enc)-1:len(enc)-1], frameTail(make([]byte, 7), 0, 52, false)...)
		if back, err := Decode(odd); err != nil || !term.Equal(back, x) {
			t.Fatalf("%x decodes to %v, %v", odd, back, err)
		}
		key := append(append([]byte{tagTuple, 0, 0, 0, 2}, odd...), enc...)
		for _, p := range []string{"{" + x.String() + ", '_'}", "{'$1', '$1'}"} {
			m, err := CompileMatch(mustParse(t, p))
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := m.Matches(key); !ok || err != nil {
				t.Errorf("%s against %x: %v, %v; want a match", p, key, ok, err)
			}
		}
	}
}

// A pattern that ends with a small integer refutes, without a walk, a key
// that ends otherwise, but not one that ends as the integer's other
// forms do.
func TestMatcherLastInt(t *testing.T) {
	for _, c := range []struct {
		pattern, hex string
		want         bool
		err          bool // the walk reports Decode's error
	}{
		// {2, 1}, the 1 in bignum form, whose last byte is the flag 00.
		{"{'_', 1}", "10000000020a000000040bffc060200800", true, false},
		{"{2, '$1'}", "10000000020a000000040bffc060200800", true, false},
		// {a, 0}, the 0 written as -0, ending FF.
		{"{a, 0}", "10000000020cb0800809ffffffff", true, false},
		// The canonical forms.
		{"{order, '_', '_', 7}", "10000000040cb7dcac965b9008" + "0a00000002" + "0a00000006" + "0a0000000e", true, false},
		{"{order, '_', '_', 8}", "10000000040cb7dcac965b9008" + "0a00000002" + "0a00000006" + "0a0000000e", false, false},
		// A key whose middle does not decode: refuted by its end, where
		// the walk would have met the bad bytes.
		{"{order, '_', 7}", "10000000030cb7dcac965b9008" + "ee" + "0a0000000c", false, false},
		// The same key ending as the integer's other forms may: walked,
		// so the bad bytes are reported.
		{"{order, '_', 7}", "10000000030cb7dcac965b9008" + "ee" + "0a00000100", false, true},
	} {
		p := mustParse(t, c.pattern)
		m, err := CompileMatch(p)
		if err != nil {
			t.Fatal(err)
		}
		key := mustHex(t, c.hex)
		ok, err := m.Matches(key)
		if ok != c.want || (err != nil) != c.err {
			t.Errorf("%s against %s: %v, %v; want %v and an error: %v", c.pattern, c.hex, ok, err, c.want, c.err)
		}
		if x, derr := Decode(key); derr == nil {
			if _, want := Match(p, x); want != c.want {
				t.Errorf("bad case: Match(%s, %s) = %v", p, x, want)
			}
		} else if !c.err && c.want {
			t.Errorf("bad case: %s does not decode: %v", c.hex, derr)
		}
	}
}
