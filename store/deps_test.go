package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBackendsApart: a program links only the backend it uses. Package
// store imports no backend (pebblestore is where store and Pebble meet),
// so an etcd program, store and etcdkv together, links no Pebble; the
// seam imports the standard library only; and neither backend imports
// the other or store. Checked on the packages' own dependency lists as
// the go command computes them (go list -deps), so an import through
// any intermediate package counts.
func TestBackendsApart(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to list dependencies: %v", err)
	}
	const mod = "github.com/erlsext/sext/"
	pebble := func(dep string) bool { return strings.HasPrefix(dep, "github.com/cockroachdb/") }
	etcd := func(dep string) bool { return strings.HasPrefix(dep, "go.etcd.io/") }
	for _, c := range []struct {
		pkgs []string // listed together: a program importing them all
		deny func(dep string) bool
		want string // a dependency that must be there, so the list is real
	}{
		{[]string{"./seam"}, func(dep string) bool { return dep != mod+"store/seam" }, mod + "store/seam"},
		{[]string{"."}, func(dep string) bool {
			return pebble(dep) || etcd(dep) || dep == mod+"store/pebblekv" || dep == mod+"store/etcdkv"
		}, mod + "store/seam"},
		{[]string{".", "./etcdkv"}, pebble, "go.etcd.io/etcd/client/v3"},
		{[]string{"./etcdkv"}, func(dep string) bool { return pebble(dep) || dep == mod+"store" }, "go.etcd.io/etcd/client/v3"},
		{[]string{"./pebblekv"}, func(dep string) bool { return etcd(dep) || dep == mod+"store" }, "github.com/cockroachdb/pebble/v2"},
		{[]string{"./pebblestore"}, etcd, "github.com/cockroachdb/pebble/v2"},
	} {
		args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, c.pkgs...)
		out, err := exec.Command(goTool, args...).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", strings.Join(c.pkgs, " "), err)
		}
		deps := strings.Fields(string(out))
		found := false
		for _, dep := range deps {
			found = found || dep == c.want
			if c.deny(dep) {
				t.Errorf("%s depends on %s", strings.Join(c.pkgs, " "), dep)
			}
		}
		if !found {
			t.Errorf("go list -deps %s: %s missing from %d packages", strings.Join(c.pkgs, " "), c.want, len(deps))
		}
	}
}
