package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// chartAll measures ops on every workload (n terms each, or each
// workload's default when n is 0), prints the lines as report does, and
// writes a horizontal bar chart of MB/s on a log scale to file.
func chartAll(file string, seed uint64, n, rounds int, ops []op, stdout io.Writer) error {
	var rows [][]result
	var labels []string
	for _, w := range workloads {
		cn := n
		if cn <= 0 {
			cn = w.n
		}
		c, err := newCorpus(w.name, w.generate(cn, seed))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "# %s: %d terms, %d bytes encoded; best of %d rounds by the %s clock\n", w.name, len(c.terms), c.bytes, rounds, clockName())
		var row []result
		for _, o := range ops {
			r, err := measure(c, o, rounds)
			if err != nil {
				return fmt.Errorf("%s: %v", w.name, err)
			}
			fmt.Fprintf(stdout, "%s %.1f %.2f\n", r.op, r.mbps, r.allocs)
			row = append(row, r)
		}
		rows = append(rows, row)
		labels = append(labels, fmt.Sprintf("%s (%d)", w.name, cn))
	}
	title := fmt.Sprintf("sext: MB/s of encoding, best of %d rounds by the %s clock (%s, %d CPUs, %s, %s)",
		rounds, clockName(), cpuModel(), runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02"))
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := writeChart(f, title, labels, rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// cpuModel returns the model name from /proc/cpuinfo, or the architecture.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

var barColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"}

// writeChart draws one group of bars per workload, one bar per op.
func writeChart(w io.Writer, title string, labels []string, rows [][]result) error {
	const (
		left, right = 150.0, 90.0
		plotW       = 560.0
		barH, gap   = 14.0, 3.0
		groupGap    = 16.0
		top         = 70.0
	)
	lo, hi := math.Inf(1), 0.0
	for _, row := range rows {
		for _, r := range row {
			if r.mbps > 0 {
				lo, hi = math.Min(lo, r.mbps), math.Max(hi, r.mbps)
			}
		}
	}
	if hi == 0 {
		return fmt.Errorf("nothing measured")
	}
	d0, d1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if d1 <= d0 {
		d1 = d0 + 1
	}
	x := func(v float64) float64 {
		if v <= 0 {
			return left
		}
		return left + plotW*(math.Log10(v)-d0)/(d1-d0)
	}
	nops := len(rows[0])
	groupH := float64(nops)*(barH+gap) - gap
	height := top + float64(len(rows))*(groupH+groupGap) + 30
	width := left + plotW + right

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="12" font-weight="bold">%s</text>`+"\n", esc(title))
	// Legend.
	lx := left
	for i, r := range rows[0] {
		fmt.Fprintf(&b, `<rect x="%.1f" y="30" width="12" height="12" fill="%s"/><text x="%.1f" y="40">%s</text>`+"\n",
			lx, barColors[i%len(barColors)], lx+16, esc(r.op))
		lx += 30 + 7*float64(len(r.op))
	}
	// Grid: decades and their halves' 2 and 5.
	axisY := height - 24
	for d := d0; d <= d1; d++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, d)
			if math.Log10(v) > d1+1e-9 {
				continue
			}
			gx := x(v)
			stroke, dash := "#bbb", ""
			if m != 1 {
				stroke, dash = "#e4e4e4", ` stroke-dasharray="2,2"`
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s/>`+"\n", gx, top-8, gx, axisY, stroke, dash)
			if m == 1 || d1-d0 <= 2 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%s</text>`+"\n", gx, axisY+12, fmtNum(v))
			}
		}
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="start" fill="#555">MB/s (log scale)</text>`+"\n", left+plotW+8, axisY+12)
	// Bars.
	y := top
	for gi, row := range rows {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-weight="bold">%s</text>`+"\n",
			left-8, y+groupH/2+4, esc(labels[gi]))
		for i, r := range row {
			bw := x(r.mbps) - left
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.1f MB/s, %.2f allocs/term</title></rect>`+"\n",
				left, y, math.Max(bw, 1), barH, barColors[i%len(barColors)], esc(labels[gi]), esc(r.op), r.mbps, r.allocs)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", left+bw+4, y+barH-3, fmtNum(r.mbps))
			y += barH + gap
		}
		y += groupGap - gap
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left, top-8, left, axisY)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtNum(v float64) string {
	switch {
	case v >= 100, v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
