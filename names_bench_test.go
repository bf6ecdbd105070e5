package sext

import (
	"strconv"
	"testing"
	"unique"
)

// BenchmarkIntern sets the per-decoder table against Go's unique package
// for interning decoded names: a few names that recur (store keys), and
// 20,000 that cycle (more than a table holds), on one goroutine and on
// all of them. The table is what the decoders use; this benchmark is why.
//
//	go test -run '^$' -bench Intern -count 6 . | benchstat -col /impl -
func BenchmarkIntern(b *testing.B) {
	sets := map[string][][]byte{"names=few": nil, "names=20000": nil}
	for _, n := range []string{"user", "order", "session", "active", "nonode@nohost", "undefined", "true", "false"} {
		sets["names=few"] = append(sets["names=few"], []byte(n))
	}
	for i := range 20000 {
		sets["names=20000"] = append(sets["names=20000"], []byte("name_"+strconv.Itoa(i)))
	}
	impls := []struct {
		name   string
		intern func(s *scratchSpace, b []byte) string
	}{
		{"table", (*scratchSpace).intern},
		{"unique", func(_ *scratchSpace, b []byte) string { return unique.Make(string(b)).Value() }},
	}
	for _, set := range []string{"names=few", "names=20000"} {
		names := sets[set]
		for _, im := range impls {
			b.Run(set+"/par=1/impl="+im.name, func(b *testing.B) {
				s := new(scratchSpace)
				b.ReportAllocs()
				for i := range b.N {
					sinkName = im.intern(s, names[i%len(names)])
				}
			})
			b.Run(set+"/par=all/impl="+im.name, func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					s := new(scratchSpace) // each goroutine's decoder has its own
					var last string
					for i := 0; pb.Next(); i++ {
						last = im.intern(s, names[i%len(names)])
					}
					sinkName = last
				})
			})
		}
	}
}

var sinkName string
