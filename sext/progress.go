package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress reports a long load: on a terminal a bar redrawn in place with
// the durable keys, the rate and, when the total is known, the time left;
// otherwise a plain line every few seconds, which suits logs and CI. The
// load syncs the store whenever due says so and then calls update, so a
// number the report calls durable is one a crash cannot take back.
type progress struct {
	w        io.Writer
	tty      bool
	label    string
	total    int64         // bytes to read, or 0 when unknown (a pipe)
	every    time.Duration // between syncs, and lines when not a terminal
	start    time.Time
	lastSync time.Time
	last     time.Time // of the last report
	durable  int64     // keys synced at the last report, for a load
	drawn    bool      // a bar is on the terminal line
}

func newProgress(w io.Writer, label string, total int64) *progress {
	now := time.Now()
	return &progress{w: w, tty: isTerminal(w), label: label, total: total, every: 2 * time.Second, start: now, lastSync: now, last: now}
}

// due reports whether it is time to sync and report; the caller syncs
// before it calls update.
func (p *progress) due() bool {
	if time.Since(p.lastSync) >= p.every {
		p.lastSync = time.Now()
		return true
	}
	return false
}

// isTerminal reports whether w is a character device, such as a
// terminal, rather than a file or pipe.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// update reports keys stored, how many of them are durable (-1: not
// known, as in the demo, which has no log) and, for the time left, bytes
// read so far. It draws at most ten times a second on a terminal and
// once an interval elsewhere, so calling it often costs little.
func (p *progress) update(keys, durable, done int64) {
	now := time.Now()
	every := p.every
	if p.tty {
		every = 100 * time.Millisecond
	}
	if now.Sub(p.last) < every {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start).Seconds()
	rate := float64(keys) / elapsed
	dur := ""
	if durable >= 0 {
		dur = fmt.Sprintf(", %s durable", commas(durable))
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %s keys%s, %s keys/s, %s\n", p.label, commas(keys), dur, commas(int64(rate)), round(now.Sub(p.start)))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\r%s ", p.label)
	if p.total > 0 {
		frac := min(float64(done)/float64(p.total), 1)
		const width = 30
		full := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", full))
		if full < width {
			b.WriteString(">" + strings.Repeat(" ", width-full-1))
		}
		fmt.Fprintf(&b, "] %3.0f%% ", 100*frac)
	}
	fmt.Fprintf(&b, "%s keys%s  %s keys/s", commas(keys), dur, commas(int64(rate)))
	if p.total > 0 && done > 0 && done < p.total {
		left := time.Duration(float64(p.total-done) / (float64(done) / elapsed) * float64(time.Second))
		fmt.Fprintf(&b, "  %s left", left.Round(time.Second))
	}
	b.WriteString("\x1b[K") // clear the rest of the line
	io.WriteString(p.w, b.String())
	p.drawn = true
}

// clear removes the bar so that a message can take its line.
func (p *progress) clear() {
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// finish replaces the bar with a summary line.
func (p *progress) finish(keys int64) {
	p.clear()
	d := time.Since(p.start)
	fmt.Fprintf(p.w, "stored %s in %s (%s keys/s)\n", counted(keys, "key"), round(d), commas(int64(float64(keys)/d.Seconds())))
}
