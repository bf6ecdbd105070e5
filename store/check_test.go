package store_test

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// TestCheckFixProperty: for any store holding terms written in canonical
// form, with legacy bignums and with map entries in any order, Check
// with Fix leaves every term readable by Get with its own value, a
// second Check clean, and the number of keys unchanged.
func TestCheckFixProperty(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		n := rapid.IntRange(1, 30).Draw(rt, "keys")
		values := map[int]string{}
		var odd int
		wb := s.KV().NewBatch()
		terms := map[int]term.Term{}
		for i := range n {
			var x term.Term
			var raw []byte
			switch rapid.IntRange(0, 2).Draw(rt, "kind") {
			case 0: // a plain key, canonical
				x = term.Tuple(term.Atom("p"), term.Int(int64(i)))
				raw, _ = sext.Encode(x)
			case 1: // a bignum, in either layout
				b := new(big.Int).Lsh(big.NewInt(int64(rapid.IntRange(1, 1000).Draw(rt, "mant"))), uint(rapid.IntRange(64, 300).Draw(rt, "shift")))
				if rapid.Bool().Draw(rt, "neg") {
					b.Neg(b)
				}
				x = term.Tuple(term.Atom("b"), term.Int(int64(i)), term.BigInt(b))
				legacy := rapid.Bool().Draw(rt, "legacy")
				raw, _ = sext.Options{Legacy: legacy}.Encode(x)
				if canon, _ := sext.Encode(x); !bytes.Equal(raw, canon) {
					odd++
				}
			default: // a map, its entries in any order
				m := rapid.IntRange(2, 6).Draw(rt, "entries")
				var es []term.MapEntry
				for j := range m {
					es = append(es, term.MapEntry{Key: term.Int(int64(j * 7)), Value: term.Atom(fmt.Sprint("v", j))})
				}
				x = term.Tuple(term.Atom("m"), term.Int(int64(i)), term.Map(es...))
				canon, _ := sext.Encode(x)
				mapBytes, _ := sext.Encode(term.Map(es...))
				order := rapid.Permutation(es).Draw(rt, "order")
				raw = append(bytes.Clone(canon[:len(canon)-len(mapBytes)]), mapBytes[:6]...)
				for _, e := range order {
					k, _ := sext.Encode(e.Key)
					v, _ := sext.Encode(e.Value)
					raw = append(append(raw, k...), v...)
				}
				if !bytes.Equal(raw, canon) {
					odd++
				}
			}
			terms[i] = x
			values[i] = fmt.Sprint("value ", i)
			wb.Set(raw, []byte(values[i]))
		}
		if err := wb.Commit(ctx, true); err != nil {
			rt.Fatal(err)
		}
		wb.Close()

		r, err := s.Check(ctx, store.CheckOptions{Fix: true})
		if err != nil {
			rt.Fatal(err)
		}
		if r.Keys != int64(n) || r.NonCanonical != int64(odd) || r.Fixed != int64(odd) || r.Conflicts != 0 {
			rt.Fatalf("Check(Fix) = %+v; want %d keys, %d fixed", r, n, odd)
		}
		for i, x := range terms {
			if v, err := s.Get(ctx, x); err != nil || string(v) != values[i] {
				rt.Fatalf("Get(%v) after the fix = %q, %v; want %q", x, v, err, values[i])
			}
		}
		if r, err := s.Check(ctx, store.CheckOptions{}); err != nil || !r.Clean() || r.Keys != int64(n) {
			rt.Fatalf("second Check = %+v, %v; want clean, %d keys", r, err, n)
		}
	})
}
