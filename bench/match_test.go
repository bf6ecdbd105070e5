package main

import (
	"fmt"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/term"
)

// BenchmarkMatch filters every workload's keys by a pattern, compiled
// (sext.Matcher, on the bytes) against decoded (Decode, then Match, what
// store.Scan did before). Each term's pattern is the term with every other
// element of each tuple and list made '_' and the rest '$N'-free literals
// or recursed into; key=own matches each key against its own pattern
// (every key matches), key=next against the next term's (nearly none do).
//
//	go test -run '^$' -bench 'Match' -count 6 ./bench > m.txt
//	benchstat -col /mode m.txt
func BenchmarkMatch(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) {
		pats := make([]term.Term, len(c.terms))
		ms := make([]*sext.Matcher, len(c.terms))
		for i, t := range c.terms {
			pats[i] = holes(t, 0)
			var err error
			if ms[i], err = sext.CompileMatch(pats[i]); err != nil {
				b.Fatal(err)
			}
		}
		for _, key := range []string{"own", "next"} {
			shift := 0
			if key == "next" {
				shift = 1
			}
			want := 0
			for i, enc := range c.encs {
				t, _ := sext.Decode(enc)
				if _, ok := sext.Match(pats[(i+shift)%len(pats)], t); ok {
					want++
				}
			}
			check := func(n int) error {
				if n != want {
					return fmt.Errorf("%d keys matched, Decode+Match says %d", n, want)
				}
				return nil
			}
			b.Run("key="+key+"/mode=compiled", func(b *testing.B) {
				perTerm(b, c, func() error {
					n := 0
					for i, enc := range c.encs {
						ok, err := ms[(i+shift)%len(ms)].Matches(enc)
						if err != nil {
							return err
						}
						if ok {
							n++
						}
					}
					return check(n)
				})
			})
			b.Run("key="+key+"/mode=compiled-bindings", func(b *testing.B) {
				perTerm(b, c, func() error {
					n := 0
					for i, enc := range c.encs {
						bs, ok, err := ms[(i+shift)%len(ms)].Match(enc)
						if err != nil {
							return err
						}
						if ok {
							n++
							sinkBindings = bs
						}
					}
					return check(n)
				})
			})
			b.Run("key="+key+"/mode=decode+match", func(b *testing.B) {
				perTerm(b, c, func() error {
					n := 0
					for i, enc := range c.encs {
						t, err := sext.Decode(enc)
						if err != nil {
							return err
						}
						if bs, ok := sext.Match(pats[(i+shift)%len(pats)], t); ok {
							n++
							sinkBindings = bs
						}
					}
					return check(n)
				})
			})
		}
	})
}

var sinkBindings sext.Bindings

// holes turns t into a pattern that t matches: in tuples and lists, even
// elements become '_' and odd ones are recursed into (the first of them
// a '$N' binding); map values likewise; leaves stay literal.
func holes(t term.Term, depth int) term.Term {
	hole := func(i int) term.Term {
		if i == 0 && depth == 0 {
			return term.Atom("$1")
		}
		return term.Atom("_")
	}
	switch t.Kind() {
	case term.KindTuple, term.KindList:
		elems := t.Elems()
		c := make([]term.Term, len(elems))
		for i, e := range elems {
			if i%2 == 0 {
				c[i] = hole(i)
			} else {
				c[i] = holes(e, depth+1)
			}
		}
		if t.Kind() == term.KindTuple {
			return term.Tuple(c...)
		}
		if t.IsProper() {
			return term.List(c...)
		}
		return term.ImproperList(c, holes(t.Tail(), depth+1))
	case term.KindMap:
		es := append([]term.MapEntry(nil), t.Entries()...)
		for i := range es {
			es[i].Value = holes(es[i].Value, depth+1)
		}
		return term.Map(es...)
	case term.KindDesc:
		return term.Desc(holes(t.Inner(), depth+1))
	}
	return t
}

// BenchmarkKeyView reads the id of {user, 42, <<"alice">>} with a
// sext.View against a full decode; cpu-ns/op is the process's CPU time,
// which time given to other processes does not inflate.
func BenchmarkKeyView(b *testing.B) {
	enc, err := sext.Encode(kvKeyTerm)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, f func() (int64, error)) {
		b.ReportAllocs()
		c0 := cputime.Process()
		for range b.N {
			if id, err := f(); err != nil || id != 42 {
				b.Fatal(id, err)
			}
		}
		if cpu := cputime.Process() - c0; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
	b.Run("op=view", func(b *testing.B) {
		run(b, func() (int64, error) {
			e, err := sext.NewView(enc).Elem(1)
			if err != nil {
				return 0, err
			}
			return e.Int64()
		})
	})
	b.Run("op=decode", func(b *testing.B) {
		run(b, func() (int64, error) {
			t, err := sext.Decode(enc)
			if err != nil {
				return 0, err
			}
			return t.Elems()[1].Int64(), nil
		})
	})
	b.Run("op=skip", func(b *testing.B) {
		run(b, func() (int64, error) {
			_, err := sext.NewView(enc).End()
			return 42, err
		})
	})
}

// BenchmarkOrderKeyMatch filters one demo order key, {order, 4711,
// #Desc<1735689600>, 12345}, by {order, '_', '_', 500000}, as Scan does
// for every key it reads: compiled, with a View, and decoded.
func BenchmarkOrderKeyMatch(b *testing.B) {
	p := term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"), term.Int(500000))
	enc, err := sext.Encode(term.Tuple(term.Atom("order"), term.Int(4711), term.Desc(term.Int(1735689600)), term.Int(12345)))
	if err != nil {
		b.Fatal(err)
	}
	m, err := sext.CompileMatch(p)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, f func() (bool, error)) {
		b.ReportAllocs()
		c0 := cputime.Process()
		for range b.N {
			if ok, err := f(); ok || err != nil {
				b.Fatal(ok, err)
			}
		}
		if cpu := cputime.Process() - c0; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
	b.Run("op=compiled", func(b *testing.B) { run(b, func() (bool, error) { return m.Matches(enc) }) })
	b.Run("op=view", func(b *testing.B) {
		run(b, func() (bool, error) {
			e, err := sext.NewView(enc).Elem(3)
			if err != nil {
				return false, err
			}
			id, err := e.Int64()
			return id == 500000, err
		})
	})
	b.Run("op=decode+match", func(b *testing.B) {
		run(b, func() (bool, error) {
			t, err := sext.Decode(enc)
			if err != nil {
				return false, err
			}
			_, ok := sext.Match(p, t)
			return ok, nil
		})
	})
}
