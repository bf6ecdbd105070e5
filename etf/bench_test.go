package etf_test

import (
	"strconv"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// benchTerm is a value as a store keeps one: a record with a map, a
// binary, a string, a pid, a float and a bignum.
func benchTerm(b *testing.B) term.Term {
	x, err := term.Parse(`{order, 42, #{status => open, lines => [{item, <<"sku-1">>, 3, 9.99}, {item, <<"sku-2">>, 1, 120.0}]},
		"customer note", #Pid<'shop@h',83,0,1>, 123456789012345678901234567890, <<0,1,2,3,4,5,6,7,8,9>>}`)
	if err != nil {
		b.Fatal(err)
	}
	return x
}

func BenchmarkAppend(b *testing.B) {
	x := benchTerm(b)
	buf, _ := etf.Append(nil, x)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = etf.Append(buf[:0], x)
	}
}

func BenchmarkDecode(b *testing.B) {
	enc, _ := etf.Encode(benchTerm(b))
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := etf.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendCompressed(b *testing.B) {
	x := term.List(slicesRepeat(benchTerm(b), 20)...)
	o := etf.Options{Compression: etf.DefaultCompression}
	buf, _ := o.Append(nil, x)
	plain, _ := etf.Encode(x)
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = o.Append(buf[:0], x)
	}
}

func BenchmarkDecodeCompressed(b *testing.B) {
	x := term.List(slicesRepeat(benchTerm(b), 20)...)
	enc, _ := etf.Options{Compression: etf.DefaultCompression}.Encode(x)
	plain, _ := etf.Encode(x)
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := etf.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// bigMaps are maps of 200 keys as erts keeps them in hash tries: integer,
// binary and tuple keys, which are written in hash order, and atom keys,
// which keep key order.
func bigMaps() map[string]term.Term {
	out := map[string]term.Term{}
	kinds := map[string]func(i int) term.Term{
		"int":    func(i int) term.Term { return term.Int(int64(i) * 7919) },
		"binary": func(i int) term.Term { return term.Binary([]byte("user-" + strconv.Itoa(i))) },
		"tuple": func(i int) term.Term {
			return term.Tuple(term.Int(int64(i)), term.List(term.Int(1), term.Float(float64(i))))
		},
		"atom": func(i int) term.Term { return term.Atom("field_" + strconv.Itoa(i)) },
	}
	for name, key := range kinds {
		es := make([]term.MapEntry, 200)
		for i := range es {
			es[i] = term.MapEntry{Key: key(i), Value: term.Int(int64(i))}
		}
		out[name] = term.Map(es...)
	}
	return out
}

func BenchmarkAppendBigMap(b *testing.B) {
	for _, name := range []string{"int", "binary", "tuple", "atom"} {
		x := bigMaps()[name]
		b.Run(name, func(b *testing.B) {
			buf, _ := etf.Append(nil, x)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = etf.Append(buf[:0], x)
			}
		})
	}
}
