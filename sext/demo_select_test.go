package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDemoSelects: the demo's guarded selects find what the hand-built
// scans find, reading fewer keys.
func TestDemoSelects(t *testing.T) {
	r := execDB(t, "", "demo", "--n", "20000")
	r.expect(t, 0, nil)
	out := r.stdout
	for _, s := range []string{
		"6. orders of customers 10 up to 20", "Select [{{order,'$1','_','_'},[{'>=','$1',10},{'<','$1',20}],['$_']}]",
		"plan: 10000000040CB7DCAC965B90080A00000014 .. 10000000040CB7DCAC965B90080A00000028",
		"against Scan {order,'_','_','_'} filtered in Go: ", " rows in ", "20,000 keys read",
		"7. customer 101's orders in March 2025 through guards", "8. customers 10 up to 20 in March 2025",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("demo output lacks %q:\n%s", s, out)
		}
	}
	count := func(section, re string) string {
		t.Helper()
		i := strings.Index(out, section)
		if i < 0 {
			t.Fatalf("no section %q", section)
		}
		m := regexp.MustCompile(re).FindStringSubmatch(out[i:])
		if m == nil {
			t.Fatalf("section %q: no %s", section, re)
		}
		return m[1]
	}
	rows := `\n   ([0-9,]+) rows? in `
	if a, b := count("\n3. ", rows), count("\n7. ", rows); a != b {
		t.Errorf("March through guards: %s rows, through ScanRange %s", b, a)
	}
	if a, b := count("\n6. ", rows), count("against Scan", `: ([0-9,]+) rows? in`); a != b {
		t.Errorf("the select found %s rows, the filtered scan %s", a, b)
	}
	if read := count("\n6. ", `rows? in [^,]+, ([0-9,]+) keys? read`); read != count("\n6. ", rows) {
		t.Errorf("the customer range read %s keys for %s rows: the plan should read only them", read, count("\n6. ", rows))
	}
}
