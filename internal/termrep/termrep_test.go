package termrep_test

import (
	"math/big"
	"runtime"
	"testing"
	"unsafe"

	"github.com/erlsext/sext/internal/termrep"
	"github.com/erlsext/sext/term"
)

// A term built by term's constructors reads back through Of with the
// fields termrep documents, and a Rep made here is the term To says.
func TestRepIsTerm(t *testing.T) {
	name := "xyz"
	a := term.Atom(name)
	if r := termrep.Of(&a); r.Ptr != unsafe.Pointer(unsafe.StringData(name)) || r.Num != 3 || r.Kind != termrep.Atom {
		t.Errorf("Atom's Rep = %+v", *r)
	}
	l := term.ImproperList([]term.Term{term.Int(1)}, term.Atom("t"))
	if r := termrep.Of(&l); !r.Tail || r.Num != 2 || r.Kind != termrep.List {
		t.Errorf("[1|t]'s Rep = %+v", *r)
	}
	if got := termrep.To[term.Term](termrep.Rep{Kind: termrep.Int, Num: uint64(1<<64 - 5)}); !term.Equal(got, term.Int(-5)) {
		t.Errorf("Rep of -5 is %v", got)
	}
	// Setting the pointer word through Of changes the term.
	b1, b2 := []byte("ab"), []byte("cd")
	bin := term.Binary(b1)
	termrep.Of(&bin).Ptr = unsafe.Pointer(&b2[0])
	if string(bin.Bytes()) != "cd" {
		t.Errorf("binary after moving its pointer: %q", bin.Bytes())
	}
}

// BigInt keeps its big.Int, and holds one that fits in an int64 as one.
func TestBigIntKeeps(t *testing.T) {
	z := new(big.Int).Lsh(big.NewInt(1), 100)
	x := termrep.To[term.Term](termrep.BigInt(z))
	if !x.IsBig() || x.BigInt() != z || !term.Equal(x, term.BigInt(z)) {
		t.Errorf("BigInt(2^100) = %v, its big.Int %p, want %p", x, x.BigInt(), z)
	}
	small := termrep.To[term.Term](termrep.BigInt(big.NewInt(-7)))
	if !small.IsInt64() || small.Int64() != -7 {
		t.Errorf("BigInt(-7) = %v, not held as an int64", small)
	}
}

// DescOf keeps the inner term where it is: changing it changes the Desc.
func TestDescOfKeeps(t *testing.T) {
	cell := term.Int(1)
	d := termrep.To[term.Term](termrep.DescOf(unsafe.Pointer(&cell)))
	if d.Kind() != term.KindDesc || !term.Equal(d, term.Desc(term.Int(1))) {
		t.Fatalf("DescOf(1) = %v", d)
	}
	cell = term.Int(2)
	if !term.Equal(d.Inner(), term.Int(2)) {
		t.Errorf("DescOf copied its inner term: %v", d.Inner())
	}
}

// A big.Int in BigSlots slots of terms keeps its words alive: the
// collector sees its slice pointer in a slot's pointer word.
func TestBigInSlots(t *testing.T) {
	if !termrep.BigSlotsOK {
		t.Fatal("math/big's layout does not fit two slots: the decoders fall back to allocating")
	}
	slots := make([]term.Term, termrep.BigSlots)
	z := termrep.BigIn(unsafe.Pointer(&slots[0]))
	want := new(big.Int).Lsh(big.NewInt(3), 200)
	z.Set(want) // words from the heap, referenced only from slots
	want = new(big.Int).Set(want)
	for range 3 {
		runtime.GC()
		_ = make([]big.Word, 1<<10) // reuse what a lost pointer would free
	}
	if z.Cmp(want) != 0 {
		t.Errorf("big.Int in slots = %v after GC, want %v", z, want)
	}
	x := termrep.To[term.Term](termrep.BigInt(z))
	if x.BigInt() != z {
		t.Errorf("term of the slots' big.Int holds %p, want %p", x.BigInt(), z)
	}
	runtime.KeepAlive(slots)
}
