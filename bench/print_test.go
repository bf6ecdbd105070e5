package main

import (
	"testing"

	"github.com/erlsext/sext/term"
)

// BenchmarkPrint writes every term of each workload as text into one
// reused buffer, in each of term's formats: fmt=w is Erlang's ~w (the
// form term printed before ~p), fmt=p is ~p, which looks for printable
// lists and binaries. benchstat -col /fmt puts the two side by side:
//
//	go test -run '^$' -bench 'Print/study' -count 6 ./bench > p.txt
//	benchstat -col /fmt p.txt
func BenchmarkPrint(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) {
		for _, f := range []struct {
			name string
			f    *term.Format
		}{{"w", term.W}, {"p", term.P}} {
			b.Run("fmt="+f.name, func(b *testing.B) {
				buf := make([]byte, 0, 1<<16)
				perTerm(b, c, func() error {
					for _, t := range c.terms {
						buf = f.f.Append(buf[:0], t)
					}
					return nil
				})
			})
		}
	})
}
