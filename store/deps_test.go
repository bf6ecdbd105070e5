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
// the go command computes them (go list -deps, once for all of them), so
// an import through any intermediate package counts.
func TestBackendsApart(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to list dependencies: %v", err)
	}
	const mod = "github.com/erlsext/sext/"
	listed := []string{"./seam", ".", "./etcdkv", "./pebblekv", "./pebblestore"}
	// Each package outside the standard library, with its dependencies.
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{join .Deps \" \"}}{{end}}"}, listed...)
	out, err := exec.Command(goTool, args...).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(listed, " "), err)
	}
	depsOf := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		depsOf[f[0]] = f[1:]
	}
	// deps is what go list -deps of pkgs lists outside the standard
	// library: the packages and their dependencies.
	deps := func(pkgs []string) []string {
		seen := map[string]bool{}
		var all []string
		for _, p := range pkgs {
			path := mod + "store"
			if p != "." {
				path += strings.TrimPrefix(p, ".")
			}
			if _, ok := depsOf[path]; !ok {
				t.Fatalf("go list -deps %s did not list %s", strings.Join(listed, " "), path)
			}
			for _, d := range append([]string{path}, depsOf[path]...) {
				if _, nonStd := depsOf[d]; nonStd && !seen[d] {
					seen[d] = true
					all = append(all, d)
				}
			}
		}
		return all
	}
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
		deps := deps(c.pkgs)
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
