package etf_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/erlsext/sext/etf"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc).
// TotalAlloc counts every allocation whether or not the collector runs
// meanwhile, so no collection is forced first (it would cost the tests
// more than the decoding: the same 256 KB input measures the same bytes to
// 0.1% six times in a row without one). The test binary runs one test at a
// time; what the runtime's own goroutines allocate meanwhile is noise that
// the bounds' constants cover.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// u32 appends n as four big-endian bytes.
func u32(b []byte, n int) []byte { return binary.BigEndian.AppendUint32(b, uint32(n)) }

// A family builds inputs of about n bytes of one shape, for the tests
// that double n.
type family struct {
	name string
	make func(n int) []byte
}

// nested repeats head until the input holds about n bytes, then writes
// the innermost term and closes each level with tail.
func nested(head, inner, tail []byte) func(int) []byte {
	return func(n int) []byte {
		k := max(1, (n-1-len(inner))/(len(head)+len(tail)))
		b := append(append([]byte{131}, bytes.Repeat(head, k)...), inner...)
		return append(b, bytes.Repeat(tail, k)...)
	}
}

// wide writes a compound header claiming as many items as fit in n bytes,
// then the items and end.
func wide(header []byte, item []byte, perEntry int, end []byte) func(int) []byte {
	return func(n int) []byte {
		k := max(1, (n-1-len(header)-4-len(end))/(len(item)*perEntry))
		b := u32(append([]byte{131}, header...), k)
		return append(append(b, bytes.Repeat(item, k*perEntry)...), end...)
	}
}

// families are the shapes that cost a decoder the most for their size:
// the ones the faults of issue 25 found and one for each tag that
// allocates.
var families = []family{
	{"nested lists", nested([]byte{108, 0, 0, 0, 1}, []byte{106}, []byte{106})}, // [[[...]]]
	{"nested tuples", nested([]byte{104, 1}, []byte{106}, nil)},
	{"nested maps", nested([]byte{116, 0, 0, 0, 1, 106}, []byte{106}, nil)},           // #{[] => #{[] => ...}}
	{"improper-tail chain", nested([]byte{108, 0, 0, 0, 1, 97, 0}, []byte{106}, nil)}, // [0|[0|[0|...]]] as nested LIST_EXT tails
	{"list of empty lists", wide([]byte{108}, []byte{106}, 1, []byte{106})},
	{"tuple of empty tuples", wide([]byte{105}, []byte{104, 0}, 1, nil)},
	{"map of repeated keys", func(n int) []byte { // read in full, then refused
		k := max(1, (n-10)/2)
		return append(append(u32([]byte{131, 116}, k), bytes.Repeat([]byte{106, 106}, k)...), 106)
	}},
	{"map of integer keys", func(n int) []byte { // in key order, as erts writes up to 32 keys
		k := max(1, (n-10)/6)
		b := u32([]byte{131, 116}, k)
		for i := range k {
			b = append(u32(append(b, 98), i), 106)
		}
		return b
	}},
	{"list of strings", wide([]byte{108}, append([]byte{107, 0, 255}, make([]byte, 255)...), 1, []byte{106})},
	{"list of binaries", wide([]byte{108}, []byte{109, 0, 0, 0, 1, 7}, 1, []byte{106})},
	{"bignum", func(n int) []byte {
		return append(u32([]byte{131, 111}, n-7), append([]byte{1}, bytes.Repeat([]byte{0xa5}, n-7)...)...)
	}},
	{"list of small bignums", wide([]byte{108}, []byte{110, 9, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, []byte{106})},
	{"list of atoms", wide([]byte{108}, []byte{119, 2, 'a', 'b'}, 1, []byte{106})},
	{"list of Latin-1 atoms", wide([]byte{108}, append([]byte{100, 0, 255}, bytes.Repeat([]byte{0xe9}, 255)...), 1, []byte{106})},
	{"list of references", wide([]byte{108}, []byte{101, 115, 0, 0, 0, 0, 1, 0}, 1, []byte{106})},
	{"list of pids", wide([]byte{108}, []byte{103, 115, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0}, 1, []byte{106})},
}

// The bound this file holds decoding to: bytesPerByte for each byte of
// input, or for a compressed term bytesPerByte for each byte it inflates
// to and two more (the inflated bytes, and what a stream that lies about
// its size makes the buffer grow to), and fixedBytes (the zlib reader's
// 41 KB, the stack's last chunk of 48 KB). Each value a compound holds
// takes a 16-byte slot; a map's entries take 32 bytes more, and a map of
// [] => [] spends only two bytes on each: 32 bytes a byte, the worst case,
// which allocation size classes round up by at most an eighth. A level of
// nesting takes a 48-byte frame and at least two bytes (a tuple of one
// element: 32 bytes a byte with its slot).
const (
	bytesPerByte = 40
	fixedBytes   = 128 << 10
)

// memoryBound is what decoding b may allocate under o.
func memoryBound(o etf.Options, b []byte) uint64 {
	n := uint64(len(b))
	if len(b) >= 6 && b[0] == 131 && b[1] == 80 {
		limit := uint64(etf.DefaultMaxInflate)
		if o.MaxInflate > 0 {
			limit = uint64(o.MaxInflate)
		}
		n += min(uint64(binary.BigEndian.Uint32(b[2:])), limit) * (bytesPerByte + 2) / bytesPerByte
	}
	return bytesPerByte*n + fixedBytes
}

// compressed returns b's term as a compressed term (tag 80), as
// term_to_binary(T, [compressed]) writes it.
func compressed(b []byte) []byte {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed) // fast, and at 1 MB the test's cost
	w.Write(b[1:])
	w.Close()
	return append(u32([]byte{131, 80}, len(b)-1), z.Bytes()...)
}

// FuzzDecodeMemory holds Decode under the default options to the bound
// above for every input: what it allocates, runtime.MemStats.TotalAlloc
// before and after, is at most memoryBound. Seeded with every family at
// 4 KB, plain and compressed, the improper-tail chain, and a
// compressed term at the inflate limit.
func FuzzDecodeMemory(f *testing.F) {
	for _, fam := range families {
		b := fam.make(4 << 10)
		f.Add(b)
		f.Add(compressed(b))
	}
	for _, v := range otp25Vectors {
		f.Add(v.bytes)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var o etf.Options
		g := allocated(func() { o.Decode(b) })
		if bound := memoryBound(o, b); g > bound {
			t.Fatalf("Decode of %d bytes allocated %d bytes, over the bound of %d", len(b), g, bound)
		}
	})
}

// unbounded lifts every limit, so that the doubling tests reach a
// megabyte of nesting and of compressed input.
var unbounded = etf.Options{MaxDepth: 1 << 30, MaxInflate: 1 << 30, MaxInflateRatio: -1}
