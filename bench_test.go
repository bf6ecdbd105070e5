package sext

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/term"
)

// BenchmarkArenaShapes sets the recursive decoder against the
// continuation-stack one with allocation taken out: both decode into one
// warm, reused arena (a Decoder's, mode=reuse), or decode plainly
// (mode=plain, two allocations a term). The corpus is the study's
// workload (the bench command's, ported here in short: depth 1..5, a list,
// tuple, binary or integer of either sign), 2,000 terms from seed 1; the
// same repeated in runs of 16 (study16), and the deep workload's
// 1000-level terms; with -corpus, also the corpus of hex lines in that
// file (work=file), such as the runner's study.hex. mode=floor is
// neither: bareEnd only finds where each term ends, the least any
// decoder must do, and so the floor under both. cpu-ns/term is the
// process's CPU time a term, steadier than the wall clock on a shared
// machine.
//
//	go test -run '^$' -bench ArenaShapes -count 6 . | benchstat -col /dec -
//	go run ./bench -workload study -write study.hex
//	go test -run '^$' -bench 'ArenaShapes/work=file' -benchtime 5x . -corpus study.hex
func BenchmarkArenaShapes(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1^0x9E3779B97F4A7C15))
	corpora := map[string][][]byte{}
	for range 2000 {
		enc, err := Encode(studyTerm(r, 1+r.IntN(5)))
		if err != nil {
			b.Fatal(err)
		}
		corpora["study"] = append(corpora["study"], enc)
	}
	// The same kind of bytes in shapes a branch predictor learns: every
	// 16th study term, each 16 times over. Beside work=study it shows
	// what the shapes' randomness costs (docs/PERFORMANCE.md, the floor).
	for i := 0; i < len(corpora["study"]); i += 16 {
		for range 16 {
			corpora["study16"] = append(corpora["study16"], corpora["study"][i])
		}
	}
	for i := range 20 {
		t := term.Binary([]byte{byte(i)})
		for l := 1000; l > 0; l-- {
			if l%2 == 0 {
				t = term.List(t, term.Int(int64(l)))
			} else {
				t = term.Tuple(term.Int(int64(l)), t)
			}
		}
		enc, _ := Encode(t)
		corpora["deep"] = append(corpora["deep"], enc)
	}
	works := []string{"study", "study16", "deep"}
	if *corpusFile != "" {
		encs, err := readHexCorpus(*corpusFile)
		if err != nil {
			b.Fatal(err)
		}
		corpora["file"] = encs
		works = append(works, "file")
	}
	for _, w := range works {
		encs := corpora[w]
		size := 0
		for _, e := range encs {
			size += len(e)
		}
		// The floor: bareEnd finds term ends and checks little, as
		// floorEnd does with the C floor walker's branch-free design; the
		// shared reader makes every check a decoder makes; alloc
		// allocates and writes what a plain decode's result holds.
		var fs floorState
		ends := map[string]func(e []byte) (int, error){
			"bl1": func(e []byte) (int, error) {
				s := newSkipper(e, Options{})
				end, ok := floorEnd(e, &s, &fs)
				s.release()
				if !ok {
					return 0, errors.New("floorEnd refused it")
				}
				return end, nil
			},
			"bare": func(e []byte) (int, error) {
				if end, ok := bareEnd(e, 0); ok {
					return end, nil
				}
				return 0, errors.New("bareEnd knows only integers, atoms, binaries, tuples and lists")
			},
			"reader": func(e []byte) (int, error) {
				s := newSkipper(e, Options{})
				end, _, err := s.skip(0, 0)
				s.release()
				return end, err
			},
		}
		af, err := newAllocFloor(encs)
		if err != nil {
			b.Fatal(err)
		}
		for _, dec := range []string{"bare", "bl1", "reader", "alloc"} {
			b.Run("work="+w+"/mode=floor/dec="+dec, func(b *testing.B) {
				end := ends[dec]
				b.SetBytes(int64(size))
				b.ReportAllocs()
				c0 := cputime.Process()
				for range b.N {
					for i, e := range encs {
						if end == nil { // dec=alloc: the result's memory alone
							af.term(i)
							continue
						}
						if n, err := end(e); err != nil || n != len(e) {
							b.Fatalf("%s: %d, %v of %d bytes", dec, n, err, len(e))
						}
					}
				}
				reportCPUPerTerm(b, c0, len(encs))
			})
		}
		for _, mode := range []string{"reuse", "plain"} {
			for _, dec := range []string{"recursive", "cps"} {
				b.Run("work="+w+"/mode="+mode+"/dec="+dec, func(b *testing.B) {
					var s scratchSpace
					w := map[string]decodeWalk{"recursive": recursive, "cps": continuation}[dec]
					b.SetBytes(int64(size))
					b.ReportAllocs()
					c0 := cputime.Process()
					for range b.N {
						for _, e := range encs {
							var err error
							if mode == "reuse" {
								_, _, err = Options{}.decodeReused(&s, e, w, true)
								s.finish()
							} else {
								_, err = Options{}.decodeWhole(e, w)
							}
							if err != nil {
								b.Fatal(err)
							}
						}
					}
					reportCPUPerTerm(b, c0, len(encs))
				})
			}
		}
	}
}

// reportCPUPerTerm is reportCPU for b.N passes over
// terms terms: the process's CPU time since c0 a term.
func reportCPUPerTerm(b *testing.B, c0 time.Duration, terms int) {
	if c := cputime.Process() - c0; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(b.N*terms), "cpu-ns/term")
	}
}

var corpusFile = flag.String("corpus", "", "BenchmarkArenaShapes also decodes the hex lines of this `file`")

// readHexCorpus reads a corpus as the runner's readCorpus does (go run
// ./bench -corpus): one hex encoding a line, blank lines and lines that
// start with # skipped.
func readHexCorpus(name string) ([][]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var encs [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		b, err := Hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		encs = append(encs, b)
	}
	return encs, sc.Err()
}

// studyTerm is the bench command's study workload, for this package's
// benchmarks.
func studyTerm(r *rand.Rand, d int) term.Term {
	n := func(max int) int { return 1 + r.IntN(max) }
	elems := func(k int) []term.Term {
		es := make([]term.Term, k)
		for i := range es {
			es[i] = studyTerm(r, d-1)
		}
		return es
	}
	switch n(5) {
	case 1:
		if d == 0 {
			return term.List()
		}
		es := elems(n(1<<d) - 1)
		if len(es) > 1 && n(16) <= 8 {
			return term.ImproperList(es[:len(es)-1], es[len(es)-1])
		}
		return term.List(es...)
	case 2:
		if d == 0 {
			return term.Tuple()
		}
		return term.Tuple(elems(n(1<<d) - 1)...)
	case 3:
		bs := make([]byte, n(1<<d)-1)
		for i := range bs {
			bs[i] = byte(r.Uint32())
		}
		return term.Binary(bs)
	}
	bs := make([]byte, n(1<<d))
	for i := range bs {
		bs[i] = byte(r.Uint32())
	}
	x := new(big.Int).SetBytes(bs)
	if r.IntN(2) == 0 {
		x.Neg(x)
	}
	return term.BigInt(x)
}

// BenchmarkLeaves decodes, with a warm Decoder, a tuple of 64 leaves of
// one kind each: the leaves the study's workload is made of (small
// integers, integers of 32 to 63 bits in the bignum forms, both signs,
// binaries of 0 to 7 bytes) and bignums beyond an int64. ns/leaf is the
// time of one leaf, the tuple's share included.
func BenchmarkLeaves(b *testing.B) {
	leaves := map[string]func(i int) term.Term{
		"small":  func(i int) term.Term { return term.Int(int64(i * 1000)) },
		"word":   func(i int) term.Term { return term.Int((1<<(31+i%32) + int64(i)) * int64(1-2*(i%2))) },
		"binary": func(i int) term.Term { return term.Binary([]byte("abcdefg")[:i%8]) },
		"big":    func(i int) term.Term { return term.BigInt(new(big.Int).Lsh(big.NewInt(int64(i+1)), 64+uint(i))) },
	}
	for _, kind := range []string{"small", "word", "binary", "big"} {
		elems := make([]term.Term, 64)
		for i := range elems {
			elems[i] = leaves[kind](i)
		}
		enc, err := Encode(term.Tuple(elems...))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("leaf="+kind, func(b *testing.B) {
			var d Decoder
			b.ReportAllocs()
			for range b.N {
				if _, err := d.Decode(enc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(elems)), "ns/leaf")
		})
	}
}

// bareEnd finds the end of the term at p in b and nothing more: it checks
// no byte it does not need, builds nothing, keeps no depth and reads no
// number's value. It knows only integers, atoms, binaries, tuples and
// lists, the forms of the study, deep and kv workloads. It is the
// floor under any decoder of these bytes: a decode must at least find
// where each term ends, one tag at a time, and BenchmarkArenaShapes
// times it as mode=floor beside the decoders.
func bareEnd(b []byte, p int) (int, bool) {
	if p >= len(b) {
		return 0, false
	}
	switch b[p] {
	case tagPos4, tagNeg4:
		return p + 5, p+5 <= len(b)
	case tagBinary, tagAtom:
		f, err := findFrame(b, p+1)
		return f.end, err == nil
	case tagPosBig:
		f, err := findFrame(b, p+1)
		return f.end + 1, err == nil // the flag byte
	case tagNegBig:
		f, err := findFrame(b, p+5) // after the word count
		return f.end + 1, err == nil
	case tagTuple:
		if p+5 > len(b) {
			return 0, false
		}
		n := binary.BigEndian.Uint32(b[p+1:])
		p += 5
		for range n {
			var ok bool
			if p, ok = bareEnd(b, p); !ok {
				return 0, false
			}
		}
		return p, true
	case tagList:
		for p++; p < len(b); {
			switch b[p] {
			case markEnd:
				return p + 1, true
			case markImproper, markBitTail:
				return bareEnd(b, p+1)
			}
			var ok bool
			if p, ok = bareEnd(b, p); !ok {
				return 0, false
			}
		}
	}
	return 0, false
}

// TestBareEndAgrees holds the floor to the decoders: on the workloads
// it is timed on, it finds the end the decoder finds, so that it walks
// the same bytes.
func TestBareEndAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 3000 {
		x := studyTerm(r, r.IntN(6))
		if i%3 == 0 { // a kv key around it, for atoms
			x = term.Tuple(term.Atom([]string{"user", "", "order_line", "a_much_longer_atom_name"}[i%4]), x)
		}
		enc, err := Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, err := DecodeNext(append(enc, 0xAA))
		if err != nil {
			t.Fatal(err)
		}
		want := len(enc) + 1 - len(rest)
		if got, ok := bareEnd(append(enc, 0xAA), 0); !ok || got != want {
			t.Fatalf("term %d (% x): bareEnd = %d, %v; DecodeNext ends at %d", i, enc, got, ok, want)
		}
	}
}
