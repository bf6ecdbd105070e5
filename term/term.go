// Package term models Erlang terms as sext encodes them: integers of any
// size, floats, atoms, binaries and bitstrings, tuples, lists proper and
// improper, maps, pids, ports, references, and the descending wrapper Desc.
//
// A Term is a small value (two machine words) that holds integers, floats
// and atoms without allocating, in the manner of log/slog's Value. Compound
// terms point at a slice of their children, so a decoded tuple costs one
// allocation for all of its elements, and an integer beyond int64 points
// at its magnitude's words, with no big.Int of its own.
//
// The zero Term is the empty list [], Erlang's nil.
package term

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
	"unsafe"
)

// Kind says which type of term a Term holds.
type Kind uint8

// The kinds. Across kinds the encoding sorts Desc first, then numbers,
// atoms, references, ports, pids, tuples, maps, lists and binaries.
// KindBinaryPrefix is no value but a pattern element (see BinaryPrefix).
const (
	KindList         Kind = iota // proper or improper list; the zero Term is []
	KindDesc                     // a term that sorts in descending order
	KindInt                      // integer of any size
	KindFloat                    // float64, never NaN or infinite when encoded
	KindAtom                     // atom
	KindRef                      // reference
	KindPort                     // port
	KindPid                      // pid
	KindTuple                    // tuple
	KindMap                      // map
	KindBinary                   // binary or bitstring
	KindBinaryPrefix             // pattern element <<Prefix, _/binary>>: no value
)

var kindNames = [...]string{
	KindList:         "list",
	KindDesc:         "desc",
	KindInt:          "int",
	KindFloat:        "float",
	KindAtom:         "atom",
	KindRef:          "ref",
	KindPort:         "port",
	KindPid:          "pid",
	KindTuple:        "tuple",
	KindMap:          "map",
	KindBinary:       "binary",
	KindBinaryPrefix: "binary_prefix",
}

// String returns the kind's name in lower case.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Term is an Erlang term. Construct one with Int, Float, Atom, Binary,
// Tuple, List and the other constructors, or by parsing text with Parse.
// Terms are immutable once built: the constructors that take slices keep
// them, so the caller must not change a slice after handing it over.
//
// Terms cannot be compared with == or used as map keys: two equal terms may
// hold different pointers (an atom's name, a tuple's children). Use Equal,
// Compare, or the encoding as a key.
type Term struct {
	_ [0]func() // no ==: equal terms can differ in their pointers; use Equal
	// r is the term itself. Term has two fields and rep two: the
	// compiler keeps structs of up to four fields in registers (SSA), and a
	// fifth made Compare twice as slow.
	r rep
}

// rep is a term: two machine words, so that a slot of a tuple or list
// costs 16 bytes. Which bits mean what depends on the kind:
//   - a small integer (one that fits in an int64) and a float need all 64
//     bits of Num for their value, so their kind is in Ptr, which points
//     at kindMarks[kind];
//   - every other kind has its Kind in Num's top byte (kindShift), a flag
//     in bit 55 (flagBit: a list's improper tail, a bignum's sign), and
//     in the low bits (lenMask) a count: elements, entries, bytes of a
//     name, bits of a binary, words of a bignum's magnitude. Ptr points
//     at the children, the bytes, the words (little-endian, as
//     big.Int.Bits), or the Desc's, Pid's, Port's or Ref's cell; it may
//     be nil where the count is 0.
//
// The zero rep (nil, 0) is then the empty list. Only this package reads
// or writes a rep: decoders that manage memory build terms through
// Arena, DescOf, BigWords, MapPairs and SlotBinary.
type rep struct {
	Ptr unsafe.Pointer // children, bytes, name, words, *Pid, ... or a kind mark
	Num uint64         // int64 value or float bits; or kind, flag and count
}

const (
	kindShift = 56
	flagBit   = 1 << 55
	lenMask   = flagBit - 1
)

// kindMarks gives the kinds whose Num is all value (Int, Float) a pointer
// that says their kind: a pointer into a static array is a valid Go
// pointer, and no other term's pointer can fall inside it.
var kindMarks [16]byte

// mark returns the kind mark of k.
func mark(k Kind) unsafe.Pointer { return unsafe.Pointer(&kindMarks[k]) }

// mk returns the term of kind k with the given pointer and count (or
// flag and count).
func mk(k Kind, ptr unsafe.Pointer, n uint64) Term {
	return Term{r: rep{Ptr: ptr, Num: uint64(k)<<kindShift | n}}
}

// list returns the list of the n terms at ptr, the last its tail if tail.
func list(ptr unsafe.Pointer, n int, tail bool) Term {
	num := uint64(n)
	if tail {
		num |= flagBit
	}
	return Term{r: rep{Ptr: ptr, Num: num}} // KindList is 0
}

// n returns the count in a term's Num: see rep.
func (t Term) n() int { return int(t.r.Num & lenMask) }

// tail reports a list's improper-tail flag.
func (t Term) tail() bool { return t.r.Num&flagBit != 0 }

// Equal reports whether t and u are the same term, as Equal(t, u) does.
// go-cmp uses this method by itself.
func (t Term) Equal(u Term) bool { return Equal(t, u) }

// MapEntry is one key and value of a map.
type MapEntry struct {
	Key, Value Term
}

// Pid is an Erlang process identifier.
type Pid struct {
	Node     string // node name, as its atom's text
	ID       uint32
	Serial   uint32
	Creation uint32
}

// Port is an Erlang port identifier. IDs of 2^28 and above take the
// format's long form.
type Port struct {
	Node     string
	ID       uint64
	Creation uint32
}

// Ref is an Erlang reference: a creation and one or more 32-bit id words,
// in the order Erlang's external format lists them.
type Ref struct {
	Node     string
	Creation uint32
	IDs      []uint32
}

// Kind returns the term's kind.
func (t Term) Kind() Kind {
	if off := uintptr(t.r.Ptr) - uintptr(unsafe.Pointer(&kindMarks)); off < uintptr(len(kindMarks)) {
		return Kind(off)
	}
	return Kind(t.r.Num >> kindShift)
}

// Int returns the integer i.
func Int(i int64) Term { return Term{r: rep{Ptr: mark(KindInt), Num: uint64(i)}} }

// Uint returns the integer u. One beyond int64 allocates its magnitude.
func Uint(u uint64) Term {
	if u <= math.MaxInt64 {
		return Int(int64(u))
	}
	if bits.UintSize == 64 {
		return bigWords([]big.Word{big.Word(u)}, false)
	}
	return bigWords([]big.Word{big.Word(u), big.Word(u >> 32)}, false)
}

// BigInt returns the integer b. It copies b's magnitude (one allocation),
// and an integer that fits in an int64 is held as one, so every value has
// exactly one representation.
func BigInt(b *big.Int) Term {
	if b.IsInt64() {
		return Int(b.Int64())
	}
	return bigWords(slices.Clone(b.Bits()), b.Sign() < 0)
}

// bigWords returns the integer of magnitude w (normalized, beyond int64),
// negated if neg, keeping w.
func bigWords(w []big.Word, neg bool) Term {
	num := uint64(len(w))
	if neg {
		num |= flagBit
	}
	return mk(KindInt, unsafe.Pointer(unsafe.SliceData(w)), num)
}

// Float returns the float f. NaN and infinities can be held but not encoded:
// Erlang has neither.
func Float(f float64) Term { return Term{r: rep{Ptr: mark(KindFloat), Num: math.Float64bits(f)}} }

// Atom returns the atom with the given name (UTF-8 text).
func Atom(name string) Term {
	return mk(KindAtom, unsafe.Pointer(unsafe.StringData(name)), uint64(len(name)))
}

// Bool returns the atom true or false.
func Bool(b bool) Term {
	if b {
		return Atom("true")
	}
	return Atom("false")
}

// Binary returns the binary holding b. It keeps b without copying.
func Binary(b []byte) Term {
	return mk(KindBinary, unsafe.Pointer(unsafe.SliceData(b)), uint64(len(b))<<3)
}

// Bitstring returns the bitstring made of the first bits bits of b, most
// significant bit first. It panics if b is shorter than bits needs. The
// unused low bits of a partial last byte are taken as zero; b is copied
// only if they are not.
func Bitstring(b []byte, bits int) Term {
	n := (bits + 7) >> 3
	if bits < 0 || n > len(b) {
		panic("term: Bitstring: bit length out of range")
	}
	b = b[:n]
	if k := bits & 7; k != 0 && b[n-1]&(0xFF>>k) != 0 {
		b = slices.Clone(b)
		b[n-1] &^= 0xFF >> k
	}
	return mk(KindBinary, unsafe.Pointer(unsafe.SliceData(b)), uint64(bits))
}

// Tuple returns the tuple of elems. It keeps elems without copying.
func Tuple(elems ...Term) Term {
	return mk(KindTuple, unsafe.Pointer(unsafe.SliceData(elems)), uint64(len(elems)))
}

// List returns the proper list of elems. It keeps elems without copying.
func List(elems ...Term) Term {
	return list(unsafe.Pointer(unsafe.SliceData(elems)), len(elems), false)
}

// ImproperList returns [e1, ..., en | tail]. A list tail is joined on, as
// in Erlang ([a | [b]] is [a, b]), and no elements give the tail itself.
// It copies elems, in one allocation, since a list holds its tail after
// its elements in one slice; ListWithTail keeps a slice that already ends
// with the tail.
func ImproperList(elems []Term, tail Term) Term {
	if tail.Kind() == KindList {
		if len(elems) == 0 {
			return tail
		}
		all := make([]Term, 0, len(elems)+tail.n())
		all = append(append(all, elems...), tail.slice()...)
		return list(unsafe.Pointer(unsafe.SliceData(all)), len(all), tail.tail())
	}
	if len(elems) == 0 {
		return tail
	}
	all := append(elems[:len(elems):len(elems)], tail)
	return list(unsafe.Pointer(unsafe.SliceData(all)), len(all), true)
}

// ListWithTail returns the list whose elements are all of s but the last,
// and whose tail is the last: ListWithTail(a, b, t) is [a, b | t]. It keeps
// s without copying unless the tail is itself a list, which is joined on
// as ImproperList does.
func ListWithTail(s ...Term) Term {
	n := len(s)
	if n == 0 {
		return Term{}
	}
	if tail := s[n-1]; n == 1 || tail.Kind() == KindList {
		return ImproperList(s[:n-1], tail)
	}
	return list(unsafe.Pointer(unsafe.SliceData(s)), n, true)
}

// Map returns the map of entries. It takes entries over: they are sorted in
// place in Erlang's map key order (term order, except that all integers
// come before all floats and that 0.0 and -0.0 tie, as on OTP 25; keys
// that differ only there, -0.0 first), and of equal keys the last one is
// kept, as Erlang's maps:from_list does.
func Map(entries ...MapEntry) Term {
	byKey := func(a, b MapEntry) int { return compareKeys(a.Key, b.Key) }
	// One pass tells the common case, keys already strictly ascending (as
	// every decoded map from this encoder), which needs nothing more.
	strict := true
	for i := 1; i < len(entries) && strict; i++ {
		strict = byKey(entries[i-1], entries[i]) < 0
	}
	if strict {
		return mk(KindMap, unsafe.Pointer(unsafe.SliceData(entries)), uint64(len(entries)))
	}
	slices.SortStableFunc(entries, byKey)
	out := entries[:0]
	for i, e := range entries {
		if i+1 < len(entries) && compareKeys(e.Key, entries[i+1].Key) == 0 {
			continue
		}
		out = append(out, e)
	}
	return mk(KindMap, unsafe.Pointer(unsafe.SliceData(out)), uint64(len(out)))
}

// Term returns the pid as a term.
func (p Pid) Term() Term { return mk(KindPid, unsafe.Pointer(&p), 0) }

// Term returns the port as a term.
func (p Port) Term() Term { return mk(KindPort, unsafe.Pointer(&p), 0) }

// Term returns the reference as a term. The term keeps r.IDs.
func (r Ref) Term() Term { return mk(KindRef, unsafe.Pointer(&r), 0) }

// Desc returns t wrapped so that it sorts in descending order: for any a
// and b, Desc(a) sorts before Desc(b) exactly when a sorts after b. A Desc
// sorts before every term that is not one.
func Desc(t Term) Term { return mk(KindDesc, unsafe.Pointer(&t), 0) }

// Int64 returns the integer's value. It panics if t is not an integer that
// fits in an int64: test with IsInt64 first, as with math/big's Int.
func (t Term) Int64() int64 {
	if !t.IsInt64() {
		t.notInt64() // out of line, so that Int64 inlines
	}
	return int64(t.r.Num)
}

// intMark is mark(KindInt), read as one load where IsInt64 and Int64
// must inline.
var intMark = mark(KindInt)

//go:noinline
func (t Term) notInt64() {
	t.must(KindInt)
	panic("term: Int64 of an integer beyond int64")
}

// IsInt64 reports whether t is an integer that fits in an int64, the
// integers Int64 returns. Every other integer IsBig reports.
func (t Term) IsInt64() bool { return t.r.Ptr == intMark }

// BigInt returns the integer's value as a new big.Int, a copy that the
// caller owns and may change. It allocates; BigBits reads a bignum's
// magnitude without allocating. It panics if t is not an integer.
func (t Term) BigInt() *big.Int {
	if t.IsInt64() {
		return big.NewInt(int64(t.r.Num))
	}
	w, neg := t.BigBits()
	z := new(big.Int).SetBits(slices.Clone(w))
	if neg {
		z.Neg(z)
	}
	return z
}

// BigBits returns the magnitude of an integer beyond int64 as
// little-endian words, as big.Int.Bits gives them (normalized: the last
// word is not zero), and whether the integer is negative. The words are
// the term's own and must not be changed, as with Bytes; nothing is
// allocated. For an integer that fits in an int64 it returns nil, false:
// read those with Int64. It panics if t is not an integer.
func (t Term) BigBits() (words []big.Word, neg bool) {
	if t.IsInt64() {
		return nil, false
	}
	t.must(KindInt)
	return t.words(), t.tail()
}

// IsBig reports whether t is an integer that does not fit in an int64.
func (t Term) IsBig() bool { return t.Kind() == KindInt && !t.IsInt64() }

// words returns a bignum's magnitude.
func (t Term) words() []big.Word { return unsafe.Slice((*big.Word)(t.r.Ptr), t.n()) }

// Float returns the float's value. It panics if t is not a float.
func (t Term) Float() float64 {
	t.must(KindFloat)
	return math.Float64frombits(t.r.Num)
}

// Atom returns the atom's name. It panics if t is not an atom.
func (t Term) Atom() string {
	t.must(KindAtom)
	return t.name()
}

// Bytes returns a binary's or bitstring's bytes; a bitstring's partial last
// byte holds its trailing bits in the high end. It panics if t is not a
// binary. The caller must not change the bytes.
func (t Term) Bytes() []byte {
	t.must(KindBinary)
	return t.bytes()
}

// bytes is Bytes without the check, for callers that know the kind.
func (t Term) bytes() []byte { return unsafe.Slice((*byte)(t.r.Ptr), (t.n()+7)>>3) }

// name is Atom without the check, for callers that know the kind.
func (t Term) name() string { return unsafe.String((*byte)(t.r.Ptr), t.n()) }

// BitLen returns the length in bits of a binary or bitstring. It panics if
// t is not one.
func (t Term) BitLen() int {
	t.must(KindBinary)
	return t.n()
}

// Elems returns a tuple's elements, or a list's elements without its
// improper tail. It panics for other kinds. The caller must not change the
// slice.
func (t Term) Elems() []Term {
	if k := t.Kind(); k != KindTuple && k != KindList {
		panic(notElems(k)) // no call here, so that Elems inlines
	}
	// A list's improper tail is its last slot; only a list sets the flag.
	return unsafe.Slice((*Term)(t.r.Ptr), t.r.Num&lenMask-t.r.Num>>55&1)
}

// notElems is the panic of Elems on a term of another kind.
type notElems Kind

func (k notElems) Error() string { return "term: Elems of " + Kind(k).String() }

// Tail returns a list's tail: the empty list for a proper list, the
// improper tail otherwise. It panics if t is not a list.
func (t Term) Tail() Term {
	t.must(KindList)
	if !t.tail() {
		return Term{}
	}
	return t.slice()[t.n()-1]
}

// IsProper reports whether t is a proper list.
func (t Term) IsProper() bool { return t.Kind() == KindList && !t.tail() }

// Len returns the number of elements of a tuple or list (without an
// improper tail), the number of entries of a map, or the number of bytes
// of a binary or atom name. It returns 0 for other kinds.
func (t Term) Len() int {
	switch t.Kind() {
	case KindList:
		if t.tail() {
			return t.n() - 1
		}
		return t.n()
	case KindTuple, KindMap, KindAtom:
		return t.n()
	case KindBinary:
		return (t.n() + 7) >> 3
	}
	return 0
}

// Entries returns a map's entries in ascending map key order (see Map). It panics if t is
// not a map. The caller must not change the slice.
func (t Term) Entries() []MapEntry {
	t.must(KindMap)
	return unsafe.Slice((*MapEntry)(t.r.Ptr), t.n())
}

// Pid returns the pid t holds. It panics if t is not a pid.
func (t Term) Pid() Pid {
	t.must(KindPid)
	return *(*Pid)(t.r.Ptr)
}

// Port returns the port t holds. It panics if t is not a port.
func (t Term) Port() Port {
	t.must(KindPort)
	return *(*Port)(t.r.Ptr)
}

// Ref returns the reference t holds. It panics if t is not a reference.
func (t Term) Ref() Ref {
	t.must(KindRef)
	return *(*Ref)(t.r.Ptr)
}

// Inner returns the term a Desc wraps. It panics if t is not a Desc.
func (t Term) Inner() Term {
	t.must(KindDesc)
	return *(*Term)(t.r.Ptr)
}

// slice returns the children of a tuple or list, tail included.
func (t Term) slice() []Term { return unsafe.Slice((*Term)(t.r.Ptr), t.n()) }

func (t Term) must(k Kind) {
	if got := t.Kind(); got != k {
		panic(wrongKind{k, got}) // formatted when read, so that must and its callers inline
	}
}

// wrongKind is the panic of an accessor called on a term of another kind.
type wrongKind struct{ want, got Kind }

func (w wrongKind) Error() string {
	return "term: " + w.want.String() + " accessor called on " + w.got.String()
}
