// Command bench measures the sext codec on corpora of encoded terms and
// writes the workloads and the chart that docs/PERFORMANCE.md shows.
//
//	go run ./bench -corpus FILE                 measure a corpus of hex lines
//	go run ./bench -workload NAME -n N -seed S -write FILE
//	                                            write a workload as hex lines
//	go run ./bench -workload NAME [-n N -seed S] measure a workload directly
//	go run ./bench -svg FILE                    measure every workload, chart it
//
// -clock cpu times rounds by the process's CPU time instead of the wall
// clock, for a machine shared with other work.
//
// A corpus holds one encoding a line in hex, as "sext encode" prints it
// (either case is read). For each operation the runner prints the best of
// -rounds rounds as one line:
//
//	NAME MBPS ALLOCS
//
// where MBPS is 10^6 bytes of encoding per second and ALLOCS is heap
// allocations per term (runtime.MemStats.Mallocs over the round).
// The Go benchmarks (go test -bench . -benchmem ./bench) measure the same
// operations, and more, under the testing package.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/term"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	corpusFile := fs.String("corpus", "", "measure the corpus of hex lines in `FILE`")
	wname := fs.String("workload", "", "generate the workload `NAME`: "+workloadNames())
	n := fs.Int("n", 0, "number of terms to generate (0: the workload's default)")
	seed := fs.Uint64("seed", 1, "seed of the generator")
	write := fs.String("write", "", "write the generated workload to `FILE` as hex lines (- for stdout)")
	svg := fs.String("svg", "", "measure every workload and write a bar chart to `FILE`")
	rounds := fs.Int("rounds", 5, "rounds per operation; the best is reported")
	all := fs.Bool("all", false, "also measure decode (Decode's flat path), decode-next, compare, prefix and view-skip")
	clock := fs.String("clock", "wall", "time rounds by the `wall` clock or by the process's cpu time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch *clock {
	case "wall":
	case "cpu":
		if cputime.Process() == 0 {
			return errors.New("-clock cpu: no CPU time on this system")
		}
		useCPUClock = true
	default:
		return fmt.Errorf("-clock %q: want wall or cpu", *clock)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	ops := mainOps
	if *all {
		ops = allOps
	}
	switch {
	case *svg != "":
		return chartAll(*svg, *seed, *n, *rounds, ops, stdout)
	case *corpusFile != "":
		c, err := readCorpus(*corpusFile)
		if err != nil {
			return err
		}
		return report(stdout, c, ops, *rounds)
	case *wname != "":
		w, err := findWorkload(*wname)
		if err != nil {
			return err
		}
		if *n <= 0 {
			*n = w.n
		}
		c, err := newCorpus(w.name, w.generate(*n, *seed))
		if err != nil {
			return err
		}
		if *write != "" {
			return writeCorpus(*write, c)
		}
		return report(stdout, c, ops, *rounds)
	}
	fs.Usage()
	return errors.New("give -corpus, -workload or -svg")
}

func workloadNames() string {
	var s []string
	for _, w := range workloads {
		s = append(s, w.name)
	}
	return strings.Join(s, ", ")
}

// readCorpus reads one hex encoding a line; blank lines and lines that
// start with # are skipped.
func readCorpus(file string) (*corpus, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &corpus{name: file}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		b, err := sext.Hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		t, err := sext.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		c.terms = append(c.terms, t)
		c.encs = append(c.encs, b)
		c.bytes += len(b)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(c.terms) == 0 {
		return nil, fmt.Errorf("%s: no terms", file)
	}
	return c, nil
}

func writeCorpus(file string, c *corpus) error {
	var w io.Writer = os.Stdout
	if file != "-" {
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for _, b := range c.encs {
		line = append(sext.Hex.AppendEncode(line[:0], b), '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// An op is one measured operation over a whole corpus.
type op struct {
	name string
	// prepare returns the function that makes one pass over c.
	prepare func(c *corpus) (func() error, error)
}

var (
	mainOps = []op{
		{"encode", prepEncode},
		{"decode-recursive", prepDecode(sext.DecodeRecursive)},
		{"decode-cps", prepDecode(sext.DecodeCPS)},
		{"decode-reuse", prepDecodeReuse},
	}
	allOps = append(mainOps[:len(mainOps):len(mainOps)],
		op{"decode", prepDecode(sext.Decode)}, // the flat path for small keys, else cps
		op{"decode-next", prepDecodeNext},
		op{"compare", prepCompare},
		op{"prefix", prepPrefix},
		op{"view-skip", prepViewSkip},
	)
)

// sink keeps results alive so the compiler cannot drop the work.
var (
	sinkTerm  term.Term
	sinkBytes []byte
	sinkInt   int
)

func prepEncode(c *corpus) (func() error, error) {
	var buf []byte
	// Check once, untimed, that the encoder writes the corpus's bytes.
	for i, t := range c.terms {
		b, err := sext.Append(buf[:0], t)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(b, c.encs[i]) {
			return nil, fmt.Errorf("term %d encodes differently from the corpus", i)
		}
		buf = b
	}
	return func() error {
		var err error
		for _, t := range c.terms {
			if buf, err = sext.Append(buf[:0], t); err != nil {
				return err
			}
		}
		sinkBytes = buf
		return nil
	}, nil
}

func prepDecode(decode func([]byte) (term.Term, error)) func(c *corpus) (func() error, error) {
	return func(c *corpus) (func() error, error) {
		return func() error {
			for _, b := range c.encs {
				t, err := decode(b)
				if err != nil {
					return err
				}
				sinkTerm = t
			}
			return nil
		}, nil
	}
}

// prepDecodeReuse decodes with one sext.Decoder, whose term lives until
// the next decode: the loop that drops each term at once, as the
// reference is timed.
func prepDecodeReuse(c *corpus) (func() error, error) {
	dec := sext.NewDecoder(sext.Options{})
	return func() error {
		for _, b := range c.encs {
			t, err := dec.Decode(b)
			if err != nil {
				return err
			}
			sinkTerm = t
		}
		return nil
	}, nil
}

// prepViewSkip walks every encoding with a sext.View to its end: the
// decoders' checks, with no term built.
func prepViewSkip(c *corpus) (func() error, error) {
	return func() error {
		n := 0
		for _, b := range c.encs {
			end, err := sext.NewView(b).End()
			if err != nil {
				return err
			}
			n += end
		}
		if n != c.bytes {
			return fmt.Errorf("the View skipped %d bytes of %d", n, c.bytes)
		}
		sinkInt = n
		return nil
	}, nil
}

func prepDecodeNext(c *corpus) (func() error, error) {
	all := c.concat()
	return func() error {
		rest := all
		for len(rest) > 0 {
			t, r, err := sext.DecodeNext(rest)
			if err != nil {
				return err
			}
			sinkTerm, rest = t, r
		}
		return nil
	}, nil
}

// prepCompare compares every term with an equal copy decoded apart, the
// case where Compare must walk both terms to the end.
func prepCompare(c *corpus) (func() error, error) {
	copies := make([]term.Term, len(c.encs))
	for i, b := range c.encs {
		t, err := sext.Decode(b)
		if err != nil {
			return nil, err
		}
		copies[i] = t
	}
	return func() error {
		s := 0
		for i, t := range c.terms {
			s += term.Compare(t, copies[i])
		}
		if s != 0 {
			return errors.New("a term compares unequal to its decoded copy")
		}
		sinkInt = s
		return nil
	}, nil
}

// prepPrefix takes the prefix of every term as a pattern, into a reused
// buffer; a term without wildcards is walked to its end.
func prepPrefix(c *corpus) (func() error, error) {
	var buf []byte
	return func() error {
		var err error
		for _, t := range c.terms {
			if buf, err = sext.AppendPrefix(buf[:0], t); err != nil {
				return err
			}
		}
		sinkBytes = buf
		return nil
	}, nil
}

// useCPUClock times rounds by the process's CPU time instead of the wall
// clock (-clock cpu).
var useCPUClock bool

// elapsed returns a reading of the clock rounds are timed by.
func elapsed() time.Duration {
	if useCPUClock {
		return cputime.Process()
	}
	return time.Since(processStart)
}

var processStart = time.Now()

// result is the best round of one op.
type result struct {
	op     string
	mbps   float64
	allocs float64 // per term
}

// measure runs one untimed warm-up pass, then rounds timed passes, and
// keeps the fastest (and the fewest allocations).
func measure(c *corpus, o op, rounds int) (result, error) {
	pass, err := o.prepare(c)
	if err != nil {
		return result{}, fmt.Errorf("%s: %v", o.name, err)
	}
	if err := pass(); err != nil {
		return result{}, fmt.Errorf("%s: %v", o.name, err)
	}
	best := result{op: o.name, allocs: -1}
	var ms runtime.MemStats
	for range max(rounds, 1) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		t0 := elapsed()
		err := pass()
		el := elapsed() - t0
		runtime.ReadMemStats(&ms)
		if err != nil {
			return result{}, fmt.Errorf("%s: %v", o.name, err)
		}
		mbps := float64(c.bytes) / el.Seconds() / 1e6
		allocs := float64(ms.Mallocs-m0) / float64(len(c.terms))
		best.mbps = max(best.mbps, mbps)
		if best.allocs < 0 || allocs < best.allocs {
			best.allocs = allocs
		}
	}
	return best, nil
}

func clockName() string {
	if useCPUClock {
		return "cpu"
	}
	return "wall"
}

func report(w io.Writer, c *corpus, ops []op, rounds int) error {
	fmt.Fprintf(w, "# %s: %d terms, %d bytes encoded; best of %d rounds by the %s clock; %s %s/%s, %d CPUs\n",
		c.name, len(c.terms), c.bytes, rounds, clockName(), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	for _, o := range ops {
		r, err := measure(c, o, rounds)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %.1f %.2f\n", r.op, r.mbps, r.allocs)
	}
	return nil
}
