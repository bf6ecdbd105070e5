package sext

import (
	"reflect"
	"sync"

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
}

var unmarshalPlans sync.Map // reflect.Type -> *unmarshalPlan

func planFor(t reflect.Type) *unmarshalPlan {
	if p, ok := unmarshalPlans.Load(t); ok {
		return p.(*unmarshalPlan)
	}
	p := &unmarshalPlan{noTerm: keepsNoTerm(t)}
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
		ft := t.Field(f.index).Type
		p.fields[i].noTerm = keepsNoTerm(ft)
		if !f.desc {
			p.fields[i].nested = directFor(ft, nesting+1)
		}
	}
	return p
}

// unmarshalDirect sets v from b by p and reports whether it could; on
// false the caller starts again on the term path.
func (o Options) unmarshalDirect(p *directPlan, b []byte, v reflect.Value) bool {
	d := decoder{buf: b, utf8: o.UTF8Atoms, maxDepth: o.MaxDepth, intLimit: max(1<<16, len(b))}
	d.scratchSpace = scratchPool.Get().(*scratchSpace)
	d.a.direct = false
	end, ok := d.direct(p, 0, v)
	d.a.reset()
	d.release()
	return ok && end == len(b)
}

// direct reads the tuple at pos into the struct v by p and returns the
// offset after it.
func (d *decoder) direct(p *directPlan, pos int, v reflect.Value) (int, bool) {
	if pos >= len(d.buf) || d.buf[pos] != tagTuple {
		return 0, false
	}
	n, at, err := d.header(pos, 1, minTermLen, d.depth)
	if err != nil || n != len(p.fields) {
		return 0, false
	}
	d.depth++
	defer func() { d.depth-- }()
	for i := range p.fields {
		df, f := &p.fields[i], &p.s.fields[i]
		var ok bool
		switch {
		case f.record:
			at, ok = d.recordAtom(at, f.name, df.ascii)
		case df.nested != nil:
			at, ok = d.direct(df.nested, at, v.Field(f.index))
		default:
			at, ok = d.directTerm(at, f, df.noTerm, v.Field(f.index))
		}
		if !ok {
			return 0, false
		}
	}
	return at, true
}

// recordAtom checks that the atom at pos is name.
func (d *decoder) recordAtom(pos int, name string, ascii bool) (int, bool) {
	if pos >= len(d.buf) || d.buf[pos] != tagAtom {
		return 0, false
	}
	if !ascii {
		t, end, err := d.atom(pos)
		return end, err == nil && t.Atom() == name
	}
	got, end, err := d.bytesFrame(pos + 1)
	return end, err == nil && string(got) == name
}

// directTerm decodes the field's term at pos and converts it into v: in
// the arena when v keeps none of it, on its own otherwise.
func (d *decoder) directTerm(pos int, f *structField, noTerm bool, v reflect.Value) (int, bool) {
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
