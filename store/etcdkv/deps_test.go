package etcdkv_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoPebble: a program on the etcd backend links no Pebble. The seam
// imports the standard library only, and etcdkv never package store
// (which holds store.Open) nor store/pebblekv. Before the backends moved
// out of the seam's package, etcdkv pulled in 58 Pebble packages.
func TestNoPebble(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to list dependencies: %v", err)
	}
	for _, c := range []struct {
		pkg  string
		deny func(dep string) bool
	}{
		{"../seam", func(dep string) bool { return dep != "github.com/erlsext/sext/store/seam" }},
		{".", func(dep string) bool {
			return strings.Contains(dep, "pebble") || dep == "github.com/erlsext/sext/store"
		}},
	} {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", c.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", c.pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 {
			t.Fatalf("go list -deps %s: no packages", c.pkg)
		}
		for _, dep := range deps {
			if c.deny(dep) {
				t.Errorf("%s depends on %s", c.pkg, dep)
			}
		}
	}
}
