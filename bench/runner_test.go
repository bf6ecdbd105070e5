package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The runner, end to end: every workload is deterministic from its seed,
// writes hex lines the runner reads back, and the report has one
// "NAME MBPS ALLOCS" line an operation.
func TestWorkloadsWriteAndMeasure(t *testing.T) {
	line := regexp.MustCompile(`^(encode|decode-recursive|decode-cps|decode-reuse) [0-9.]+ [0-9.]+$`)
	for _, name := range []string{"study", "kv", "binary", "deep", "numbers"} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.hex"), filepath.Join(dir, "b.hex")
		for _, f := range []string{a, b} {
			if err := run([]string{"-workload", name, "-n", "20", "-seed", "7", "-write", f}, os.Stdout); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		da, _ := os.ReadFile(a)
		db, _ := os.ReadFile(b)
		if len(da) == 0 || !bytes.Equal(da, db) {
			t.Fatalf("%s: the same seed wrote different corpora", name)
		}
		var out bytes.Buffer
		if err := run([]string{"-corpus", a, "-rounds", "1"}, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if strings.HasPrefix(l, "#") {
				continue
			}
			if !line.MatchString(l) {
				t.Errorf("%s: report line %q", name, l)
			}
			n++
		}
		if n != 4 {
			t.Errorf("%s: %d report lines, want 4:\n%s", name, n, out.String())
		}
	}
}

// -all adds the other operations, the View's walk among them, each
// checked against the corpus as it is prepared.
func TestRunnerAll(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-workload", "kv", "-n", "50", "-all", "-rounds", "1"}, &out); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, "#") {
			ops = append(ops, strings.Fields(l)[0])
		}
	}
	want := "encode decode-recursive decode-cps decode-reuse decode decode-next compare prefix view-skip"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("-all reports %q, want %q", got, want)
	}
}

func TestRunnerRejectsBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.hex")
	os.WriteFile(bad, []byte("0A00000000\nZZ\n"), 0o644)
	for _, args := range [][]string{
		{"-corpus", bad},
		{"-workload", "nosuch"},
		{"-clock", "sundial", "-workload", "kv"},
		{},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func TestChartIsWellFormedSVG(t *testing.T) {
	var buf bytes.Buffer
	rows := [][]result{
		{{op: "encode", mbps: 200}, {op: "decode-cps", mbps: 110}},
		{{op: "encode", mbps: 2000}, {op: "decode-cps", mbps: 1600}},
	}
	if err := writeChart(&buf, "t <&>", []string{"study", "binary"}, rows); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&buf)
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	if rects < 4 {
		t.Fatalf("%d rects for 4 bars", rects)
	}
}
