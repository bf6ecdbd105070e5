//go:build !race

// Allocation budgets are kept out of race builds: the race detector
// instruments allocation (slices.Grow allocates twice there), so the
// figures there say nothing about the library.

package term

import (
	"runtime"
	"strings"
	"testing"
)

// Parsing allocates in proportion to the text: the result (a string is a
// list, 16 bytes a character), plus scratch space that grows by doubling.
// Each case states its bound in bytes allocated per byte of text.

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestParseAllocationPerByte(t *testing.T) {
	const n = 4 << 20
	for _, c := range []struct {
		name    string
		text    string
		perByte uint64
	}{
		// 16 bytes a character for the list, and at most 8 for the
		// code points gathered on the way.
		{"string literal", `"` + strings.Repeat("a", n) + `"`, 34},
		{"adjacent string literals", strings.Repeat(`"ab"`, n/4), 34},
		{"string of escapes", `"` + strings.Repeat(`\n`, n/2) + `"`, 34},
		// A list of one-digit integers is 8 bytes of list a byte of
		// text, gathered on a stack that doubles (at most four times
		// that in all), then copied out.
		{"list of integers", "[" + strings.Repeat("1,", n/2) + "1]", 64},
		{"tuple of atoms", "{" + strings.Repeat("a,", n/2) + "a}", 64},
		// 4 bytes a character gathered, 1 for the bytes, 1 the binary.
		{"binary string", `<<"` + strings.Repeat("a", n) + `">>`, 8},
		{"binary of integers", "<<" + strings.Repeat("7,", n/2) + "7>>", 4},
		{"map", "#{" + strings.Repeat("1=>2,", n/5) + "1=>2}", 64},
		{"quoted atom with escapes", `'` + strings.Repeat(`\t`, n/2) + `'`, 4},
		{"bare atom", "a" + strings.Repeat("b", n), 2},
		{"long integer, refused", strings.Repeat("7", n), 2},
	} {
		var err error
		grew := allocated(func() { _, err = Parse(c.text) })
		if c.name != "long integer, refused" && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if bound := c.perByte*uint64(len(c.text)) + 1<<20; grew > bound {
			t.Errorf("%s: %d bytes of text allocated %d (%.1f a byte), bound %d a byte",
				c.name, len(c.text), grew, float64(grew)/float64(len(c.text)), c.perByte)
		} else {
			t.Logf("%s: %.1f bytes allocated a byte of text", c.name, float64(grew)/float64(len(c.text)))
		}
	}
}

// Printing allocates the text once, or by doubling: never append's
// quarter steps, which cost five times the text.
func TestPrintAllocationPerByte(t *testing.T) {
	bin := make([]byte, 4<<20)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	ints := make([]Term, 1<<20)
	for i := range ints {
		ints[i] = Int(int64(i))
	}
	text1 := make([]byte, 4<<20)
	chars := make([]Term, 1<<20)
	for i := range text1 {
		text1[i] = "ab\"\n\xE9"[i%5]
	}
	for i := range chars {
		chars[i] = Int(int64([]rune("ab\"é😀")[i%5]))
	}
	utf := []byte(strings.Repeat("aé\"", 1<<20))
	for _, c := range []struct {
		name    string
		f       *Format
		t       Term
		size    int     // bytes the bound counts: the binary's, or the text's
		perByte float64 // allocated bytes a byte of size
	}{
		// At most "255," a byte, reserved at once.
		{"binary", W, Binary(bin), len(bin), 4.01},
		{"binary, P", P, Binary(bin), len(bin), 4.01},
		// Doubling: at most twice the final buffer, itself at most twice
		// the text.
		{"list of integers", W, List(ints...), 0, 4},
		// Strings: room for their text at once.
		{"binary string of Latin-1 bytes, P", P, Binary(text1), 0, 1.01},
		{"binary string of UTF-8, P", P, Binary(utf), 0, 1.01},
		{"string, P with the Unicode range", P.WithPrintableRange(Unicode), List(chars...), 0, 1.01},
	} {
		var text []byte
		grew := allocated(func() { text, _ = c.f.AppendText(nil, c.t) })
		size := c.size
		if size == 0 {
			size = len(text)
		}
		if per := float64(grew) / float64(size); per > c.perByte {
			t.Errorf("%s: %d bytes allocated for %d bytes (%.2f a byte), bound %.2f", c.name, grew, size, per, c.perByte)
		} else {
			t.Logf("%s: %.2f bytes allocated a byte", c.name, per)
		}
	}
}

// TestParseTailChainAllocation: a list whose tail is a list literal,
// [0|[0|[0|...]]], is one flat list, built once. Built level by level it
// cost 679 MB for 36 KB of text (each level copied all the elements below
// it); now it costs what a list of the same elements does.
func TestParseTailChainAllocation(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
	}{
		{"improper tail", strings.Repeat("[0|", 9000) + "x" + strings.Repeat("]", 9000)},
		{"proper tail", strings.Repeat("[0|", 9000) + "[]" + strings.Repeat("]", 9000)},
		{"tails of two elements", strings.Repeat("[0,1|", 9000) + "[2]" + strings.Repeat("]", 9000)},
	} {
		var got Term
		var err error
		grew := allocated(func() { got, err = Parse(c.text) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := got.Len(); n < 9000 {
			t.Errorf("%s: %d elements, want the chain flattened", c.name, n)
		}
		if bound := 64*uint64(len(c.text)) + 1<<20; grew > bound {
			t.Errorf("%s: %d bytes of text allocated %d (%.1f a byte), bound 64 a byte", c.name, len(c.text), grew, float64(grew)/float64(len(c.text)))
		} else {
			t.Logf("%s: %.1f bytes allocated a byte of text", c.name, float64(grew)/float64(len(c.text)))
		}
	}
}
