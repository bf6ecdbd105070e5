//go:build !race && unix

package term

import (
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/testsize"
)

// cpuTime is the CPU time the process has used: on a shared machine it is
// steadier than the wall clock, since time given to other processes does
// not count.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// parseAllocBound is the most Parse may allocate for text of n bytes:
// docs/SECURITY.md's largest per-byte bound (lists, tuples and maps of
// small elements, 64 a byte) and 1 MiB of scratch.
func parseAllocBound(n int) uint64 { return 64*uint64(n) + 1<<20 }

// parseCost is what one Parse of text took: bytes allocated (TotalAlloc
// after a collection) and the least CPU time of runs tries. Each timed
// run follows a counted one: a collection shrinks the goroutine stack,
// and deeply nested text's next parse would pay to grow it again, a cost
// of the runtime's that no program sees after each collection.
func parseCost(text string, runs int) (bytes uint64, least time.Duration, err error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no collection steps in the times
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	for i := range runs {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err = Parse(text)
		runtime.ReadMemStats(&after)
		bytes = after.TotalAlloc - before.TotalAlloc
		start := cpuTime()
		Parse(text)
		if d := cpuTime() - start; i == 0 || d < least {
			least = d
		}
	}
	return bytes, least, err
}

// TestParseGrowsLinearly: for shapes of text that grow with n, nested
// (lists, tuples, maps, binaries in lists, #Desc, to the default depth
// limit) and flat (long lists, improper-tail chains, maps, binaries),
// doubling the text up to 128 KiB (about a megabyte at testsize's full
// size) at most about doubles what Parse allocates and the time it takes
// (2.2 times, and 1.25 more for a buffer's doubling or a shared machine),
// and the bytes stay within parseAllocBound. A list tail that is a list,
// built level by level, grew 4 times a doubling (679 MB for 36 KB).
func TestParseGrowsLinearly(t *testing.T) {
	maxBytes := testsize.Pick(128<<10, 1<<20)
	families := []struct {
		name string
		text func(n int) string
	}{
		{"nested lists", func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }},
		{"nested tuples", func(n int) string { return strings.Repeat("{a,", n) + "b" + strings.Repeat("}", n) }},
		{"nested maps", func(n int) string { return strings.Repeat("#{a=>", n) + "1" + strings.Repeat("}", n) }},
		{"nested #Desc", func(n int) string { return strings.Repeat("#Desc<", n) + "1" + strings.Repeat(">", n) }},
		{"binaries nested in lists", func(n int) string { return strings.Repeat("[<<1,2>>,", n) + "[]" + strings.Repeat("]", n) }},
		{"improper-tail chain", func(n int) string { return strings.Repeat("[0|", n) + "x" + strings.Repeat("]", n) }},
		{"proper-tail chain", func(n int) string { return strings.Repeat("[0,1|", n) + "[]" + strings.Repeat("]", n) }},
		{"long list", func(n int) string { return "[" + strings.Repeat("1,", n) + "1]" }},
		{"long tuple", func(n int) string { return "{" + strings.Repeat("ab,", n) + "a}" }},
		{"long map", func(n int) string { return "#{" + strings.Repeat("1=>{},", n) + "1=>2}" }},
		{"long binary", func(n int) string { return "<<" + strings.Repeat("7,", n) + "7>>" }},
		{"long string", func(n int) string { return `"` + strings.Repeat("a", n) + `"` }},
		// Each character a segment of MaxSegmentBits: the most bytes of
		// binary a byte of text can ask for.
		{"string of widest segments", func(n int) string { return `<<"` + strings.Repeat("a", n) + `":256>>` }},
		{"widest negative segments", func(n int) string { return "<<" + strings.Repeat("-1:256/signed-little,", n) + "0>>" }},
	}
	const ratio, steps = 2.2, 1.25
	for _, f := range families {
		var prevBytes uint64
		var prevTime time.Duration
		prevText := ""
		for n := 256; ; n *= 2 {
			text := f.text(n)
			if len(text) > maxBytes {
				break
			}
			b, d, err := parseCost(text, 3)
			if err != nil {
				t.Logf("%s: %d bytes: %v: the family's end", f.name, len(text), err)
				break
			}
			if b > parseAllocBound(len(text)) {
				t.Errorf("%s: %d bytes of text allocated %d, over %d", f.name, len(text), b, parseAllocBound(len(text)))
			}
			if prevText != "" {
				grow := float64(len(text)) / float64(len(prevText))
				limit := ratio * grow / 2 * steps
				if b > 2<<20 && float64(b) > limit*float64(prevBytes) {
					t.Errorf("%s: %d to %d bytes of text: allocation grew %.2f times (%d to %d)", f.name, len(prevText), len(text), float64(b)/float64(prevBytes), prevBytes, b)
					break
				}
				// A time over the limit is measured again, with the size
				// before it, in turns: another process may have had the
				// machine, or the clock ran slower, for one of them.
				for retry := 0; retry < 3 && d > 5*time.Millisecond && float64(d) > limit*float64(prevTime); retry++ {
					_, prevTime, _ = parseCost(prevText, 3)
					_, d, _ = parseCost(text, 3)
				}
				if d > 5*time.Millisecond && float64(d) > limit*float64(prevTime) {
					t.Errorf("%s: %d to %d bytes of text: time grew %.2f times (%v to %v)", f.name, len(prevText), len(text), float64(d)/float64(prevTime), prevTime, d)
					break
				}
			}
			t.Logf("%s: %d bytes: %d allocated (%.1f a byte), %v", f.name, len(text), b, float64(b)/float64(len(text)), d)
			prevBytes, prevTime, prevText = b, d, text
		}
	}
}

// FuzzParseAllocation: whatever the text, Parse allocates no more than
// parseAllocBound, the per-byte bound docs/SECURITY.md states.
func FuzzParseAllocation(f *testing.F) {
	for _, s := range []string{
		"[1,2,3]", "{a,b}", "#{1=>2}", `"abc"`, "<<1,2>>", "[0|[0|[0|x]]]", "[[[[]]]]",
		"#Desc<#Desc<1>>", "16#FFFF", "'a\\x{41}'", "[a|[b,c|[d|[]]]]", "#Ref<a@b,1,2,3,4>",
		`<<"aaaaaaaaaaaaaaaa":256>>`, "<<-1:256/signed-little,1:200>>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		Parse(text)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > parseAllocBound(len(text)) {
			t.Fatalf("%d bytes of text allocated %d, over the bound %d", len(text), got, parseAllocBound(len(text)))
		}
	})
}
