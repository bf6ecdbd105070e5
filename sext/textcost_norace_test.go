//go:build !race

// Allocation budgets are kept out of race builds: the race detector
// instruments allocation (slices.Grow allocates twice there), so the
// figures there say nothing about the library.

package main

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// A long line of hex decodes and prints within a fixed multiple of its
// size: the line read (twice its bytes: bufio's pieces and the string),
// its bytes, the term, and the text, reserved at once.
func TestDecodeLongHexLineAllocation(t *testing.T) {
	bin := make([]byte, 4<<20)
	for i := range bin {
		bin[i] = byte(i*7 + i>>8)
	}
	b, err := sext.Encode(term.Binary(bin))
	if err != nil {
		t.Fatal(err)
	}
	in := append(sext.Hex.AppendEncode(nil, b), '\n')
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := run([]string{"decode"}, bytes.NewReader(in), io.Discard, io.Discard)
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	grew := after.TotalAlloc - before.TotalAlloc
	// 2 for the line, 0.5 its bytes, 0.5 the binary, 2 the text (4 bytes
	// a byte of binary, half a byte of binary a hex digit) and slack.
	const perByte = 6
	if per := float64(grew) / float64(len(in)); per > perByte {
		t.Errorf("sext decode of a %d-byte hex line allocated %d bytes (%.2f a byte), bound %d", len(in), grew, per, perByte)
	} else {
		t.Logf("sext decode of a %d-byte hex line: %.2f bytes allocated a byte", len(in), per)
	}
}
