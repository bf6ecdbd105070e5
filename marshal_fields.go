package sext

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// strMode is how strings convert.
type strMode uint8

const (
	strBinary strMode = iota
	strAtom
	strCharlist
)

// codecOpts are the tag options that change a type's conversion. The
// string mode reaches through pointers, slices, arrays and maps (so that
// `sext:",atom"` on a []string makes a list of atoms); tuple applies to the
// outermost slice or array, through pointers.
type codecOpts struct {
	str   strMode
	tuple bool
}

// structCodec is the plan of a struct: its fields in the order they are
// written, and how.
type structCodec struct {
	typ    reflect.Type
	fields []structField // declaration order, or key order for map form
	asMap  bool
	bad    *TagError // the first bad tag, reported (as a copy) on use

	// opaque: the struct has fields but none to marshal, as a type defined
	// on time.Time has. All its values would make the same key, so it is
	// an unsupported type rather than an empty tuple.
	opaque bool
}

type structField struct {
	name   string // the record atom, or the key in map form
	path   string // "." and the Go name, for errors
	index  int
	record bool // a Record field: the atom name, not a value
	desc   bool
	codec  *codec
}

// fieldTag is a parsed sext struct tag.
type fieldTag struct {
	name                               string
	skip                               bool
	desc, atom, charlist, tuple, asMap bool
}

func parseTag(tag string) (fieldTag, string) {
	if tag == "-" {
		return fieldTag{skip: true}, ""
	}
	name, opts, more := strings.Cut(tag, ",")
	ft := fieldTag{name: name}
	for more {
		var o string
		o, opts, more = strings.Cut(opts, ",")
		switch o {
		case "desc":
			ft.desc = true
		case "atom":
			ft.atom = true
		case "charlist":
			ft.charlist = true
		case "tuple":
			ft.tuple = true
		case "map":
			ft.asMap = true
		default:
			return ft, "unknown option " + strconv.Quote(o)
		}
	}
	if ft.atom && ft.charlist {
		return ft, "atom and charlist exclude each other"
	}
	return ft, ""
}

// hasString tells whether the string options can reach a string in t.
func hasString(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return hasString(t.Elem())
	case reflect.Map:
		return hasString(t.Key()) || hasString(t.Elem())
	}
	return false
}

func isSeq(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Slice || t.Kind() == reflect.Array
}

func (b *builder) structCodec(t reflect.Type) *structCodec {
	s := &structCodec{typ: t}
	hasRecord, hidden := false, false
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("sext")
		fail := func(detail string) {
			if s.bad == nil {
				s.bad = &TagError{Struct: t, Field: sf.Name, Tag: tag, Detail: detail}
			}
		}
		ft, problem := parseTag(tag)
		switch {
		case problem != "":
			fail(problem)
			continue
		case ft.skip:
			continue
		case sf.Type == recordType:
			switch {
			case hasRecord:
				fail("a second sext.Record field")
			case ft.desc || ft.atom || ft.charlist || ft.tuple:
				fail("only a name or map applies to a sext.Record field")
			case ft.asMap && ft.name != "":
				fail("a struct in map form has no record name")
			case ft.asMap:
				s.asMap = true
			case ft.name == "":
				fail(`a sext.Record field needs the record name as its tag: sext:"name"`)
			default:
				s.fields = append(s.fields, structField{name: ft.name, path: "." + sf.Name, index: i, record: true})
			}
			hasRecord = true
			continue
		case !sf.IsExported():
			// Unexported fields are not part of the value, as for
			// encoding/json; a tag on one is a mistake worth reporting.
			if tagged {
				fail("unexported fields are not marshalled")
			}
			hidden = true
			continue
		case ft.asMap:
			fail("map applies only to a sext.Record field")
		case (ft.atom || ft.charlist) && !hasString(sf.Type):
			fail("atom and charlist apply only to strings")
		case ft.tuple && !isSeq(sf.Type):
			fail("tuple applies only to slices and arrays")
		}
		o := codecOpts{tuple: ft.tuple}
		switch {
		case ft.atom:
			o.str = strAtom
		case ft.charlist:
			o.str = strCharlist
		}
		name := ft.name
		if name == "" {
			name = sf.Name
		}
		s.fields = append(s.fields, structField{
			name:  name,
			path:  "." + sf.Name,
			index: i,
			desc:  ft.desc,
			codec: b.compile(sf.Type, o),
		})
	}
	s.opaque = hidden && len(s.fields) == 0 && !s.asMap
	if s.asMap {
		// Erlang orders a map's atom keys by name; sort once here.
		slices.SortStableFunc(s.fields, func(a, b structField) int { return strings.Compare(a.name, b.name) })
		for i := 1; i < len(s.fields); i++ {
			if s.fields[i].name == s.fields[i-1].name && s.bad == nil {
				s.bad = &TagError{Struct: t, Field: s.fields[i].path[1:], Tag: t.Field(s.fields[i].index).Tag.Get("sext"),
					Detail: "two fields have the key " + strconv.Quote(s.fields[i].name)}
			}
		}
	}
	return s
}

// tagErr returns a fresh copy of the struct's tag error: errors get their
// paths written into them.
func (s *structCodec) tagErr() error {
	e := *s.bad
	return &e
}

// problem returns the error that stops the struct from converting, if any.
func (s *structCodec) problem() error {
	switch {
	case s.bad != nil:
		return s.tagErr()
	case s.opaque:
		return &UnsupportedTypeError{Type: s.typ}
	}
	return nil
}

func (s *structCodec) append(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	if err := s.problem(); err != nil {
		return dst, err
	}
	if err := c.open(); err != nil {
		return dst, err
	}
	if s.asMap {
		dst = binary.BigEndian.AppendUint32(append(dst, tagList, markMap), uint32(len(s.fields)))
	} else {
		dst = binary.BigEndian.AppendUint32(append(dst, tagTuple), uint32(len(s.fields)))
	}
	var err error
	for i := range s.fields {
		f := &s.fields[i]
		if s.asMap || f.record {
			if dst, err = c.e.appendAtom(append(dst, tagAtom), f.name); err != nil {
				return dst, withPath(encodeErr(err), f.path)
			}
			if f.record {
				continue
			}
		}
		if dst, err = f.append(dst, v.Field(f.index), c); err != nil {
			return dst, withPath(err, f.path)
		}
	}
	return dst, nil
}

// maxDescFields bounds desc fields nested in one another: (9/8)^23 is
// under descGrowth, the growth frameDesc allows any content.
const maxDescFields = 23

// append writes the field's value, framed in descending order for desc as
// the encoder frames term.Desc.
func (f *structField) append(dst []byte, v reflect.Value, c encCtx) ([]byte, error) {
	if !f.desc {
		return f.codec.app(dst, v, c)
	}
	if err := c.open(); err != nil {
		return dst, err
	}
	// The framing added inside is counted in the callee's copy of c, out
	// of frameDesc's sight here: so the nesting itself is bounded, to what
	// frameDesc allows any content.
	if c.descs++; c.descs > maxDescFields {
		return dst, unsupportedValue(ErrUnencodable, "desc fields nested more than 23 deep in one another: each frames what it holds an eighth larger")
	}
	dst = append(dst, tagDesc)
	start, framed := len(dst), c.e.framed
	dst, err := f.codec.app(dst, v, c)
	if err != nil {
		return dst, err
	}
	if dst, err = c.e.frameDesc(dst, start, framed); err != nil {
		return dst, unsupportedValue(ErrUnencodable, errDescFraming.Detail)
	}
	return dst, nil
}
