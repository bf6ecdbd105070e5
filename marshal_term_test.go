package sext_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// A Go map's entries go in Erlang's map key order, where every integer
// comes before every float, not in the byte order of the keys' encodings
// (1.5 encodes below 2). The wanted bytes are put together by hand, key
// by key, so that they do not depend on term.Map's sorting.
func TestMarshalMapKeyOrder(t *testing.T) {
	v := map[any]int{1.5: 10, 2: 20, 1: 30, 1.0: 40, "a": 50}
	keys := []term.Term{term.Int(1), term.Int(2), term.Float(1.0), term.Float(1.5), term.Binary([]byte("a"))}
	vals := []int64{30, 20, 40, 10, 50}
	want := binary.BigEndian.AppendUint32([]byte{17, 1}, uint32(len(keys))) // a map: the list tag, the map mark, the size
	for i, k := range keys {
		for _, x := range []term.Term{k, term.Int(vals[i])} {
			enc, err := sext.Encode(x)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, enc...)
		}
	}
	got, err := sext.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Marshal(%v)\n= %x\nwant %x", v, got, want)
	}
	tm, err := sext.MarshalTerm(v)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range tm.Entries() {
		if !term.Equal(e.Key, keys[i]) {
			t.Fatalf("MarshalTerm entry %d key %s, want %s", i, e.Key, keys[i])
		}
	}
}

// MarshalTerm decodes an encoding it writes into a buffer it reuses: the
// term it returned must not change when later calls overwrite that buffer,
// nor when the value it came from changes.
func TestMarshalTermOwnsMemory(t *testing.T) {
	type key struct {
		Name  string `sext:",atom"`
		Bytes []byte
		Any   any
	}
	v := key{Name: "first", Bytes: []byte("aaaaaaaa"), Any: term.Binary([]byte("cccc"))}
	got, err := sext.MarshalTerm(&v)
	if err != nil {
		t.Fatal(err)
	}
	want := term.Tuple(term.Atom("first"), term.Binary([]byte("aaaaaaaa")), term.Binary([]byte("cccc")))
	for i := range 10 {
		w := key{Name: "other", Bytes: bytes.Repeat([]byte{byte('b' + i)}, 8), Any: term.Binary([]byte("dddd"))}
		if _, err := sext.MarshalTerm(w); err != nil {
			t.Fatal(err)
		}
	}
	copy(v.Bytes, "zzzzzzzz")
	if !term.Equal(got, want) {
		t.Fatalf("MarshalTerm's term changed to %s, want %s", got, want)
	}
}

// FuzzMarshalTerm marshals whatever term hostile bytes decode to, inside a
// struct: MarshalTerm must give the term back exactly, and Marshal the
// bytes Encode gives, or both the same failure.
func FuzzMarshalTerm(f *testing.F) {
	for _, s := range []string{"{user,42,<<\"alice\">>}", "[1,2|3]", "#{a => 1.5,2 => -7}", "#Desc<{x,'_'}>", "<<1:3>>"} {
		tm, err := term.Parse(s)
		if err != nil {
			f.Fatal(err)
		}
		enc, err := sext.Encode(tm)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	type wrap struct {
		T term.Term
		N int
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := sext.Decode(b)
		if err != nil {
			return
		}
		want := term.Tuple(x, term.Int(7))
		e, eerr := sext.Encode(want)
		got, err := sext.MarshalTerm(wrap{x, 7})
		if err != nil {
			if eerr == nil { // the one level more may pass MaxDepth: then both fail
				t.Fatalf("MarshalTerm of %s: %v", x, err)
			}
			return
		}
		if !term.Equal(got, want) {
			t.Fatalf("MarshalTerm = %s, want %s", got, want)
		}
		m, merr := sext.Marshal(wrap{x, 7})
		if (merr == nil) != (eerr == nil) || !bytes.Equal(m, e) {
			t.Fatalf("Marshal = %x, %v; Encode = %x, %v", m, merr, e, eerr)
		}
	})
}
