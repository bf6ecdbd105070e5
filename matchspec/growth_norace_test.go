//go:build !race

// Allocation figures are kept out of race builds: the race detector
// instruments allocation, so the counts there say nothing about the
// package.

package matchspec_test

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/term"
)

// cost is what one Parse and Plan of a spec took: bytes allocated
// (TotalAlloc after a collection) and the least time of a few runs.
type cost struct {
	bytes uint64
	time  time.Duration
}

// measure counts the bytes of a run that starts from a collected heap,
// and times the run after it: a collection shrinks the goroutine stack,
// and a deeply nested spec's next run would pay to grow it again, a cost
// of the runtime's that no program sees after each collection.
func measure(text string, runs int) (cost, error) {
	var c cost
	var err error
	// No collection while timing unless the heap nears 256 MiB: when one
	// runs depends on the heap earlier cases left, and would put a step
	// of its own into the times.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	run := func() {
		var s *matchspec.Spec
		if s, err = matchspec.Parse(text); err == nil {
			s.Plan()
		}
	}
	for i := range runs {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		c.bytes = after.TotalAlloc - before.TotalAlloc
		start, cpu := time.Now(), cputime.Process()
		run()
		// CPU time where it can be read: time the scheduler gives other
		// processes on a shared machine does not count.
		d := cputime.Process() - cpu
		if cpu == 0 {
			d = time.Since(start)
		}
		if i == 0 || d < c.time {
			c.time = d
		}
	}
	return c, err
}

// planAllocBound is the most Parse and Plan together may allocate for a
// spec of n bytes of text, the bound docs/SECURITY.md states: planning
// works within an allowance of 16 units a subterm, and the worst shape
// measured (a wide head substituted with each of 4 constants, 4 walks of
// the head each) allocates 206 bytes a byte; the constant is the
// allowance every spec has, whatever its size.
func planAllocBound(n int) uint64 { return 512*uint64(n) + 16<<20 }

// FuzzPlanAllocation: whatever the text, Parse and Plan allocate no more
// than planAllocBound.
func FuzzPlanAllocation(f *testing.F) {
	for _, fam := range specFamilies {
		f.Add(fam.spec(8))
	}
	f.Add(`[{{order,'$1','_','_'},[{'>=','$1',500},{'<','$1',1000}],['$_']}]`)
	f.Add(`[{{order,#Desc<'$1'>,[a|'$2']},[{'==','$1',0}],[{hd,'$2'}]}]`)
	f.Fuzz(func(t *testing.T, text string) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if s, err := matchspec.Parse(text); err == nil {
			s.Plan()
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > planAllocBound(len(text)) {
			t.Fatalf("%d bytes of spec allocated %d, over the bound %d", len(text), got, planAllocBound(len(text)))
		}
	})
}

// TestPlanGrowsLinearly: for each family, doubling the spec's size (up to
// 128 KiB, or about a megabyte at testsize's full size) at most about
// doubles what Parse and Plan allocate and the time they take (2.2 times:
// sorting's log n is allowed). Quadratic planning, as orelse chains had
// (5,000 alternatives: 5.3 s, 7.7 GB), quadruples and fails at once, at
// small sizes.
func TestPlanGrowsLinearly(t *testing.T) {
	checkGrowth(t, specFamilies, testsize.Pick(128<<10, 1<<20))
}

func checkGrowth(t *testing.T, families []struct {
	name string
	spec func(n int) string
	ok   bool
}, maxBytes int) {
	for _, f := range families {
		var prev, prev2 cost // the last two sizes' costs
		prevLen, prevLen2, prevText := 0, 0, ""
		for n := 64; ; n *= 2 {
			text := f.spec(n)
			if len(text) < prevLen*3/2 || len(text) > maxBytes { // at a limit, or done
				break
			}
			c, err := measure(text, 3)
			if f.ok && prevLen > 0 && (errors.Is(err, term.ErrDepth) || errors.Is(err, matchspec.ErrLimit)) {
				t.Logf("%s: %d bytes: refused, the family's end: %v", f.name, len(text), err)
				break
			}
			if (err == nil) != f.ok {
				t.Errorf("%s, %d bytes: error %v", f.name, len(text), err)
				break
			}
			if c.bytes > planAllocBound(len(text)) {
				t.Errorf("%s: %d bytes of spec allocated %d, over %d", f.name, len(text), c.bytes, planAllocBound(len(text)))
			}
			if prevLen > 0 {
				step, step2 := float64(len(text))/float64(prevLen), float64(len(text))/float64(prevLen2)
				msg := grewTooMuch(prev, prev2, c, step, step2)
				// A time over the limit is measured again, with the size
				// before it, in turns: another process may have had the
				// machine, or the clock ran slower, for one of them.
				for retry := 0; retry < 3 && strings.HasPrefix(msg, "time"); retry++ {
					p, _ := measure(prevText, 3)
					n, _ := measure(text, 3)
					prev.time, c.time = p.time, n.time
					msg = grewTooMuch(prev, prev2, c, step, step2)
				}
				if msg != "" {
					t.Errorf("%s: %d to %d bytes of spec: %s", f.name, prevLen, len(text), msg)
					break
				}
			}
			t.Logf("%s: %d bytes: %d allocated (%.1f a byte), %v", f.name, len(text), c.bytes, float64(c.bytes)/float64(len(text)), c.time)
			prev2, prevLen2, prev, prevLen, prevText = prev, prevLen, c, len(text), text
		}
	}
}

// grewTooMuch says how a cost grew too much from the last size (prev, the
// input grown by step) and the one before it (prev2, grown by step2), or
// "". A doubling may grow bytes and time 2.2 times (n log n passes);
// bytes across two doublings 2.2² times, and across one 2.2 × 1.25, since
// the buffers that append and the growth helpers double or grow by a
// quarter put a step into any one doubling; time 2.2 × 1.25 a doubling, the
// quarter for a shared machine's noise. Quadratic growth is 4 times a
// doubling. Allocations below 2 MiB and times below 5 ms are what the
// fixed allowances cost, and not compared.
func grewTooMuch(prev, prev2, c cost, step, step2 float64) string {
	const ratio, steps = 2.2, 1.25
	over := func(a, b float64, grow float64, far bool) bool {
		limit := ratio * grow / 2 * steps
		if far {
			limit = ratio * ratio * grow / 4
		}
		return b > limit*a
	}
	if c.bytes > 2<<20 {
		if over(float64(prev.bytes), float64(c.bytes), step, false) {
			return fmt.Sprintf("bytes allocated grew %.2f times (%d to %d)", float64(c.bytes)/float64(prev.bytes), prev.bytes, c.bytes)
		}
		if prev2.bytes > 0 && over(float64(prev2.bytes), float64(c.bytes), step2, true) {
			return fmt.Sprintf("bytes allocated grew %.2f times over two doublings (%d to %d)", float64(c.bytes)/float64(prev2.bytes), prev2.bytes, c.bytes)
		}
	}
	if c.time > 5*time.Millisecond {
		if over(float64(prev.time), float64(c.time), step, false) {
			return fmt.Sprintf("time grew %.2f times (%v to %v)", float64(c.time)/float64(prev.time), prev.time, c.time)
		}
	}
	return ""
}
