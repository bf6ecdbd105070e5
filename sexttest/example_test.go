package sexttest_test

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/sexttest"
)

// eventKey is a key type as an application declares it: by tenant, then
// newest first, then by name.
type eventKey struct {
	Tenant uint32
	At     time.Time `sext:",desc"`
	Name   string
}

func compareEventKey(a, b eventKey) int {
	return cmp.Or(
		cmp.Compare(a.Tenant, b.Tenant),
		b.At.Compare(a.At), // desc
		strings.Compare(a.Name, b.Name),
	)
}

var genEventKey = rapid.Custom(func(t *rapid.T) eventKey {
	return eventKey{
		Tenant: rapid.Uint32Range(0, 3).Draw(t, "Tenant"),
		At:     time.Unix(rapid.Int64Range(-5, 5).Draw(t, "At"), 0),
		Name:   rapid.StringOfN(rapid.RuneFrom([]rune("ab\x00é")), 0, 3, -1).Draw(t, "Name"),
	}
})

func ExampleCheckKeyOrder() {
	// In a test: sexttest.CheckKeyOrder(t, genEventKey, compareEventKey).
	// Here a recorder stands in for the *testing.T.
	var t recorder
	sexttest.CheckKeyOrder(&t, genEventKey, compareEventKey)
	fmt.Println("order kept:", !t.Failed())
	// Output: order kept: true
}

// recorder is a rapid.TB that remembers what a test would report.
type recorder struct {
	failed bool
	out    strings.Builder
}

func (r *recorder) Helper()                   {}
func (r *recorder) Name() string              { return "recorder" }
func (r *recorder) Logf(f string, a ...any)   { fmt.Fprintf(&r.out, f+"\n", a...) }
func (r *recorder) Log(a ...any)              { fmt.Fprintln(&r.out, a...) }
func (r *recorder) Skipf(f string, a ...any)  { r.Errorf("skip: "+f, a...) }
func (r *recorder) Skip(a ...any)             { r.Error(append([]any{"skip:"}, a...)...) }
func (r *recorder) SkipNow()                  { r.Error("skip") }
func (r *recorder) Errorf(f string, a ...any) { r.failed = true; r.Logf(f, a...) }
func (r *recorder) Error(a ...any)            { r.failed = true; r.Log(a...) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...) }
func (r *recorder) Fatal(a ...any)            { r.Error(a...) }
func (r *recorder) FailNow()                  { r.failed = true }
func (r *recorder) Fail()                     { r.failed = true }
func (r *recorder) Failed() bool              { return r.failed }
