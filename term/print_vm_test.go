package term_test

import (
	"context"
	"slices"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/internal/termgen"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/term"
)

// vmPrint returns the VM's text of each term: fn is print_p (~0tp) or
// print (~tw).
func vmPrint(t *testing.T, vm *erlvm.VM, fn string, terms []term.Term) []string {
	t.Helper()
	out := make([]string, 0, len(terms))
	const batch = 2000
	for lo := 0; lo < len(terms); lo += batch {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		got, err := vm.Call(ctx, fn, term.List(terms[lo:min(lo+batch, len(terms))]...))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range got.Elems() {
			out = append(out, string(b.Bytes()))
		}
	}
	return out
}

// checkPrints holds f's text of each term to the VM's (fn), byte for
// byte, and Parse of the VM's text to the term.
func checkPrints(t *testing.T, vm *erlvm.VM, fn string, f *term.Format, terms []term.Term) {
	t.Helper()
	bad := 0
	for i, text := range vmPrint(t, vm, fn, terms) {
		if got := f.Text(terms[i]); got != text {
			t.Errorf("term %d: printed\n%s\nthe VM's %s\n%s", i, got, fn, text)
			bad++
		}
		if back, err := term.Parse(text); err != nil || !term.Equal(back, terms[i]) {
			t.Errorf("term %d: Parse of the VM's %s\n%s\ngives %v, %v", i, fn, text, back, err)
			bad++
		}
		if bad > 10 {
			t.Fatal("and more")
		}
	}
}

// examples draws n terms from gen, deterministically.
func examples(gen *rapid.Generator[term.Term], n int) []term.Term {
	out := make([]term.Term, n)
	for i := range out {
		out[i] = gen.Example(i)
	}
	return out
}

// randomTexts are the random terms the VM tests print: terms rich in
// text (termgen.Text), terms of every kind Erlang prints as it reads
// them (with Unicode atoms), and the VM's own random terms without what
// it prints opaquely. Each source gives 3,000 terms at testsize's full
// size, 1,000 in a quick run.
func randomTexts(t *testing.T, vm *erlvm.VM) []term.Term {
	n := testsize.Pick(1000, 3000)
	if testing.Short() {
		n = 300
	}
	kinds := []term.Kind{term.KindInt, term.KindFloat, term.KindAtom, term.KindBinary,
		term.KindTuple, term.KindList, term.KindMap}
	terms := examples(termgen.Text(termgen.Options{Depth: 3}), n)
	terms = append(terms, examples(termgen.Term(termgen.Options{Depth: 3, Kinds: kinds, UTF8Atoms: true}), n)...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bins, err := vm.Call(ctx, "generate", term.Tuple(term.Int(27), term.Int(int64(n))))
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := vm.Call(ctx, "decode", bins)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decoded.Elems() {
		// Erlang writes the entries of a map of more than 32 keys in its
		// hash order, which this package does not copy (String's doc).
		if x := d.Elems()[1]; !hasBigMap(x) {
			terms = append(terms, withoutIDs(x))
		}
	}
	return terms
}

// TestPrintAgreesWithErlang: P's text is the VM's io_lib:format("~0tp"),
// byte for byte, and W's its "~tw", on thousands of random terms; and the
// VM's text parses back to the same term.
func TestPrintAgreesWithErlang(t *testing.T) {
	vm := erlvm.ForTest(t)
	terms := randomTexts(t, vm)
	// The draws must hold strings often enough to test them: P and W
	// differ only where a list or binary is printable.
	differ := 0
	for _, x := range terms {
		if term.P.Text(x) != term.W.Text(x) {
			differ++
		}
	}
	t.Logf("%d terms, %d with a string", len(terms), differ)
	if differ < len(terms)/8 {
		t.Fatalf("only %d of %d terms hold a printable list or binary", differ, len(terms))
	}
	checkPrints(t, vm, "print_p", term.P, terms)
	checkPrints(t, vm, "print", term.W, terms)
}

// TestPrintUnicodeRangeAgreesWithErlang: P with the Unicode range is the
// ~0tp of a VM started with +pc unicode.
func TestPrintUnicodeRangeAgreesWithErlang(t *testing.T) {
	vm := erlvm.ForTestArgs(t, "+pc", "unicode")
	r, err := vm.Call(context.Background(), "printable_range", term.List())
	if err != nil || r.Kind() != term.KindAtom || r.Atom() != "unicode" {
		t.Fatalf("printable range %v, %v; want unicode", r, err)
	}
	terms := append(randomTexts(t, vm), edgeTexts()...)
	checkPrints(t, vm, "print_p", term.P.WithPrintableRange(term.Unicode), terms)
}

// edgeTexts are lists and binaries of each character code at the edges
// of printability, alone and after a printable one, and every binary of
// one or two bytes: every start of a UTF-8 sequence, valid or not.
func edgeTexts() []term.Term {
	var codes []int64
	for c := int64(-1); c <= 0x120; c++ {
		codes = append(codes, c)
	}
	codes = append(codes, 0x3BB, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000,
		0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0x110000)
	var terms []term.Term
	for _, c := range codes {
		terms = append(terms, term.List(term.Int(c)), term.List(term.Int('a'), term.Int(c)),
			term.List(term.Int(c), term.Int(0xE9)))
		if c >= 0 && c <= 0x10FFFF {
			u := utf8.AppendRune(nil, rune(c))
			terms = append(terms, term.Binary(u), term.Binary(append([]byte("a"), u...)),
				term.Binary(append(slices.Clone(u), 0xE9)))
		}
	}
	for b := range 1 << 16 {
		terms = append(terms, term.Binary([]byte{byte(b >> 8), byte(b)}))
	}
	for b := range 256 {
		terms = append(terms, term.Binary([]byte{byte(b)}), term.Bitstring([]byte{byte(b)}, 7))
	}
	return terms
}

// TestPrintEdgesAgreeWithErlang: the edge cases of edgeTexts, P against
// ~0tp and W against ~tw.
func TestPrintEdgesAgreeWithErlang(t *testing.T) {
	vm := erlvm.ForTest(t)
	terms := edgeTexts()
	checkPrints(t, vm, "print_p", term.P, terms)
	checkPrints(t, vm, "print", term.W, terms)
}

// hasBigMap reports whether x holds a map of more than 32 entries.
func hasBigMap(x term.Term) bool {
	switch x.Kind() {
	case term.KindTuple:
		return slices.ContainsFunc(x.Elems(), hasBigMap)
	case term.KindList:
		return slices.ContainsFunc(x.Elems(), hasBigMap) || !x.IsProper() && hasBigMap(x.Tail())
	case term.KindMap:
		if x.Len() > 32 {
			return true
		}
		for _, e := range x.Entries() {
			if hasBigMap(e.Key) || hasBigMap(e.Value) {
				return true
			}
		}
	}
	return false
}

// withoutIDs replaces every pid, port and reference in x by an atom:
// Erlang prints them opaquely (<0.85.0>), this package with their node
// and creation.
func withoutIDs(x term.Term) term.Term {
	switch x.Kind() {
	case term.KindPid, term.KindPort, term.KindRef:
		return term.Atom("id")
	case term.KindTuple:
		es := slices.Clone(x.Elems())
		for i := range es {
			es[i] = withoutIDs(es[i])
		}
		return term.Tuple(es...)
	case term.KindList:
		es := slices.Clone(x.Elems())
		for i := range es {
			es[i] = withoutIDs(es[i])
		}
		if x.IsProper() {
			return term.List(es...)
		}
		return term.ImproperList(es, withoutIDs(x.Tail()))
	case term.KindMap:
		es := slices.Clone(x.Entries())
		for i := range es {
			es[i] = term.MapEntry{Key: withoutIDs(es[i].Key), Value: withoutIDs(es[i].Value)}
		}
		return term.Map(es...)
	}
	return x
}
