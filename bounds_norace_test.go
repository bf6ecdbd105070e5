//go:build !race

// Allocation bounds are kept out of race builds, whose detector allocates
// on its own account, as the allocation tests are.

package sext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/term"
)

// The memory and time harness over every entry point of the package that
// reads untrusted bytes or text. Each carries the bound docs/SECURITY.md
// states for it; FuzzMemoryBound holds every input to it, and
// TestCostIsLinear feeds each entry point families of growing inputs
// (chains, nestings, wide and long terms) and fails on any whose time or
// memory more than doubles when the input doubles.

// boundOpts lifts the depth limit as far as each entry point allows, so
// that deep inputs are read, not refused at the first levels.
var boundOpts = Options{MaxDepth: 1 << 30}

// boundPatterns are the patterns the Matcher entry point matches each
// input against: literal parts, wildcards and repeated variables.
var boundPatterns = func() []*Matcher {
	var ms []*Matcher
	for _, s := range []string{"'_'", "{'$1','$1'}", "['$1'|'_']", "{a,'_',[1|'_']}", "#{a => '$1'}", "#Desc<'$1'>"} {
		p, err := term.Parse(s)
		if err != nil {
			panic(err)
		}
		m, err := boundOpts.CompileMatch(p)
		if err != nil {
			panic(err)
		}
		ms = append(ms, m)
	}
	return ms
}()

var boundDecoder = NewDecoder(boundOpts)

type boundStruct struct {
	A int64
	B string
	C []any
}

// untrusted lists the entry points, each with its read of an input (the
// result dropped, errors expected) and its bound in bytes allocated for
// an input of n bytes: the rows of SECURITY.md's table.
var untrusted = []struct {
	name  string
	read  func(b []byte)
	bound func(n int) uint64
}{
	{"Decode", func(b []byte) { boundOpts.Decode(b) }, decodeBound},
	{"DecodeCPS", func(b []byte) { boundOpts.DecodeCPS(b) }, decodeBound},
	{"DecodeRecursive", func(b []byte) { boundOpts.DecodeRecursive(b) }, decodeBound},
	{"DecodeNext", func(b []byte) { boundOpts.DecodeNext(b) }, decodeBound},
	{"Decoder", func(b []byte) { boundDecoder.Decode(b) }, decodeBound},
	{"PartialDecode", func(b []byte) { boundOpts.PartialDecode(b) }, func(n int) uint64 {
		return 100*uint64(n) + 16*maxPartialArity + 256<<10
	}},
	{"View", func(b []byte) { walkView(boundOpts.View(b), 1, call) }, viewWalkBound},
	{"Matcher", func(b []byte) {
		for _, m := range boundPatterns {
			m.Match(b)
		}
	}, decodeBound}, // a key that may match is decoded
	{"Unmarshal any", func(b []byte) { var x any; boundOpts.Unmarshal(b, &x) }, decodeBound},
	{"Unmarshal map", func(b []byte) { var x map[any][]any; boundOpts.Unmarshal(b, &x) }, unmarshalBound},
	{"Unmarshal struct", func(b []byte) { var x boundStruct; boundOpts.Unmarshal(b, &x) }, unmarshalBound},
	{"Hex", func(b []byte) { Hex.AppendDecode(nil, b) }, textBound},
	{"SB32", func(b []byte) { SB32.AppendDecode(nil, b) }, textBound},
	{"OrderedSB32", func(b []byte) { OrderedSB32.AppendDecode(nil, b) }, textBound},
}

// The bounds, as SECURITY.md states them; each constant covers fixed
// scratch space (pooled buffers, intern tables, reflection caches).
func decodeBound(n int) uint64    { return 128*uint64(n) + 1<<20 }
func unmarshalBound(n int) uint64 { return 256*uint64(n) + 1<<20 }
func viewBound(n int) uint64      { return 8*uint64(n) + 256<<10 } // each accessor call
func viewWalkBound(n int) uint64  { return 40 * viewBound(n) }     // walkView's calls at depth 1
func textBound(n int) uint64      { return uint64(n)*5/4 + 64<<10 }

// walkView reads v as a filter reads a key: every accessor, and the same
// of the first elements, entries and tail, down to depth levels, each call
// made through do.
func walkView(v View, depth int, do func(func())) {
	do(func() { v.Kind() })
	do(func() { v.Len() })
	do(func() { v.End() })
	do(func() { v.Int64() })
	do(func() { v.Float() })
	do(func() { v.AppendBytes(nil) })
	do(func() { v.AppendAtom(nil) })
	do(func() { v.AppendInner(nil) })
	if depth == 0 {
		return
	}
	for i := range 2 {
		if e, err := v.Elem(i); err == nil {
			walkView(e, depth-1, do)
		}
		if k, x, err := v.Entry(i); err == nil {
			walkView(k, depth-1, do)
			walkView(x, depth-1, do)
		}
	}
	if tail, ok, err := v.Tail(); err == nil && ok {
		walkView(tail, depth-1, do)
	}
}

func call(f func()) { f() }

// allocated returns the bytes read allocates on b.
func allocated(read func([]byte), b []byte) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read(b)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FuzzMemoryBound holds every entry point to its stated memory bound on
// every input. Each check reads the memory statistics, which stops the
// world, about a hundred times an input: the quick pass takes every
// fourth vector as a seed (3.5 s, not 14), the full pass all of them.
func FuzzMemoryBound(f *testing.F) {
	seedEncodingsEvery(f, testsize.Pick(4, 1))
	for _, fam := range costFamilies {
		f.Add(fam.gen(64))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range untrusted {
			if got := allocated(e.read, b); got > e.bound(len(b)) {
				t.Fatalf("%s allocated %d bytes on %d bytes of input %x, past its bound %d", e.name, got, len(b), b, e.bound(len(b)))
			}
		}
		// The View's bound is each accessor's.
		walkView(boundOpts.View(b), 2, func(f func()) {
			if got := allocated(func([]byte) { f() }, b); got > viewBound(len(b)) {
				t.Fatalf("a View accessor allocated %d bytes on %d bytes of input %x, past its bound %d", got, len(b), b, viewBound(len(b)))
			}
		})
	})
}

// costFamilies are inputs that grow: gen(n) makes one of about n bytes.
var costFamilies = []struct {
	name string
	gen  func(n int) []byte
}{
	{"nested lists", func(n int) []byte {
		return append(bytes.Repeat([]byte{tagList}, n/2), bytes.Repeat([]byte{markEnd}, n/2)...)
	}},
	{"nested tuples", func(n int) []byte {
		return append(bytes.Repeat([]byte{tagTuple, 0, 0, 0, 1}, n/5), tagAtom, emptyFrame)
	}},
	{"nested maps", func(n int) []byte {
		one := []byte{tagList, markMap, 0, 0, 0, 1, tagAtom, emptyFrame}
		return append(bytes.Repeat(one, n/len(one)), tagAtom, emptyFrame)
	}},
	{"list tails that are lists", func(n int) []byte {
		b := append([]byte{tagList}, bytes.Repeat([]byte{tagPos4, 0, 0, 0, 0, markImproper, tagList}, n/7)...)
		return append(b, tagPos4, 0, 0, 0, 0, markEnd)
	}},
	{"list tails that are not lists", func(n int) []byte {
		// [[[a|a]|a]|a]: each tail an atom, each head the list before.
		b := bytes.Repeat([]byte{tagList}, n/4)
		b = append(b, tagAtom, emptyFrame)
		return append(b, bytes.Repeat([]byte{markImproper, tagAtom, emptyFrame}, n/4)...)
	}},
	{"descending terms nested in one another", func(n int) []byte {
		x := term.Binary(make([]byte, n/16))
		for range 20 {
			x = term.Desc(x)
		}
		return encodeOrPanic(x)
	}},
	{"descending terms in a list", func(n int) []byte {
		elems := make([]term.Term, n/9)
		for i := range elems {
			elems[i] = term.Desc(term.Int(int64(i)))
		}
		return encodeOrPanic(term.List(elems...))
	}},
	{"wide tuple of empty lists", func(n int) []byte {
		b := binary.BigEndian.AppendUint32([]byte{tagTuple}, uint32(n/2))
		return append(b, bytes.Repeat([]byte{tagList, markEnd}, n/2)...)
	}},
	{"list of empty binaries", func(n int) []byte {
		b := append([]byte{tagList}, bytes.Repeat([]byte{tagBinary, emptyFrame}, n/2)...)
		return append(b, markEnd)
	}},
	{"long binary", func(n int) []byte { return encodeOrPanic(term.Binary(make([]byte, n*8/9))) }},
	{"bignum", func(n int) []byte {
		x := new(big.Int).Lsh(big.NewInt(3), uint(n*7))
		return encodeOrPanic(term.BigInt(x))
	}},
	{"negative bignum", func(n int) []byte {
		x := new(big.Int).Lsh(big.NewInt(-3), uint(n*7))
		return encodeOrPanic(term.BigInt(x))
	}},
	{"map, keys in order", func(n int) []byte { return costMap(n/10, false) }},
	{"map, keys reversed", func(n int) []byte { return costMap(n/10, true) }},
	{"distinct atoms", func(n int) []byte {
		elems := make([]term.Term, n/8)
		for i := range elems {
			elems[i] = term.Atom(fmt.Sprintf("a%05x", i))
		}
		return encodeOrPanic(term.List(elems...))
	}},
	{"hex text", func(n int) []byte { return Hex.AppendEncode(nil, make([]byte, n/2)) }},
}

// costMap is a map of n integer keys, its entries written in order or
// reversed (which the decoders accept and sort).
func costMap(n int, reversed bool) []byte {
	b := binary.BigEndian.AppendUint32([]byte{tagList, markMap}, uint32(n))
	for i := range n {
		k := i
		if reversed {
			k = n - 1 - i
		}
		b = binary.BigEndian.AppendUint32(append(b, tagPos4), uint32(k)<<1)
		b = append(b, tagAtom, emptyFrame)
	}
	return b
}

func encodeOrPanic(x term.Term) []byte {
	b, err := Encode(x)
	if err != nil {
		panic(err)
	}
	return b
}

// costSize is the larger input of each doubling: COST_SIZE if set, else
// 128 KiB quick and 1 MiB at testsize's full size (CI).
func costSize(t *testing.T) int {
	if s := os.Getenv("COST_SIZE"); s != "" {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || n < 1024 {
			t.Fatalf("COST_SIZE=%q: want a size of at least 1024", s)
		}
		return n
	}
	return testsize.Pick(128<<10, 1<<20)
}

// TestCostIsLinear reads each family at an eighth of the size and at the
// full size through every entry point.
//
// Memory: eight times the input may take at most 8.8 times the bytes (2.06
// a doubling), beyond a slack of the entry point's bound for buffers that
// pools keep or drop by size, and never more than the bound.
//
// Time: CPU time falls off the caches as a walk's working set grows (the
// continuation decoder, linear by construction, takes 15 ns a level of
// nested lists at 16,000 levels and 90 ns at 128,000, measured), so each
// entry point's time is measured against the decoders' on the same input
// in the same run: its growth from the small input to the large one may
// be at most 4 times the greater growth of DecodeCPS's (its frames on the
// heap) and DecodeRecursive's (on the goroutine stack, as the View's and
// the Matcher's deep walks are), where a quadratic path's is 8 times. (At
// 3, deep walks on a loaded 2-core machine missed one run in six: their
// working set leaves the caches between the two sizes.)
// Times are CPU times with the collector off, the least of two runs; a
// pair that misses is measured once more.
func TestCostIsLinear(t *testing.T) {
	size := costSize(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	yardsticks := []func(b []byte){
		func(b []byte) { boundOpts.DecodeCPS(b) },
		func(b []byte) { boundOpts.DecodeRecursive(b) },
	}
	for _, fam := range costFamilies {
		small, large := fam.gen(size/8), fam.gen(size)
		for _, e := range untrusted {
			if fam.name != "hex text" && (e.name == "Hex" || e.name == "SB32" || e.name == "OrderedSB32") {
				continue // the text readers refuse binary input at its first byte
			}
			var ok bool
			var msg string
			for try := 0; try < 2 && !ok; try++ {
				ms, ts := costOf(e.read, small)
				ml, tl := costOf(e.read, large)
				// The yardstick that grew most: the walk style most like
				// this entry point's.
				var ys, yl time.Duration
				yardGrew := 0.0
				for _, y := range yardsticks {
					_, s := costOf(y, small)
					_, l := costOf(y, large)
					if g := float64(max(l, time.Millisecond)) / float64(max(s, time.Millisecond/8)); g > yardGrew {
						ys, yl, yardGrew = s, l, g
					}
				}
				grew := (float64(tl) / float64(max(yl, time.Millisecond))) / (float64(ts) / float64(max(ys, time.Millisecond/8)))
				ok = float64(ml) <= 8.8*float64(ms)+float64(e.bound(len(large))) && ml <= e.bound(len(large)) &&
					(tl <= 2*time.Millisecond || grew <= 4)
				msg = fmt.Sprintf("%s, %s: %d → %d bytes of input: %d → %d bytes allocated (×%.2f), %v → %v CPU (×%.2f; yardstick %v → %v; against it ×%.2f)",
					fam.name, e.name, len(small), len(large), ms, ml, float64(ml)/float64(max(ms, 1)),
					ts, tl, float64(tl)/float64(max(ts, time.Microsecond)), ys, yl, grew)
			}
			if !ok {
				t.Error(msg)
			} else if testing.Verbose() {
				t.Log(msg)
			}
		}
	}
}

// costOf returns the bytes read allocates on b and the CPU time it takes,
// the least of two runs. The caller has turned the collector off, so that
// neither figure depends on when it runs. Each memory run starts from a
// collected heap; each timed run follows it, so that it does not pay for
// growing the goroutine stack again, which a collection shrinks: that
// cost is the runtime's, and on deep inputs it falls on the first run
// after a collection in proportions no program sees.
func costOf(read func([]byte), b []byte) (uint64, time.Duration) {
	read(b)
	best := time.Duration(1 << 62)
	var m uint64
	for range 2 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		read(b)
		runtime.ReadMemStats(&after)
		m = after.TotalAlloc - before.TotalAlloc
		c0 := cputime.Process()
		read(b)
		best = min(best, cputime.Process()-c0)
	}
	return m, best
}
