package sext

import (
	"encoding/binary"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/erlsext/sext/term"
)

// Unmarshal's direct path reads a struct in tuple form straight from the
// bytes: its tuple is never built, a record atom is compared as bytes,
// and each field's term is decoded in a pooled arena only to be converted
// at once by the field's own conversion, which copies what it keeps.
// Anything it does not accept (a wrong kind, a malformed byte, a value
// out of range) makes Unmarshal start again on the term path, which
// reports the error exactly as it always has: the direct path only ever
// succeeds where the term path would succeed with the same value.

// unmarshalPlan is what Unmarshal needs for one type, found with one
// cache look-up.
type unmarshalPlan struct {
	typ    reflect.Type
	noTerm bool        // values of the type keep none of a term's memory
	direct *directPlan // the struct read from the bytes; nil if it is not one
}

// directPlan reads a struct in tuple form field by field.
type directPlan struct {
	s      *structCodec
	fields []directField // as s.fields
}

// directField is one position of the tuple.
type directField struct {
	ascii  bool        // a record atom of ASCII only, compared as bytes
	nested *directPlan // a struct in tuple form, read directly in turn
	noTerm bool        // the field's value keeps no term memory
	read   directKind  // how a plain string or integer is read
}

// directKind says which fields are read without a term.
type directKind uint8

const (
	fromTerm  directKind = iota
	binString            // a string from a binary
	smallInt             // a signed integer, read in place when it fits 32 bits
)

var (
	unmarshalPlans sync.Map // reflect.Type -> *unmarshalPlan
	// lastPlan is the plan last looked up: a loop that unmarshals one
	// type finds it without hashing the type.
	lastPlan atomic.Pointer[unmarshalPlan]
)

func planFor(t reflect.Type) *unmarshalPlan {
	if p := lastPlan.Load(); p != nil && p.typ == t {
		return p
	}
	if p, ok := unmarshalPlans.Load(t); ok {
		lastPlan.Store(p.(*unmarshalPlan))
		return p.(*unmarshalPlan)
	}
	p := &unmarshalPlan{typ: t, noTerm: keepsNoTerm(t)}
	p.direct = directFor(t, 0)
	unmarshalPlans.Store(t, p)
	return p
}

// maxDirectNesting bounds the structs inside structs read directly; past
// it (or for a struct type that contains itself) a field takes the term
// path.
const maxDirectNesting = 8

// directFor returns the direct plan of t, or nil where there is none: t
// is not a struct, is one in map form or with a bad tag, or converts
// through its own UnmarshalTerm.
func directFor(t reflect.Type, nesting int) *directPlan {
	if t.Kind() != reflect.Struct || nesting > maxDirectNesting ||
		reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	compileMu.Lock()
	s := (&builder{building: make(map[codecKey]*codec)}).structCodec(t)
	compileMu.Unlock()
	if s.asMap || s.problem() != nil {
		return nil
	}
	p := &directPlan{s: s, fields: make([]directField, len(s.fields))}
	for i := range s.fields {
		f := &s.fields[i]
		if f.record {
			p.fields[i].ascii = isASCII(f.name)
			continue
		}
		sf := t.Field(f.index)
		ft := sf.Type
		p.fields[i].noTerm = keepsNoTerm(ft)
		if f.desc || reflect.PointerTo(ft).Implements(unmarshalerType) {
			continue
		}
		p.fields[i].nested = directFor(ft, nesting+1)
		tag, _ := parseTag(sf.Tag.Get("sext"))
		switch ft.Kind() {
		case reflect.String:
			if !tag.atom && !tag.charlist {
				p.fields[i].read = binString
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			p.fields[i].read = smallInt
		}
	}
	return p
}

// unmarshalDirect sets v from b by p and reports whether it could; on
// false the caller starts again on the term path.
func (o Options) unmarshalDirect(p *directPlan, b []byte, v reflect.Value) bool {
	d := o.state(b, nil, recursive)
	end, ok := d.direct(p, 0, v)
	if d.scratchSpace != nil {
		d.a.reset()
		d.release()
	}
	return ok && end == len(b)
}

// takeScratch gives d its scratch space from the pool when it has none: the
// direct path reads short names and strings without it, and takes it
// only for what it decodes the general way.
func (d *decodeState) takeScratch() {
	if d.scratchSpace == nil {
		d.scratchSpace = scratchPool.Get().(*scratchSpace)
		d.a.direct = false
	}
}

// direct reads the tuple at pos into the struct v by p and returns the
// offset after it.
func (d *decodeState) direct(p *directPlan, pos int, v reflect.Value) (int, bool) {
	if pos >= len(d.buf) || d.buf[pos] != tagTuple {
		return 0, false
	}
	n, at, err := d.header(pos, 1, minTermLen, d.depth)
	if err != nil || n != len(p.fields) {
		return 0, false
	}
	d.depth++
	for i := range p.fields {
		df, f := &p.fields[i], &p.s.fields[i]
		var ok bool
		switch {
		case f.record:
			at, ok = d.recordAtom(at, f.name, df.ascii)
		case df.nested != nil:
			at, ok = d.direct(df.nested, at, v.Field(f.index))
		case df.read == binString:
			at, ok = d.directString(at, v.Field(f.index))
		case df.read == smallInt && at < len(d.buf) && (d.buf[at] == tagPos4 || d.buf[at] == tagNeg4):
			at, ok = d.directInt(at, v.Field(f.index))
		default:
			at, ok = d.directTerm(at, f, df.noTerm, v.Field(f.index))
		}
		if !ok {
			return 0, false
		}
	}
	d.depth--
	return at, true
}

// directString reads the binary at pos into the string v.
func (d *decodeState) directString(pos int, v reflect.Value) (int, bool) {
	if pos >= len(d.buf) || d.buf[pos] != tagBinary {
		return 0, false
	}
	if x, n, end := shortFrame(d.buf, pos+1); end > 0 {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], x)
		v.SetString(string(b[:n]))
		return end, true
	}
	d.takeScratch()
	s, end, err := d.longBytesFrame(pos + 1)
	if err != nil {
		return 0, false
	}
	v.SetString(string(s))
	return end, true
}

// directInt reads the 32-bit integer form at pos into the signed integer
// v; a float there is left to the term path, which refuses it.
func (d *decodeState) directInt(pos int, v reflect.Value) (int, bool) {
	x, ok := smallInt64(d.buf, pos)
	if !ok || v.OverflowInt(x) {
		return 0, false
	}
	v.SetInt(x)
	return pos + 5, true
}

// recordAtom checks that the atom at pos is name.
func (d *decodeState) recordAtom(pos int, name string, ascii bool) (int, bool) {
	if pos >= len(d.buf) || d.buf[pos] != tagAtom {
		return 0, false
	}
	if x, n, end := shortFrame(d.buf, pos+1); end > 0 && ascii {
		if n != len(name) {
			return 0, false
		}
		for i := range n {
			if byte(x>>(56-8*i)) != name[i] {
				return 0, false
			}
		}
		return end, true
	}
	d.takeScratch()
	if !ascii {
		t, end, err := d.atom(pos)
		return end, err == nil && t.Atom() == name
	}
	got, end, err := d.longBytesFrame(pos + 1) // shortFrame refused it
	return end, err == nil && string(got) == name
}

// directTerm decodes the field's term at pos and converts it into v: in
// the arena when v keeps none of it, on its own otherwise.
func (d *decodeState) directTerm(pos int, f *structField, noTerm bool, v reflect.Value) (int, bool) {
	d.takeScratch()
	var t term.Term
	var end int
	var err error
	if noTerm {
		t, end, err = d.valueRecursive(pos)
	} else {
		var rest []byte
		if pos >= len(d.buf) || d.depth >= d.maxDepth {
			return 0, false
		}
		t, rest, err = Options{UTF8Atoms: d.utf8, MaxDepth: d.maxDepth - d.depth}.DecodeNext(d.buf[pos:])
		end = len(d.buf) - len(rest)
	}
	if err != nil || f.decode(t, v) != nil {
		return 0, false
	}
	return end, true
}
