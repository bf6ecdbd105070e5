package sext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/term"
)

// viewTerm rebuilds the term a View shows, using only the View's API, so
// that comparing it with Decode checks every accessor at once. Pids, ports
// and references, which a View does not read, and integers beyond int64
// come back from Raw and Decode; for those it checks the error Int64 gives.
func viewTerm(v View, o Options) (term.Term, error) {
	k, err := v.Kind()
	if err != nil {
		return term.Term{}, err
	}
	switch k {
	case term.KindInt:
		i, err := v.Int64()
		if errors.Is(err, ErrRange) {
			return viewRaw(v, o)
		}
		return term.Int(i), err
	case term.KindFloat:
		f, err := v.Float()
		return term.Float(f), err
	case term.KindAtom:
		name, err := v.AppendAtom(nil)
		if err != nil {
			return term.Term{}, err
		}
		if is, err := v.AtomIs(string(name)); err != nil || !is {
			return term.Term{}, fmt.Errorf("AtomIs(%q) = %v, %v", name, is, err)
		}
		if is, _ := v.AtomIs(string(name) + "x"); is {
			return term.Term{}, fmt.Errorf("AtomIs(%q) is true", string(name)+"x")
		}
		return term.Atom(string(name)), nil
	case term.KindBinary:
		b, n, err := v.AppendBits([]byte("prefix"))
		if err != nil {
			return term.Term{}, err
		}
		if !bytes.HasPrefix(b, []byte("prefix")) {
			return term.Term{}, fmt.Errorf("AppendBits lost the buffer's bytes")
		}
		return term.Bitstring(b[6:], n), nil
	case term.KindTuple:
		n, err := v.Len()
		if err != nil {
			return term.Term{}, err
		}
		elems := make([]term.Term, n)
		for i := range elems {
			e, err := v.Elem(i)
			if err != nil {
				return term.Term{}, err
			}
			if elems[i], err = viewTerm(e, o); err != nil {
				return term.Term{}, err
			}
		}
		if _, err := v.Elem(n); !errors.Is(err, ErrRange) {
			return term.Term{}, fmt.Errorf("Elem(%d) of a %d-tuple: %v, want ErrRange", n, n, err)
		}
		return term.Tuple(elems...), nil
	case term.KindList:
		n, err := v.Len()
		if err != nil {
			return term.Term{}, err
		}
		elems := make([]term.Term, n, n+1)
		for i := range elems {
			e, err := v.Elem(i)
			if err != nil {
				return term.Term{}, err
			}
			if elems[i], err = viewTerm(e, o); err != nil {
				return term.Term{}, err
			}
		}
		tv, improper, err := v.Tail()
		if err != nil || !improper {
			return term.List(elems...), err
		}
		tail, err := viewTerm(tv, o)
		return term.ImproperList(elems, tail), err
	case term.KindMap:
		n, err := v.Len()
		if err != nil {
			return term.Term{}, err
		}
		entries := make([]term.MapEntry, n)
		for i := range entries {
			kv, vv, err := v.Entry(i)
			if err != nil {
				return term.Term{}, err
			}
			if entries[i].Key, err = viewTerm(kv, o); err != nil {
				return term.Term{}, err
			}
			if entries[i].Value, err = viewTerm(vv, o); err != nil {
				return term.Term{}, err
			}
		}
		return term.Map(entries...), nil
	case term.KindDesc:
		inner, err := v.AppendInner(nil)
		if err != nil {
			return term.Term{}, err
		}
		x, err := viewTerm(o.View(inner), o)
		if err != nil {
			return term.Term{}, err
		}
		return term.Desc(x), nil
	}
	return viewRaw(v, o)
}

func viewRaw(v View, o Options) (term.Term, error) {
	raw, err := v.Raw()
	if err != nil {
		return term.Term{}, err
	}
	return o.Decode(raw)
}

// checkView compares the View of b with Decode: the same term, or an
// error from End with the same sentinel and offset.
func checkView(t interface {
	Helper()
	Fatalf(string, ...any)
}, o Options, b []byte) {
	t.Helper()
	want, derr := o.Decode(b)
	v := o.View(b)
	end, verr := v.End()
	if verr == nil && end != len(b) {
		verr = errAt(end, ErrTrailing, "")
	}
	if (derr == nil) != (verr == nil) {
		t.Fatalf("%x: Decode error %v, View.End error %v", b, derr, verr)
	}
	if derr != nil {
		var de, ve *DecodeError
		if !errors.As(derr, &de) || !errors.As(verr, &ve) || de.Offset != ve.Offset || de.Err != ve.Err {
			t.Fatalf("%x: Decode error %v, View.End error %v", b, derr, verr)
		}
		return
	}
	got, err := viewTerm(v, o)
	if err != nil {
		t.Fatalf("%x: view of %s: %v", b, want, err)
	}
	if !term.Equal(got, want) {
		t.Fatalf("%x: view gives %s, Decode %s", b, got, want)
	}
}

func TestViewAgreesWithDecodeOnVectors(t *testing.T) {
	n := 0
	for _, file := range []string{"encode.tsv", "legacy.tsv", "reverse.tsv"} {
		for _, l := range readLines(t, file) {
			checkView(t, Options{}, mustHex(t, l.fields[1]))
			n++
		}
	}
	for _, l := range readLines(t, "invalid.txt") {
		checkView(t, Options{}, mustHex(t, l.fields[0]))
		n++
	}
	t.Logf("%d vectors", n)
}

func TestPropViewAgreesWithDecode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := drawTerm(t, 4)
		o := Options{Legacy: rapid.Bool().Draw(t, "legacy"), UTF8Atoms: rapid.Bool().Draw(t, "utf8")}
		b, err := o.Encode(x)
		if err != nil {
			t.Skip("unencodable")
		}
		checkView(t, o, b)
		if got, _ := o.Decode(b); !term.Equal(got, x) {
			t.Fatalf("round trip")
		}
	})
}

func TestPropViewAgreesWithDecodeOnMutations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := drawTerm(t, 3)
		b, err := Encode(x)
		if err != nil {
			t.Skip("unencodable")
		}
		b = mutateBytes(t, b)
		checkView(t, Options{MaxDepth: 3}, b)
	})
}

// mutateBytes changes, drops, inserts or cuts bytes of b.
func mutateBytes(t *rapid.T, b []byte) []byte {
	b = bytes.Clone(b)
	for range rapid.IntRange(1, 3).Draw(t, "mutations") {
		if len(b) == 0 {
			break
		}
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		switch rapid.IntRange(0, 3).Draw(t, "how") {
		case 0:
			b[i] = rapid.Byte().Draw(t, "byte")
		case 1:
			b = append(b[:i], b[i+1:]...)
		case 2:
			b = append(b[:i], append([]byte{rapid.Byte().Draw(t, "ins")}, b[i:]...)...)
		default:
			b = b[:i]
		}
	}
	return b
}

func TestViewErrors(t *testing.T) {
	huge, _ := Encode(mustParse(t, "{user, 18446744073709551616, -9223372036854775809, 9223372036854775807, -9223372036854775808, 1.5, <<1:3>>}"))
	v := NewView(huge)
	for i, want := range []error{ErrRange, ErrRange, nil, nil, ErrKind, ErrKind} {
		e, err := v.Elem(i + 1)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Int64()
		if !errors.Is(err, want) {
			t.Errorf("element %d: Int64 error %v, want %v", i+1, err, want)
		}
		var de *DecodeError
		if want != nil && (!errors.As(err, &de) || de.Offset != e.Offset()) {
			t.Errorf("element %d: error %v, want a *DecodeError at %d", i+1, err, e.Offset())
		}
	}
	e, _ := v.Elem(3)
	if i, _ := e.Int64(); i != math.MaxInt64 {
		t.Errorf("Int64 = %d", i)
	}
	e, _ = v.Elem(6)
	if _, err := e.AppendBytes(nil); !errors.Is(err, ErrKind) {
		t.Errorf("AppendBytes of a bitstring: %v", err)
	}
	if _, err := v.Elem(7); !errors.Is(err, ErrRange) {
		t.Errorf("Elem(7) of a 7-tuple: %v", err)
	}
	if _, err := v.Float(); !errors.Is(err, ErrKind) {
		t.Errorf("Float of a tuple: %v", err)
	}
	if is, err := v.AtomIs("user"); is || err != nil {
		t.Errorf("AtomIs of a tuple: %v, %v", is, err)
	}
	// Malformed bytes: the decoders' errors, at the decoders' offsets.
	for _, c := range []struct {
		hex  string
		read func(View) error
		want error
		off  int
	}{
		{"10000000020c", func(v View) error { _, err := v.Elem(1); return err }, ErrSize, 0},
		{"1000000009", func(v View) error { _, err := v.Elem(0); return err }, ErrSize, 0},
		{"0a0000", func(v View) error { _, err := v.Int64(); return err }, ErrTruncated, 0},
		{"0a0000", func(v View) error { _, err := v.Kind(); return err }, ErrTruncated, 0},
		{"12ff", func(v View) error { _, err := v.AppendBytes(nil); return err }, ErrTruncated, 1},
		{"07", func(v View) error { _, err := v.End(); return err }, ErrTag, 0},
		{"0c8008", func(v View) error { _, err := v.AppendAtom(nil); return err }, ErrFraming, 2},
	} {
		err := c.read(NewView(mustHex(t, c.hex)))
		var de *DecodeError
		if !errors.Is(err, c.want) || !errors.As(err, &de) || de.Offset != c.off {
			t.Errorf("%s: %v, want %v at %d", c.hex, err, c.want, c.off)
		}
	}
}

func BenchmarkViewUserID(b *testing.B) {
	key, _ := Encode(term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))))
	b.ReportAllocs()
	c0 := cputime.Process()
	for b.Loop() {
		e, err := NewView(key).Elem(1)
		if err != nil {
			b.Fatal(err)
		}
		if id, err := e.Int64(); err != nil || id != 42 {
			b.Fatal(id, err)
		}
	}
	reportCPU(b, c0)
}

// reportCPU reports the process's CPU time an op since c0, which time
// the machine gives to other processes does not inflate.
func reportCPU(b *testing.B, c0 time.Duration) {
	if c := cputime.Process() - c0; c > 0 && b.N > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkViewSkip(b *testing.B) {
	for _, c := range []struct{ name, key string }{
		{"order", `{order, 4711, #Desc<1735689600>, 500000}`},
		{"map", `{session, #{user => 42, roles => [admin, dev], exp => 1735689600}, active}`},
	} {
		x, _ := term.Parse(c.key)
		key, _ := Encode(x)
		b.Run("key="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewView(key).End(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestPropFindFrameIsScanFrame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "data")
		nbits := rapid.IntRange(0, 8*len(data)).Draw(t, "bits")
		neg := rapid.Bool().Draw(t, "neg")
		var inv byte
		if neg {
			inv = 0xFF
		}
		b := appendFrame(nil, data, nbits, neg)
		if rapid.Bool().Draw(t, "mutate") {
			b = mutateBytes(t, b)
		}
		b = append(b, rapid.SliceOfN(rapid.Byte(), 0, 9).Draw(t, "after")...)
		want, werr := scanFrame(b, 0, inv)
		got, gerr := findFrameInv(b, 0, inv)
		if want != got || fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%x: findFrame %+v, %v; scanFrame %+v, %v", b, got, gerr, want, werr)
		}
	})
}

func TestViewKindOfNestedTails(t *testing.T) {
	b := bytes.Repeat([]byte{tagList, markBitTail}, 1_000_000)
	b = append(b, tagAtom, emptyFrame)
	if _, err := NewView(b).Kind(); !errors.Is(err, ErrDepth) {
		t.Errorf("a million nested tails: %v, want ErrDepth", err)
	}
	if k, err := NewView(b[len(b)-8:]).Kind(); k != term.KindAtom || err != nil {
		t.Errorf("three nested tails around an atom: %v, %v", k, err)
	}
	if _, err := Decode(b); !errors.Is(err, ErrDepth) {
		t.Errorf("Decode: %v", err)
	}
}

func TestKeyReadersRefuseDeepNesting(t *testing.T) {
	m, err := CompileMatch(mustParse(t, "[['_'|'_']|'_']"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"lists":  bytes.Repeat([]byte{tagList}, 1_000_000),
		"tuples": bytes.Repeat([]byte{tagTuple, 0, 0, 0, 1}, 1_000_000),
		"descs":  bytes.Repeat([]byte{tagDesc}, 1_000_000),
	} {
		_, derr := Decode(b)
		if _, err := NewView(b).End(); fmt.Sprint(err) != fmt.Sprint(derr) {
			t.Errorf("%s: View.End error %v, Decode's %v", name, err, derr)
		}
		if ok, err := m.Matches(b); ok || err != nil && fmt.Sprint(err) != fmt.Sprint(derr) {
			t.Errorf("%s: Matches %v, %v; Decode's error %v", name, ok, err, derr)
		}
	}
}

// A list of no elements and a bitstring tail reads as its tail, nested
// or not: Int64 reads an integer inside it as Kind says it is one
// (FuzzView found Int64 refusing it; its input stays in the fuzz corpus).
func TestViewInt64ThroughWrapping(t *testing.T) {
	for _, c := range []struct {
		hex  string
		want int64
	}{
		{"0a00000054", 42},
		{"11130a00000054", 42},
		{"111311130a00000054", 42},
		{"111309fffffffb", -2},
	} {
		v := NewView(mustHex(t, c.hex))
		if k, err := v.Kind(); err != nil || k != term.KindInt {
			t.Fatalf("%s: Kind %v, %v", c.hex, k, err)
		}
		if n, err := v.Int64(); err != nil || n != c.want {
			t.Errorf("%s: Int64 %d, %v; want %d", c.hex, n, err, c.want)
		}
	}
}
