//go:build !race

package etf_test

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/term"
)

// The doubling tests time the decoder and the encoder, which the race
// detector slows several times over and unevenly (15 s for the decoder's
// test under -race, where it takes 2 s without); the bytes are the same
// either way, and FuzzDecodeMemory, TestImproperTailChain and
// TestCompressedBomb hold the decoder's bound under -race too.

// cost runs f runs times and returns the bytes one run allocated and the
// least CPU time of a run. The process's CPU time, unlike the wall clock,
// does not count the time a loaded machine gives to others. The collector
// is off meanwhile: its cycles come when the heap crosses a threshold, a
// step in time at one size and not the next, and the bytes are counted
// apart.
func cost(f func(), runs int) (uint64, time.Duration) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var grew uint64
	took := time.Duration(1 << 62)
	for range runs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := cputime.Process()
		f()
		took = min(took, cputime.Process()-start)
		runtime.ReadMemStats(&after)
		grew = after.TotalAlloc - before.TotalAlloc
	}
	return grew, took
}

// TestDecodeCostDoubles doubles the input of each family from 16 KB to
// 1 MB, and compressed from 16 KB to 256 KB of the term inflated (in a
// quick run, testsize, to 256 KB and 128 KB), and fails
// if a doubling more than doubles what decoding allocates, by 2.2x (the
// constant parts only make the ratio smaller); a quadratic path grows it
// by 4x. Time (process CPU time, without the collector) may grow by
// 2.2x a doubling from 64 KB on, with a quarter more for the caches and a
// loaded machine; a step over that is measured again, the least of three
// runs a side, up to three times before it fails, so that a burst of load
// does not fail the test while a quadratic path, 4x every time, still
// does. An input that
// fails to decode is measured all the same: an error found late must cost
// no more.
func TestDecodeCostDoubles(t *testing.T) {
	const lo = 16 << 10
	hi := testsize.Pick(256<<10, 1<<20)
	for _, f := range families {
		for _, z := range []bool{false, true} {
			name := f.name
			top := hi
			if z {
				name = "compressed " + name
				// Inflating adds a linear pass; decoding further is the
				// plain families' own. At least one doubling is timed.
				top = max(hi/4, 8*lo)
			}
			t.Run(name, func(t *testing.T) {
				size, grew, took := doubles(t, lo, top, func(n int) (int, func(), func(uint64)) {
					b := f.make(n)
					if z {
						b = compressed(b)
					}
					bound := func(g uint64) {
						if max := memoryBound(unbounded, b); g > max {
							t.Fatalf("%d bytes allocated for %d bytes of input, over the bound of %d", g, len(b), max)
						}
					}
					return len(b), func() { unbounded.Decode(b) }, bound
				})
				t.Logf("%d bytes of input: %d bytes allocated, %.1f a byte; %v", size, grew, float64(grew)/float64(size), took)
			})
		}
	}
}

// doubles measures, for n from lo to hi doubling, the work at(n) gives
// (of size bytes, checking the bytes it allocated with bound), and fails
// if a doubling more than doubles the bytes allocated, by 2.2x, or the
// CPU time from 4·lo on by 2.2x and a quarter, measured again up to three
// times. It returns the last size's figures.
func doubles(t *testing.T, lo, hi int, at func(n int) (size int, run func(), bound func(grew uint64))) (int, uint64, time.Duration) {
	t.Helper()
	var prevSize int
	var prevRun func()
	var grew uint64
	var took time.Duration
	for n := lo; n <= hi; n *= 2 {
		size, run, bound := at(n)
		g, d := cost(run, 1)
		bound(g)
		if grew > 0 && float64(g) > 2.2*float64(grew) {
			t.Fatalf("%d bytes allocated for %d bytes, %.2fx the %d for %d bytes", g, size, float64(g)/float64(grew), grew, prevSize)
		}
		// Below 64 KB the times are all timer and caches.
		for try := 0; n > 4*lo && float64(d) > 2.2*1.25*float64(took); try++ {
			if try == 3 {
				t.Fatalf("%v for %d bytes, %.2fx the %v for %d bytes", d, size, float64(d)/float64(took), took, prevSize)
			}
			_, d = cost(run, 3)
			_, took = cost(prevRun, 3)
		}
		prevSize, prevRun, grew, took = size, run, g, d
	}
	return prevSize, grew, took
}

// TestEncodeCostDoubles doubles the size of terms whose maps of more than
// 32 keys hold such maps in their keys, from about 16 KB of encoding to
// 1 MB (256 KB quick), and holds Encode to the decoder's rule above. A
// hashmap's hash hashes its keys twice (for their order, then in it), so
// hashing keys that nest such maps without bound doubles the cost with
// every level.
func TestEncodeCostDoubles(t *testing.T) {
	const lo = 16 << 10
	hi := testsize.Pick(256<<10, 1<<20)
	for _, f := range []struct {
		name string
		make func(n int) term.Term // a term of about n bytes of encoding
	}{
		{"hashmap keys in hashmap keys", func(n int) term.Term { return nestedKeyMaps(n/256, 0) }},
		{"a hashmap of keys nesting four hashmaps", func(n int) term.Term {
			es := make([]term.MapEntry, n/1024)
			for i := range es {
				es[i] = term.MapEntry{Key: nestedKeyMaps(4, int64(i)), Value: term.Int(0)}
			}
			return term.Map(es...)
		}},
	} {
		t.Run(f.name, func(t *testing.T) {
			size, grew, took := doubles(t, lo, hi, func(n int) (int, func(), func(uint64)) {
				m := f.make(n)
				b, err := etf.Encode(m)
				if err != nil {
					t.Fatal(err)
				}
				// Into a buffer that holds it: what is counted is the
				// encoder's own memory, not the output's growth.
				return len(b), func() { etf.Append(b[:0], m) }, func(uint64) {}
			})
			t.Logf("%d bytes of encoding: %d bytes allocated; %v", size, grew, took)
		})
	}
}
