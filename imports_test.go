package sext

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: the codec, the term model and the ETF codec
// import the standard library and term only, no other package of this
// module (internal ones included) and nothing from outside it.
func TestStandardLibraryOnly(t *testing.T) {
	allowed := map[string]bool{"github.com/erlsext/sext/term": true}
	for _, dir := range []string{".", "term", "etf"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, imp := range af.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				std := !strings.Contains(strings.SplitN(p, "/", 2)[0], ".")
				if !std && !(allowed[p] && dir != "term") {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
		if n == 0 {
			t.Fatalf("no source files in %s", dir)
		}
	}
}
