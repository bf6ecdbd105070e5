package sext

import (
	"bytes"
	"math/big"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// deeperThan reports whether t nests more than limit compounds, walking
// with an explicit stack: t is built in code, so no input bounds it.
func deeperThan(t term.Term, limit int) bool {
	if !isCompound(t.Kind()) {
		return false
	}
	root := [1]term.Term{t}
	st := [][]term.Term{root[:]} // runs of siblings, one a level
	for len(st) > 0 {
		top := st[len(st)-1]
		if len(top) == 0 {
			st = st[:len(st)-1]
			continue
		}
		x := top[0]
		st[len(st)-1] = top[1:]
		if !isCompound(x.Kind()) {
			continue
		}
		if len(st) > limit {
			return true
		}
		switch x.Kind() {
		case term.KindTuple:
			st = append(st, x.Elems())
		case term.KindList:
			kids := x.Elems()
			if !x.IsProper() { // the tail too, in a copy
				kids = append(kids[:len(kids):len(kids)], x.Tail())
			}
			st = append(st, kids)
		case term.KindMap:
			st = append(st, term.EntryTerms(x.Entries()))
		default: // term.KindDesc
			st = append(st, []term.Term{x.Inner()})
		}
	}
	return false
}

func unmarshalTerm(t term.Term, rv reflect.Value) error {
	e := rv.Elem()
	if err := codecFor(e.Type(), codecOpts{}).dec(t, e); err != nil {
		return atRoot(err, e.Type())
	}
	return nil
}

// describe names a term briefly for an error message.
func describe(t term.Term) string {
	k := t.Kind().String()
	switch t.Kind() {
	case term.KindInt, term.KindFloat, term.KindAtom:
		if t.IsBig() {
			// The decimal text of a large integer costs more than linear
			// time: a hostile key's error message must not.
			if words, _ := t.BigBits(); len(words) > 2 {
				n := (len(words)-1)*bits.UintSize + bits.Len(uint(words[len(words)-1]))
				return k + " of " + strconv.Itoa(n) + " bits"
			}
		}
		s := t.String()
		if len(s) > 40 {
			s = strings.ToValidUTF8(s[:40], "") + "…"
		}
		return k + " " + s
	case term.KindTuple:
		return "tuple of " + strconv.Itoa(t.Len())
	case term.KindList:
		if !t.IsProper() {
			return "improper list"
		}
		return "list of " + strconv.Itoa(t.Len())
	case term.KindMap:
		return "map of " + strconv.Itoa(t.Len())
	case term.KindBinary:
		if t.BitLen()%8 != 0 {
			return "bitstring of " + strconv.Itoa(t.BitLen()) + " bits"
		}
		return "binary of " + strconv.Itoa(t.Len()) + " bytes"
	}
	return k
}

func typeErr(t term.Term, v reflect.Value, detail string) error {
	return &UnmarshalTypeError{Value: describe(t), Type: v.Type(), Detail: detail}
}

func isUndefined(t term.Term) bool { return t.Kind() == term.KindAtom && t.Atom() == "undefined" }

func decodeUnmarshaler(t term.Term, v reflect.Value) error {
	if err := v.Addr().Interface().(Unmarshaler).UnmarshalTerm(t); err != nil {
		return &MarshalerError{Type: v.Type(), Func: "UnmarshalTerm", Err: err}
	}
	return nil
}

func decodeTermValue(t term.Term, v reflect.Value) error {
	*v.Addr().Interface().(*term.Term) = t
	return nil
}

func decodeBool(t term.Term, v reflect.Value) error {
	if t.Kind() == term.KindAtom {
		switch t.Atom() {
		case "true":
			v.SetBool(true)
			return nil
		case "false":
			v.SetBool(false)
			return nil
		}
	}
	return typeErr(t, v, "")
}

func decodeInt(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindInt {
		return typeErr(t, v, "")
	}
	if !t.IsInt64() || v.OverflowInt(t.Int64()) {
		return typeErr(t, v, "out of range")
	}
	v.SetInt(t.Int64())
	return nil
}

func decodeUint(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindInt {
		return typeErr(t, v, "")
	}
	var u uint64
	if t.IsInt64() && t.Int64() >= 0 {
		u = uint64(t.Int64())
	} else if w, neg := t.BigBits(); !neg && len(w) > 0 && len(w)*bits.UintSize <= 64 {
		// A bignum of 64 bits or fewer: between 2^63 and 2^64-1.
		u = uint64(w[0])
		if len(w) == 2 { // 32-bit words
			u |= uint64(w[1]) << 32
		}
	} else {
		return typeErr(t, v, "out of range")
	}
	if v.OverflowUint(u) {
		return typeErr(t, v, "out of range")
	}
	v.SetUint(u)
	return nil
}

func decodeFloat(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindFloat {
		return typeErr(t, v, "")
	}
	f := t.Float()
	if v.Kind() == reflect.Float32 && float64(float32(f)) != f {
		return typeErr(t, v, "not exact in a float32")
	}
	v.SetFloat(f)
	return nil
}

// wholeBytes returns a binary's bytes, or false for other terms and
// bitstrings.
func wholeBytes(t term.Term) ([]byte, bool) {
	if t.Kind() != term.KindBinary || t.BitLen()%8 != 0 {
		return nil, false
	}
	return t.Bytes(), true
}

func decodeBinaryString(t term.Term, v reflect.Value) error {
	b, ok := wholeBytes(t)
	if !ok {
		return typeErr(t, v, "want a binary")
	}
	v.SetString(string(b))
	return nil
}

func decodeAtomString(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindAtom {
		return typeErr(t, v, "want an atom")
	}
	v.SetString(strings.Clone(t.Atom()))
	return nil
}

func decodeCharlist(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindList || !t.IsProper() {
		return typeErr(t, v, "want a list of characters")
	}
	var b []byte
	for _, c := range t.Elems() {
		if !c.IsInt64() || c.Int64() < 0 || c.Int64() > utf8.MaxRune || !utf8.ValidRune(rune(c.Int64())) {
			return typeErr(t, v, "want a list of characters, found "+describe(c))
		}
		b = utf8.AppendRune(b, rune(c.Int64()))
	}
	v.SetString(string(b))
	return nil
}

func decodeBytes(t term.Term, v reflect.Value) error {
	b, ok := wholeBytes(t)
	if !ok {
		return typeErr(t, v, "want a binary")
	}
	if v.Kind() == reflect.Array {
		if len(b) != v.Len() {
			return typeErr(t, v, "want "+strconv.Itoa(v.Len())+" bytes")
		}
		copy(v.Bytes(), b)
		return nil
	}
	if len(b) == 0 {
		v.SetZero()
		return nil
	}
	v.SetBytes(bytes.Clone(b))
	return nil
}

func decodeTime(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindInt {
		return typeErr(t, v, "want an integer of nanoseconds")
	}
	if t.IsInt64() {
		v.Set(reflect.ValueOf(time.Unix(0, t.Int64()).UTC()))
		return nil
	}
	sec, ns := new(big.Int).DivMod(t.BigInt(), big.NewInt(nsPerSec), new(big.Int))
	if !sec.IsInt64() {
		return typeErr(t, v, "out of range")
	}
	v.Set(reflect.ValueOf(time.Unix(sec.Int64(), ns.Int64()).UTC()))
	return nil
}

func decodeBig(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindInt {
		return typeErr(t, v, "")
	}
	dst := v.Addr().Interface().(*big.Int)
	if t.IsInt64() {
		dst.SetInt64(t.Int64())
		return nil
	}
	// Set copies the words (into dst's own, if they fit); z only reads
	// the term's.
	w, neg := t.BigBits()
	var z big.Int
	dst.Set(z.SetBits(w))
	if neg {
		dst.Neg(dst)
	}
	return nil
}

func seqDecoder(elem *codec, tuple bool) decodeFunc {
	return func(t term.Term, v reflect.Value) error {
		switch {
		case tuple && t.Kind() != term.KindTuple:
			return typeErr(t, v, "want a tuple")
		case !tuple && (t.Kind() != term.KindList || !t.IsProper()):
			return typeErr(t, v, "want a list")
		}
		elems := t.Elems()
		switch {
		case v.Kind() == reflect.Array:
			if len(elems) != v.Len() {
				return typeErr(t, v, "want "+strconv.Itoa(v.Len())+" elements")
			}
		case len(elems) == 0:
			v.SetZero()
		default:
			v.Set(reflect.MakeSlice(v.Type(), len(elems), len(elems)))
		}
		for i, x := range elems {
			if err := elem.dec(x, v.Index(i)); err != nil {
				return withPath(err, indexSeg(i))
			}
		}
		return nil
	}
}

// decodeInterfaceKey sets a map key of interface type. A term.Term is not
// comparable, so it cannot be a Go map key: the key gets a comparable Go
// value, the one Marshal writes as the same term where there is one (an
// int64, a float64, a string for a binary, a bool for true and false, nil
// for undefined) and an atom's name as a string for other atoms, as
// Erlang maps keyed by atoms are common. Any other key is refused, naming
// it, and so are two keys that give the same value (mapDecoder).
func decodeInterfaceKey(t term.Term, v reflect.Value) error {
	var x any
	switch t.Kind() {
	case term.KindInt:
		if t.IsInt64() {
			x = t.Int64()
		}
	case term.KindFloat:
		x = t.Float()
	case term.KindBinary:
		if t.BitLen()%8 == 0 {
			x = string(t.Bytes())
		}
	case term.KindAtom:
		switch name := t.Atom(); name {
		case "true", "false":
			x = name == "true"
		case "undefined":
			v.SetZero()
			return nil
		default:
			x = name
		}
	}
	if x == nil {
		return typeErr(t, v, "a map key of interface type must be an integer that fits int64, a float, a binary or an atom (a term.Term is not comparable)")
	}
	v.Set(reflect.ValueOf(x))
	return nil
}

func mapDecoder(key, val *codec) decodeFunc {
	return func(t term.Term, v reflect.Value) error {
		if t.Kind() != term.KindMap {
			return typeErr(t, v, "want a map")
		}
		entries := t.Entries()
		if len(entries) == 0 {
			v.SetZero()
			return nil
		}
		m := reflect.MakeMapWithSize(v.Type(), len(entries))
		kt, vt := v.Type().Key(), v.Type().Elem()
		for _, e := range entries {
			k := reflect.New(kt).Elem()
			if err := key.dec(e.Key, k); err != nil {
				return withPath(err, "["+e.Key.String()+" key]")
			}
			x := reflect.New(vt).Elem()
			if err := val.dec(e.Value, x); err != nil {
				return withPath(err, keySeg(k))
			}
			n := m.Len()
			if m.SetMapIndex(k, x); m.Len() == n {
				return withPath(typeErr(e.Key, k, "another key gives the same Go value"), keySeg(k))
			}
		}
		v.Set(m)
		return nil
	}
}

func pointerDecoder(elem *codec) decodeFunc {
	return func(t term.Term, v reflect.Value) error {
		if isUndefined(t) {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return elem.dec(t, v.Elem())
	}
}

func decodeInterface(t term.Term, v reflect.Value) error {
	if isUndefined(t) {
		v.SetZero()
		return nil
	}
	v.Set(reflect.ValueOf(t))
	return nil
}

func (s *structCodec) decode(t term.Term, v reflect.Value) error {
	if err := s.problem(); err != nil {
		return err
	}
	if s.asMap {
		return s.decodeMap(t, v)
	}
	if t.Kind() != term.KindTuple || t.Len() != len(s.fields) {
		return typeErr(t, v, "want a tuple of "+strconv.Itoa(len(s.fields)))
	}
	for i, x := range t.Elems() {
		f := &s.fields[i]
		if f.record {
			if x.Kind() != term.KindAtom || x.Atom() != f.name {
				return typeErr(x, v, "want the record atom "+term.Atom(f.name).String())
			}
			continue
		}
		if err := f.decode(x, v.Field(f.index)); err != nil {
			return withPath(err, f.path)
		}
	}
	return nil
}

func (s *structCodec) decodeMap(t term.Term, v reflect.Value) error {
	if t.Kind() != term.KindMap {
		return typeErr(t, v, "want a map")
	}
	for _, e := range t.Entries() {
		i := -1
		if e.Key.Kind() == term.KindAtom {
			i = slices.IndexFunc(s.fields, func(f structField) bool { return f.name == e.Key.Atom() })
		}
		if i < 0 {
			return typeErr(e.Key, v, "no field has this key")
		}
		f := &s.fields[i]
		if err := f.decode(e.Value, v.Field(f.index)); err != nil {
			return withPath(err, f.path)
		}
	}
	return nil
}

func (f *structField) decode(t term.Term, v reflect.Value) error {
	if f.desc {
		if t.Kind() != term.KindDesc {
			return typeErr(t, v, "want a descending term")
		}
		t = t.Inner()
	}
	return f.codec.dec(t, v)
}
