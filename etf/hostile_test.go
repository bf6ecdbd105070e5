package etf_test

import (
	"bytes"
	"compress/flate"
	"errors"
	"hash/adler32"
	"testing"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// chain returns [0|[0|...[0|tail]...]] of n links, each written as a
// LIST_EXT of one element whose tail is the next LIST_EXT, the lenient
// reading of a list issue 25 found quadratic: 63 KB took 681 MB.
func chain(n int, tail []byte) []byte {
	b := append([]byte{131}, bytes.Repeat([]byte{108, 0, 0, 0, 1, 97, 0}, n)...)
	return append(b, tail...)
}

// TestImproperTailChain: a list tail that is a list continues the list, in
// time and memory linear in the input, whatever the tail at the end.
func TestImproperTailChain(t *testing.T) {
	zeros := func(n int) []term.Term { return slicesRepeat(term.Int(0), n) }
	const n = 9000 // 63 KB, within the default depth, as in the issue
	cases := []struct {
		name string
		b    []byte
		want term.Term
	}{
		{"nil", chain(n, []byte{106}), term.List(zeros(n)...)},
		{"improper", chain(n, []byte{97, 7}), term.ImproperList(zeros(n), term.Int(7))},
		{"string", chain(n, []byte{107, 0, 2, 1, 2}), term.List(append(zeros(n), term.Int(1), term.Int(2))...)},
		{"links of no elements", append([]byte{131, 108, 0, 0, 0, 1, 97, 0}, append(bytes.Repeat([]byte{108, 0, 0, 0, 0}, n), 97, 7)...),
			term.ImproperList(zeros(1), term.Int(7))},
		{"two elements a link", append(append([]byte{131}, bytes.Repeat([]byte{108, 0, 0, 0, 2, 97, 0, 97, 0}, n)...), 106), term.List(zeros(2 * n)...)},
	}
	for _, c := range cases {
		var got term.Term
		var err error
		g := allocated(func() { got, err = etf.Decode(c.b) })
		if err != nil || !term.Equal(got, c.want) {
			t.Errorf("%s: Decode = %.60v, %v; want %.60v", c.name, got, err, c.want)
		}
		if bound := memoryBound(etf.Options{}, c.b); g > bound {
			t.Errorf("%s: %d bytes allocated for %d bytes of input, over the bound of %d", c.name, g, len(c.b), bound)
		}
		t.Logf("%s: %d bytes of input, %d bytes allocated", c.name, len(c.b), g)
	}
	// A tail's claim counts with the elements still to come.
	b := chain(2, []byte{108, 0, 0, 0, 9, 106})
	var de *etf.DecodeError
	if _, err := etf.Decode(b); !errors.Is(err, etf.ErrSize) || !errors.As(err, &de) || de.Offset != 15 {
		t.Errorf("a tail claiming 9 elements in 1 byte: %v, want ErrSize at 15", err)
	}
}

// bomb returns a compressed term (tag 80) of a list of n empty lists,
// about a thousandth of its inflated size, as zlib at erts's level writes
// it. Deflating the whole run would cost the test a quarter of a second
// at 64 MiB: the stream is one mebibyte's blocks repeated instead, which
// inflate to the same bytes every time since the window behind them holds
// nothing but empty lists.
func bomb(n int) []byte {
	raw := append(u32([]byte{108}, n), bytes.Repeat([]byte{106}, 1<<15)...) // a window's worth of []
	left := n + 1 - 1<<15
	var z bytes.Buffer
	z.Write([]byte{0x78, 0x9c}) // zlib header: deflate, 32 KiB window, level 6
	w, _ := flate.NewWriter(&z, etf.DefaultCompression)
	w.Write(raw)
	w.Flush() // byte-aligned, so that blocks can be repeated
	run := bytes.Repeat([]byte{106}, 1<<20)
	sum := adler32.New()
	sum.Write(raw)
	mark := z.Len()
	w.Write(run)
	w.Flush()
	block := bytes.Clone(z.Bytes()[mark:])
	z.Truncate(mark)
	for ; left >= len(run); left -= len(run) {
		z.Write(block)
		sum.Write(run)
	}
	w.Reset(&z) // the rest in a fresh writer is valid too: it matches nothing before it
	w.Write(run[:left])
	w.Close()
	sum.Write(run[:left])
	z.Write(sum.Sum(nil))
	return append(u32([]byte{131, 80}, n+6), z.Bytes()...)
}

// TestCompressedBomb: a compressed term may claim to inflate to at most
// MaxInflateRatio times its own length (or InflateFloor), so the bomb of
// issue 25, 65 KB claiming 64 MiB of empty lists that made Decode
// allocate 8.1 GB, fails with ErrSize before anything is inflated; what
// the limits allow decodes within the memory bound.
func TestCompressedBomb(t *testing.T) {
	big := bomb(64<<20 - 6)  // 64 MiB inflated, as in the issue
	small := bomb(2<<20 - 6) // 2 MiB, over the floor
	within := bomb(1<<20 - 6)
	fit := (2<<20 + len(small) - 1) / len(small) // the least ratio that lets small through
	var de *etf.DecodeError
	cases := []struct {
		name string
		o    etf.Options
		b    []byte
		err  error // nil: decodes
	}{
		{"the issue's bomb", etf.Options{}, big, etf.ErrSize},
		{"2 MiB from 2 KB", etf.Options{}, small, etf.ErrSize},
		{"the floor", etf.Options{}, within, nil},
		{"ratio lifted", etf.Options{MaxInflateRatio: -1}, small, nil},
		{"ratio raised to fit", etf.Options{MaxInflateRatio: fit}, small, nil},
		{"ratio one short", etf.Options{MaxInflateRatio: fit - 1}, small, etf.ErrSize},
		{"MaxInflate one short", etf.Options{MaxInflateRatio: -1, MaxInflate: 2<<20 - 1}, small, etf.ErrSize},
		{"MaxInflate under the floor", etf.Options{MaxInflate: 1 << 19}, within, etf.ErrSize},
	}
	for _, c := range cases {
		var err error
		g := allocated(func() { _, err = c.o.Decode(c.b) })
		switch {
		case c.err == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != nil && (!errors.Is(err, c.err) || !errors.As(err, &de) || de.Offset != 2):
			t.Errorf("%s: %v, want %v at byte 2", c.name, err, c.err)
		case c.err != nil && g > 1<<10:
			t.Errorf("%s: refused after allocating %d bytes", c.name, g)
		}
		if bound := memoryBound(c.o, c.b); g > bound {
			t.Errorf("%s: %d bytes allocated, over the bound of %d", c.name, g, bound)
		}
		t.Logf("%s: %d bytes claiming %d: %d bytes allocated; %v", c.name, len(c.b), int(c.b[2])<<24|int(c.b[3])<<16|int(c.b[4])<<8|int(c.b[5]), g, err)
	}
	// The claim is held to the term's own bytes, not to what follows it.
	next := append(bytes.Clone(small), make([]byte, 1<<20)...)
	if _, _, err := etf.DecodeNext(next); !errors.Is(err, etf.ErrSize) {
		t.Errorf("DecodeNext of a 2 MiB claim followed by 1 MB: %v, want ErrSize", err)
	}
}
