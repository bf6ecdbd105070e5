package etf_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/term"
)

// The properties against a live VM draw all their cases with rapid first,
// then check them in batches of a few hundred a call, so that 10,000 cases
// take seconds. A failing case is reported with its text and bytes. They
// share one VM (erlvm.Shared): starting one costs more than most of them.

const batch = 500

// collect draws checks() values with gen.
func collect[V any](t *testing.T, gen *rapid.Generator[V]) []V {
	var out []V
	rapid.Check(t, func(rt *rapid.T) { out = append(out, gen.Draw(rt, "case")) })
	return out
}

func call(t *testing.T, vm *erlvm.VM, fn string, arg term.Term) []term.Term {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := vm.Call(ctx, fn, arg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind() != term.KindList {
		t.Fatalf("%s: a reply that is no list: %v", fn, r)
	}
	return r.Elems()
}

func encode(t *testing.T, o etf.Options, x term.Term) []byte {
	t.Helper()
	b, err := o.Encode(x)
	if err != nil {
		t.Fatalf("Encode(%v): %v", x, err)
	}
	return b
}

func atom(s string) term.Term { return term.Atom(s) }

// reencode has the VM read each of bins and write it with opts.
func reencode(t *testing.T, vm *erlvm.VM, bins [][]byte, opts term.Term) []term.Term {
	args := make([]term.Term, len(bins))
	for i, b := range bins {
		args[i] = term.Binary(b)
	}
	return call(t, vm, "reencode", term.Tuple(term.List(args...), opts))
}

// The VM reads this project's bytes, and its term_to_binary of what it
// read is those bytes again: under the default options (OTP 25's
// term_to_binary/1), minor_version 0 and minor_version 2 (OTP 26's
// default). Compressed bytes differ from zlib's, so for compression the
// VM must read ours and we must read the VM's, to the same term.
func TestVMReadsOurBytes(t *testing.T) {
	vm := erlvm.Shared(t)
	terms := collect(t, rapid.Custom(func(rt *rapid.T) term.Term { return drawTerm(rt, 3, 32) }))
	type variant struct {
		name string
		o    etf.Options
		opts term.Term
	}
	o0, _ := etf.Options{}.WithMinorVersion(0)
	variants := []variant{
		{"default", etf.Options{}, term.List()},
		{"minor_version 0", o0, term.List(term.Tuple(atom("minor_version"), term.Int(0)))},
		{"minor_version 2", etf.OTP26, term.List(term.Tuple(atom("minor_version"), term.Int(2)))},
	}
	for _, v := range variants {
		for lo := 0; lo < len(terms); lo += batch {
			part := terms[lo:min(lo+batch, len(terms))]
			bins := make([][]byte, len(part))
			for i, x := range part {
				bins[i] = encode(t, v.o, x)
			}
			for i, r := range reencode(t, vm, bins, v.opts) {
				got := r.Elems()[1]
				if r.Elems()[0].Atom() != "ok" {
					t.Fatalf("%s: the VM cannot read %v\nbytes %v: %s", v.name, part[i], bins[i], got.Bytes())
				}
				if !bytes.Equal(got.Bytes(), bins[i]) {
					t.Fatalf("%s: %v\nours    %v\nthe VM's %v", v.name, part[i], bins[i], got.Bytes())
				}
			}
		}
	}
	// Compression: ours read by the VM, the VM's read by us.
	compressed := etf.Options{Compression: etf.DefaultCompression}
	for lo := 0; lo < len(terms); lo += batch {
		part := terms[lo:min(lo+batch, len(terms))]
		pairs := make([]term.Term, len(part))
		plain := make([][]byte, len(part))
		for i, x := range part {
			plain[i] = encode(t, etf.Options{}, x)
			pairs[i] = term.Tuple(term.Binary(encode(t, compressed, x)), term.Binary(plain[i]))
		}
		for i, same := range call(t, vm, "same", term.List(pairs...)) {
			if same.Atom() != "true" {
				t.Fatalf("the VM reads our compressed %v as another term", part[i])
			}
		}
		for i, r := range reencode(t, vm, plain, term.List(atom("compressed"))) {
			b := r.Elems()[1].Bytes()
			got, err := etf.Decode(b)
			if err != nil || !term.Equal(got, part[i]) {
				t.Fatalf("the VM's compressed %v: %v, %v", part[i], got, err)
			}
		}
	}
}

// This project reads what the VM writes for terms the VM generates, and
// writes them again as the VM does (maps of more than 32 keys with atom,
// pid, port or reference keys excepted, whose hashes only that VM knows).
func TestVMWritesWeRead(t *testing.T) {
	vm := erlvm.Shared(t)
	seed := vmSeed()
	t.Logf("VM generator seed %d", seed)
	n, exact, hashed := 0, 0, 0
	for n < checks() {
		k := min(batch, checks()-n)
		bins := call(t, vm, "generate", term.Tuple(term.Int(seed+int64(n)), term.Int(int64(k))))
		pairs := make([]term.Term, len(bins))
		for i, bt := range bins {
			b := bt.Bytes()
			x, err := etf.Decode(b)
			if err != nil {
				t.Fatalf("Decode of the VM's %v: %v", b, err)
			}
			ours := encode(t, etf.Options{}, x)
			if large := maxMapSize(x) > 32; asErts(x) {
				if !bytes.Equal(ours, b) {
					t.Fatalf("%v\nthe VM's %v\nours     %v", x, b, ours)
				}
				exact++
				if large {
					hashed++
				}
			}
			pairs[i] = term.Tuple(term.Binary(b), term.Binary(ours))
		}
		for i, same := range call(t, vm, "same", term.List(pairs...)) {
			if same.Atom() != "true" {
				t.Fatalf("we read the VM's %v as another term", bins[i])
			}
		}
		n += k
	}
	t.Logf("%d terms from the VM read; %d of them written byte for byte as the VM does, %d of those with maps of more than 32 keys", n, exact, hashed)
}

// lists:sort in the VM equals a sort in CompareErlang's order: the VM's
// result is sorted in that order, and it holds the same terms, position
// for position up to ==.
func TestVMSortOrder(t *testing.T) {
	vm := erlvm.Shared(t)
	lists := collect(t, rapid.Custom(func(rt *rapid.T) []term.Term {
		n := rapid.IntRange(2, 10).Draw(rt, "len")
		s := make([]term.Term, n)
		for i := range s {
			s[i] = drawSortable(rt, 2)
		}
		return s
	}))
	for lo := 0; lo < len(lists); lo += batch {
		part := lists[lo:min(lo+batch, len(lists))]
		args := make([]term.Term, len(part))
		for i, l := range part {
			args[i] = term.List(l...)
		}
		for i, sorted := range call(t, vm, "sort", term.List(args...)) {
			vmOrder := sorted.Elems()
			ours := slices.Clone(part[i])
			slices.SortStableFunc(ours, term.CompareErlang)
			for j := range ours {
				if j > 0 && term.CompareErlang(vmOrder[j-1], vmOrder[j]) > 0 {
					t.Fatalf("the VM sorts %v before %v", vmOrder[j-1], vmOrder[j])
				}
				if !term.ArithEqual(ours[j], vmOrder[j]) {
					t.Fatalf("sort of %v:\nthe VM %v\nours   %v", term.List(part[i]...), sorted, term.List(ours...))
				}
			}
		}
	}
}

// ==, =:= and < in the VM agree with ArithEqual, Equal and CompareErlang,
// for pairs that are often equal or nearly so.
func TestVMEquality(t *testing.T) {
	vm := erlvm.Shared(t)
	pairs := collect(t, rapid.Custom(func(rt *rapid.T) [2]term.Term {
		a := drawSortable(rt, 2)
		switch rapid.IntRange(0, 2).Draw(rt, "pair") {
		case 0:
			return [2]term.Term{a, a}
		case 1:
			return [2]term.Term{a, nudge(rt, a)}
		}
		return [2]term.Term{a, drawSortable(rt, 2)}
	}))
	var counts [3]int
	for lo := 0; lo < len(pairs); lo += batch {
		part := pairs[lo:min(lo+batch, len(pairs))]
		args := make([]term.Term, len(part))
		for i, p := range part {
			args[i] = term.Tuple(p[0], p[1])
		}
		for i, r := range call(t, vm, "compare", term.List(args...)) {
			a, b := part[i][0], part[i][1]
			e := r.Elems()
			eq, exact, less := e[0].Atom() == "true", e[1].Atom() == "true", e[2].Atom() == "true"
			if term.ArithEqual(a, b) != eq || term.Equal(a, b) != exact || (term.CompareErlang(a, b) < 0) != less {
				t.Fatalf("%v vs %v: the VM says == %v, =:= %v, < %v; we say %v, %v, %v", a, b, eq, exact, less,
					term.ArithEqual(a, b), term.Equal(a, b), term.CompareErlang(a, b) < 0)
			}
			if exact {
				counts[0]++
			} else if eq {
				counts[1]++
			} else {
				counts[2]++
			}
		}
	}
	t.Logf("pairs: %d =:=, %d == but not =:=, %d different", counts[0], counts[1], counts[2])
}

// nudge returns a term near x: a number turned into its float or integer
// twin, or one element of a compound nudged.
func nudge(rt *rapid.T, x term.Term) term.Term {
	switch x.Kind() {
	case term.KindInt:
		if x.IsInt64() {
			return term.Float(float64(x.Int64()))
		}
	case term.KindFloat:
		if f := x.Float(); f == float64(int64(f)) {
			return term.Int(int64(f))
		}
	case term.KindTuple, term.KindList:
		es := slices.Clone(x.Elems())
		if len(es) > 0 {
			i := rapid.IntRange(0, len(es)-1).Draw(rt, "at")
			es[i] = nudge(rt, es[i])
			if x.Kind() == term.KindTuple {
				return term.Tuple(es...)
			}
			if x.IsProper() {
				return term.List(es...)
			}
			return term.ImproperList(es, x.Tail())
		}
	case term.KindMap:
		es := slices.Clone(x.Entries())
		if len(es) > 0 {
			i := rapid.IntRange(0, len(es)-1).Draw(rt, "at")
			if rapid.Bool().Draw(rt, "key") {
				es[i].Key = nudge(rt, es[i].Key)
			} else {
				es[i].Value = nudge(rt, es[i].Value)
			}
			return term.Map(es...)
		}
	}
	return drawSortable(rt, 0)
}

// A map's key order in the VM (maps:to_list, up to 32 keys) is the order
// term.Map keeps its entries in, and the order the sext encoder writes
// them in.
func TestVMMapKeyOrder(t *testing.T) {
	vm := erlvm.Shared(t)
	maps := collect(t, rapid.Custom(func(rt *rapid.T) term.Term {
		n := rapid.IntRange(1, 32).Draw(rt, "keys")
		es := make([]term.MapEntry, n)
		for i := range es {
			es[i] = term.MapEntry{Key: drawSortable(rt, 1), Value: term.Int(int64(i))}
		}
		return term.Map(es...)
	}))
	for lo := 0; lo < len(maps); lo += batch {
		part := maps[lo:min(lo+batch, len(maps))]
		for i, keys := range call(t, vm, "map_keys", term.List(part...)) {
			m := part[i]
			vmKeys := keys.Elems()
			es := m.Entries()
			if len(vmKeys) != len(es) {
				t.Fatalf("%v: the VM has %d keys, we %d", m, len(vmKeys), len(es))
			}
			for j := range es {
				if !term.Equal(es[j].Key, vmKeys[j]) {
					t.Fatalf("%v: key %d is %v in the VM, %v here", m, j, vmKeys[j], es[j].Key)
				}
			}
			// sext writes node names in Latin-1, as the reference does on
			// OTP 25, and refuses the others.
			if err := sextReadsBack(t, sext.Options{UTF8Atoms: true}, m); err != nil &&
				!(errors.Is(err, sext.ErrUnencodable) && nodeBeyondLatin1(m)) {
				t.Fatal(err)
			}
		}
	}
}

// sextReadsBack checks that m's sext encoding under o decodes
// canonically to m, its entries in the order term.Map keeps; it returns
// the encoder's error.
func sextReadsBack(t *testing.T, o sext.Options, m term.Term) error {
	t.Helper()
	b, err := o.Encode(m)
	if err != nil {
		return err
	}
	o.Canonical = true
	if back, err := o.Decode(b); err != nil || !term.Equal(back, m) {
		t.Fatalf("sext of %v: %v, %v", m, back, err)
	}
	return nil
}

// OTP 25's map key order lets 0.0 and -0.0 tie and goes on to what
// follows them. Maps whose keys hold signed zeros ahead of the part that
// tells them apart come back from the VM in term.Map's order, and the
// VM's term_to_binary of them is our bytes.
func TestVMMapKeyOrderSignedZeros(t *testing.T) {
	vm := erlvm.Shared(t)
	zero := func(rt *rapid.T, label string) term.Term {
		return term.Float(math.Copysign(0, rapid.SampledFrom([]float64{1, -1}).Draw(rt, label)))
	}
	maps := collect(t, rapid.Custom(func(rt *rapid.T) term.Term {
		es := make([]term.MapEntry, rapid.IntRange(2, 32).Draw(rt, "keys"))
		for i := range es {
			id := term.Int(int64(i)) // tells the keys apart
			var k term.Term
			switch rapid.IntRange(0, 2).Draw(rt, "shape") {
			case 0:
				k = term.Tuple(zero(rt, "z"), id)
			case 1:
				k = term.List(zero(rt, "z"), zero(rt, "z"), id)
			default:
				k = term.ImproperList([]term.Term{term.List(), zero(rt, "z")}, id)
			}
			es[i] = term.MapEntry{Key: k, Value: id}
		}
		return term.Map(es...)
	}))
	for lo := 0; lo < len(maps); lo += batch {
		part := maps[lo:min(lo+batch, len(maps))]
		bins := make([][]byte, len(part))
		for i, m := range part {
			bins[i] = encode(t, etf.Options{}, m)
		}
		vmBytes := reencode(t, vm, bins, term.List())
		for i, keys := range call(t, vm, "map_keys", term.List(part...)) {
			m := part[i]
			for j, e := range m.Entries() {
				if !term.Equal(e.Key, keys.Elems()[j]) {
					t.Fatalf("%v: key %d is %v in the VM, %v here", m, j, keys.Elems()[j], e.Key)
				}
			}
			r := vmBytes[i].Elems()
			if r[0].Atom() != "ok" {
				t.Fatalf("the VM cannot read %v: %s", m, r[1].Bytes())
			}
			if !bytes.Equal(r[1].Bytes(), bins[i]) {
				t.Fatalf("%v:\nours     %v\nthe VM's %v", m, bins[i], r[1].Bytes())
			}
			if err := sextReadsBack(t, sext.Options{}, m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// term.W writes what io:format("~tw") writes on OTP 25 (~w
// without t escapes characters beyond Latin-1 as \x{...}), for terms
// without pids, ports and references (which Erlang prints opaquely and
// this project with their node and creation). Maps print in key order.
func TestVMPrint(t *testing.T) {
	vm := erlvm.Shared(t)
	terms := collect(t, rapid.Custom(func(rt *rapid.T) term.Term { return withoutIDs(drawTermOf(rt, 3, 32, false)) }))
	for lo := 0; lo < len(terms); lo += batch {
		part := terms[lo:min(lo+batch, len(terms))]
		for i, text := range call(t, vm, "print", term.List(part...)) {
			if got := term.W.Text(part[i]); got != string(text.Bytes()) {
				t.Fatalf("printed\n%s\nthe VM's ~tw\n%s", got, text.Bytes())
			}
		}
	}
}

// withoutIDs replaces every pid, port and reference in x by an atom.
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

// The cases the issue found, as the VM orders them.
func TestVMOrderExamples(t *testing.T) {
	vm := erlvm.Shared(t)
	pid := func(n string, id, ser, cre uint32) term.Term {
		return term.Pid{Node: n, ID: id, Serial: ser, Creation: cre}.Term()
	}
	port := func(n string, id uint64, cre uint32) term.Term {
		return term.Port{Node: n, ID: id, Creation: cre}.Term()
	}
	cases := [][2]term.Term{
		{pid("a@h", 900, 0, 0), pid("a@h", 30, 2, 0)},
		{port("b@h", 722, 1), port("b@h", 433, 3)},
		{port("a@hh", 741, 1), port("nonode@nohost", 45, 0)},
		{pid("z@h", 1, 0, 0), pid("a@h", 2, 0, 0)}, // pids: id before node
		{term.Ref{Node: "a@h", Creation: 1, IDs: []uint32{9, 1}}.Term(), term.Ref{Node: "a@h", Creation: 1, IDs: []uint32{1, 2}}.Term()},
		{term.Ref{Node: "a@h", Creation: 1, IDs: []uint32{9, 9}}.Term(), term.Ref{Node: "a@h", Creation: 1, IDs: []uint32{1, 1, 1}}.Term()},
	}
	args := make([]term.Term, len(cases))
	for i, c := range cases {
		args[i] = term.Tuple(c[0], c[1])
		if term.CompareErlang(c[0], c[1]) >= 0 {
			t.Errorf("CompareErlang(%v, %v) >= 0", c[0], c[1])
		}
	}
	for i, r := range call(t, vm, "compare", term.List(args...)) {
		if r.Elems()[2].Atom() != "true" {
			t.Errorf("the VM does not sort %v before %v", cases[i][0], cases[i][1])
		}
	}
	// OTP 25's =:= does not tell 0.0 from -0.0; Equal does (as OTP 27 does).
	r := call(t, vm, "compare", term.List(term.Tuple(term.Float(0), term.Float(negZero()))))
	if e := r[0].Elems(); e[1].Atom() != "true" || term.Equal(term.Float(0), term.Float(negZero())) || !term.ArithEqual(term.Float(0), term.Float(negZero())) {
		t.Errorf("0.0 vs -0.0: the VM says %v", r[0])
	}
}

func negZero() float64 { z := 0.0; return -z }

var _ = fmt.Sprint

// nodeBeyondLatin1 reports whether a pid, port or reference in t (a map
// key of drawSortable's: tuples, lists and maps of leaves) has a node name
// with a character beyond Latin-1.
func nodeBeyondLatin1(t term.Term) bool {
	var node string
	switch t.Kind() {
	case term.KindPid:
		node = t.Pid().Node
	case term.KindPort:
		node = t.Port().Node
	case term.KindRef:
		node = t.Ref().Node
	case term.KindTuple:
		return slices.ContainsFunc(t.Elems(), nodeBeyondLatin1)
	case term.KindList:
		return slices.ContainsFunc(t.Elems(), nodeBeyondLatin1) || !t.IsProper() && nodeBeyondLatin1(t.Tail())
	case term.KindMap:
		for _, e := range t.Entries() {
			if nodeBeyondLatin1(e.Key) || nodeBeyondLatin1(e.Value) {
				return true
			}
		}
	}
	for _, r := range node {
		if r > 0xff {
			return true
		}
	}
	return false
}
