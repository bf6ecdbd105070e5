package main

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/term"
)

// One op of the workload benchmarks is one pass over a corpus of
// w.bench terms from seed 1; b.SetBytes is the corpus's encoded size, so
// MB/s is bytes of encoding per second. Each also reports ns/term,
// allocs/term and cpu-ns/term: the process's CPU time (all threads, the
// garbage collector's included) per term, which time given to other
// processes on a shared machine does not inflate. Sub-benchmark names carry key=value parts so that benchstat
// can put them side by side:
//
//	go test -run '^$' -bench 'Decode/study' -count 6 ./bench > d.txt
//	benchstat -col /dec d.txt

var (
	corporaOnce sync.Once
	corpora     map[string]*corpus
	corporaErr  error
)

func benchCorpus(b *testing.B, name string) *corpus {
	corporaOnce.Do(func() {
		corpora = make(map[string]*corpus)
		for _, w := range workloads {
			c, err := newCorpus(w.name, w.generate(w.bench, 1))
			if err != nil {
				corporaErr = err
				return
			}
			corpora[w.name] = c
		}
	})
	if corporaErr != nil {
		b.Fatal(corporaErr)
	}
	return corpora[name]
}

// perTerm runs pass b.N times and reports ns/term and allocs/term.
func perTerm(b *testing.B, c *corpus, pass func() error) {
	b.Helper()
	if err := pass(); err != nil { // warm up: buffers reach their size
		b.Fatal(err)
	}
	b.SetBytes(int64(c.bytes))
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m0 := ms.Mallocs
	c0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		if err := pass(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cputime.Process() - c0
	runtime.ReadMemStats(&ms)
	terms := float64(b.N) * float64(len(c.terms))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/terms, "ns/term")
	b.ReportMetric(float64(ms.Mallocs-m0)/terms, "allocs/term")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/terms, "cpu-ns/term")
	}
}

func forWorkloads(b *testing.B, f func(b *testing.B, c *corpus)) {
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) { f(b, benchCorpus(b, w.name)) })
	}
}

func mustPrep(b *testing.B, c *corpus, prep func(*corpus) (func() error, error)) func() error {
	b.Helper()
	pass, err := prep(c)
	if err != nil {
		b.Fatal(err)
	}
	return pass
}

// BenchmarkEncode appends every term into one reused buffer.
func BenchmarkEncode(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) { perTerm(b, c, mustPrep(b, c, prepEncode)) })
}

// BenchmarkDecode runs both decoders, the Decoder and Decode (whose flat
// path takes small keys) on every workload.
func BenchmarkDecode(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) {
		b.Run("dec=recursive", func(b *testing.B) {
			perTerm(b, c, mustPrep(b, c, prepDecode(sext.DecodeRecursive)))
		})
		b.Run("dec=cps", func(b *testing.B) {
			perTerm(b, c, mustPrep(b, c, prepDecode(sext.DecodeCPS)))
		})
		b.Run("dec=reuse", func(b *testing.B) {
			perTerm(b, c, mustPrep(b, c, prepDecodeReuse))
		})
		b.Run("dec=decode", func(b *testing.B) { // the flat path, else cps
			perTerm(b, c, mustPrep(b, c, prepDecode(sext.Decode)))
		})
	})
}

// BenchmarkDecodeNext reads the corpus as one stream of encodings.
func BenchmarkDecodeNext(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) { perTerm(b, c, mustPrep(b, c, prepDecodeNext)) })
}

// BenchmarkCompare compares every term with an equal copy, so that
// Compare walks both to the end; SetBytes counts the encoded size of one
// side.
func BenchmarkCompare(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) { perTerm(b, c, mustPrep(b, c, prepCompare)) })
}

// BenchmarkPrefix appends the prefix of every term, taken as a pattern
// without wildcards, into one reused buffer.
func BenchmarkPrefix(b *testing.B) {
	forWorkloads(b, func(b *testing.B, c *corpus) { perTerm(b, c, mustPrep(b, c, prepPrefix)) })
}

var kvKeyTerm = term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice")))

// userKey is the Go form of kvKeyTerm.
type userKey struct {
	_    sext.Record `sext:"user"`
	ID   int64
	Name string
}

// BenchmarkKVKey encodes and decodes the single key {user, 42, <<"alice">>};
// allocs/op is the allocations of one key, and cpu-ns/op the process's CPU
// time an op, which time given to other processes does not inflate.
func BenchmarkKVKey(b *testing.B) {
	enc, err := sext.Encode(kvKeyTerm)
	if err != nil {
		b.Fatal(err)
	}
	n := int64(len(enc))
	b.Run("op=encode", func(b *testing.B) {
		buf := make([]byte, 0, 64)
		kvOp(b, n, func() { buf, _ = sext.Append(buf[:0], kvKeyTerm) })
		sinkBytes = buf
	})
	for _, d := range []struct {
		name   string
		decode func([]byte) (term.Term, error)
	}{{"recursive", sext.DecodeRecursive}, {"cps", sext.DecodeCPS}, {"flat", sext.Decode}} {
		b.Run("op=decode-"+d.name, func(b *testing.B) {
			kvOp(b, n, func() { sinkTerm, _ = d.decode(enc) })
		})
	}
	b.Run("op=decode-reuse", func(b *testing.B) {
		dec := sext.NewDecoder(sext.Options{})
		kvOp(b, n, func() { sinkTerm, _ = dec.Decode(enc) })
	})
	b.Run("op=unmarshal", func(b *testing.B) {
		var k userKey
		kvOp(b, n, func() {
			if err := sext.Unmarshal(enc, &k); err != nil {
				b.Fatal(err)
			}
		})
		sinkBytes = []byte(k.Name)
	})
	b.Run("op=prefix", func(b *testing.B) {
		pat := term.Tuple(term.Atom("user"), term.Int(42), term.Atom("_"))
		buf := make([]byte, 0, 64)
		kvOp(b, n, func() { buf, _ = sext.AppendPrefix(buf[:0], pat) })
		sinkBytes = buf
	})
}

// kvOp runs op b.N times and reports cpu-ns/op beside the usual figures.
func kvOp(b *testing.B, size int64, op func()) {
	b.SetBytes(size)
	b.ReportAllocs()
	c0 := cputime.Process()
	for range b.N {
		op()
	}
	if cpu := cputime.Process() - c0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkFraming sets the binary framing of 64 KB against copy over the
// same 64 KB: SetBytes is 65536 for all four, so MB/s compares directly.
// op=decode decodes the binary term <<64 KB>>, which unframes into a new
// slice it allocates; op=copy-alloc is bytes.Clone, a copy into a new
// slice, and op=copy a copy into a reused one.
func BenchmarkFraming(b *testing.B) {
	const size = 64 << 10
	data := make([]byte, size)
	randBytes(newRand(1), data)
	t := term.Binary(data)
	enc, err := sext.Encode(t)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("size=64KB/op=copy", func(b *testing.B) {
		dst := make([]byte, size)
		b.SetBytes(size)
		b.ReportAllocs()
		for range b.N {
			copy(dst, data)
		}
		sinkBytes = dst
	})
	b.Run("size=64KB/op=copy-alloc", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for range b.N {
			sinkBytes = bytes.Clone(data)
		}
	})
	b.Run("size=64KB/op=decode", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for range b.N {
			sinkTerm, _ = sext.DecodeCPS(enc)
		}
	})
	b.Run("size=64KB/op=encode", func(b *testing.B) {
		buf := make([]byte, 0, len(enc))
		b.SetBytes(size)
		b.ReportAllocs()
		for range b.N {
			buf, _ = sext.Append(buf[:0], t)
		}
		sinkBytes = buf
	})
}
