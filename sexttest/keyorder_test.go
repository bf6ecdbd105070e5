package sexttest_test

import (
	"cmp"
	"flag"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/sexttest"
)

func TestCheckKeyOrderPasses(t *testing.T) {
	sexttest.CheckKeyOrder(t, genEventKey, compareEventKey)
	sexttest.CheckKeyOrder(t, rapid.Int64(), cmp.Compare[int64]) // not a struct
}

// TestCheckKeyOrderFails runs CheckKeyOrder on key types whose declared
// order the bytes do not keep, and on one that does not read back, and
// wants each reported as a failure that says why.
func TestCheckKeyOrderFails(t *testing.T) {
	// A failing check would save a rapid fail file named for the
	// recorder under testdata; these are meant to fail. And -short's 20
	// cases could miss the rarer disagreements: 1,000 do not.
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.checks", "1000")

	type byLength struct{ Name string }
	type ascending struct {
		Tenant uint32
		At     time.Time `sext:",desc"`
	}
	type lossy struct{ At time.Time }
	tests := []struct {
		name  string
		check func(r *recorder)
		want  string
	}{
		{"strings by length", func(r *recorder) {
			sexttest.CheckKeyOrder(r, rapid.Custom(func(t *rapid.T) byLength {
				return byLength{rapid.SampledFrom([]string{"", "b", "aa", "ab"}).Draw(t, "Name")}
			}), func(a, b byLength) int {
				return cmp.Or(cmp.Compare(len(a.Name), len(b.Name)), strings.Compare(a.Name, b.Name))
			})
		}, "the bytes compare"},
		{"desc field declared ascending, second field", func(r *recorder) {
			sexttest.CheckKeyOrder(r, rapid.Custom(func(t *rapid.T) ascending {
				return ascending{rapid.Uint32Range(0, 2).Draw(t, "Tenant"), time.Unix(rapid.Int64Range(0, 9).Draw(t, "At"), 0)}
			}), func(a, b ascending) int {
				return cmp.Or(cmp.Compare(a.Tenant, b.Tenant), a.At.Compare(b.At))
			})
		}, "the bytes compare"},
		{"a zone Unmarshal does not keep", func(r *recorder) {
			east := time.FixedZone("E", 3600)
			sexttest.CheckKeyOrder(r, rapid.Custom(func(t *rapid.T) lossy {
				return lossy{time.Unix(rapid.Int64Range(0, 9).Draw(t, "At"), 0).In(east)}
			}), func(a, b lossy) int {
				_, oa := a.At.Zone()
				_, ob := b.At.Zone()
				return cmp.Or(cmp.Compare(oa, ob), a.At.Compare(b.At))
			})
		}, "Unmarshal(Marshal("}, // times come back in UTC
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r recorder
			tc.check(&r)
			if !r.Failed() {
				t.Fatalf("CheckKeyOrder passed a key type whose order the bytes break; it logged:\n%s", r.out.String())
			}
			if !strings.Contains(r.out.String(), "[rapid] failed") || !strings.Contains(r.out.String(), tc.want) {
				t.Fatalf("CheckKeyOrder's report lacks %q:\n%s", tc.want, r.out.String())
			}
		})
	}
}

// setFlag sets a flag for the rest of the test.
func setFlag(t *testing.T, name, value string) {
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set(name, old) })
}
