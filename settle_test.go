package sext

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/erlsext/sext/term"
)

// An encoder that fails halfway through a term must not hand back the
// half it wrote: every append-style entry point returns dst unchanged,
// and the others nil or "".
func TestNoPartialOutputOnError(t *testing.T) {
	nanTuple := term.Tuple(term.Int(1), term.Float(math.NaN()))
	deep := term.List(term.List(term.List(term.Atom("x"))))
	for _, c := range []struct {
		name string
		t    term.Term
		o    Options
		want error
	}{
		{"NaN after an element", nanTuple, Options{}, ErrUnencodable},
		{"atom beyond Latin-1 in a list", term.List(term.Atom("a"), term.Atom("日本")), Options{}, ErrUnencodable},
		{"reference without ids in a Desc", term.Desc(term.Tuple(term.Int(7), term.Ref{Node: "a@b"}.Term())), Options{}, ErrUnencodable},
		{"too deep", deep, Options{MaxDepth: 2}, ErrDepth},
		{"infinity in a map", term.Map(term.MapEntry{Key: term.Int(1), Value: term.Float(math.Inf(1))}), Options{}, ErrUnencodable},
	} {
		o := c.o
		appenders := map[string]func([]byte) ([]byte, error){
			"Options.Append":       func(d []byte) ([]byte, error) { return o.Append(d, c.t) },
			"Options.AppendPrefix": func(d []byte) ([]byte, error) { return o.AppendPrefix(d, c.t) },
			"Options.AppendMarshal": func(d []byte) ([]byte, error) {
				return o.AppendMarshal(d, []any{c.t})
			},
		}
		if o == (Options{}) {
			appenders["Append"] = func(d []byte) ([]byte, error) { return Append(d, c.t) }
			appenders["AppendPrefix"] = func(d []byte) ([]byte, error) { return AppendPrefix(d, c.t) }
			appenders["AppendMarshal"] = func(d []byte) ([]byte, error) { return AppendMarshal(d, c.t) }
		}
		for name, f := range appenders {
			dst := make([]byte, 2, 64)
			copy(dst, "XY")
			got, err := f(dst)
			if !errors.Is(err, c.want) {
				t.Errorf("%s, %s: error %v, want %v", c.name, name, err, c.want)
			}
			if !bytes.Equal(got, []byte("XY")) || cap(got) != 64 {
				t.Errorf("%s, %s: returned %q (cap %d), want dst unchanged", c.name, name, got, cap(got))
			}
		}
		byteForms := map[string]func() ([]byte, error){
			"Options.Encode":  func() ([]byte, error) { return o.Encode(c.t) },
			"Options.Prefix":  func() ([]byte, error) { return o.Prefix(c.t) },
			"Options.Marshal": func() ([]byte, error) { return o.Marshal(c.t) },
			"Options.PrefixRange": func() ([]byte, error) {
				lo, hi, err := o.PrefixRange(c.t)
				return append(lo, hi...), err
			},
		}
		for name, f := range byteForms {
			if got, err := f(); !errors.Is(err, c.want) || got != nil {
				t.Errorf("%s, %s: %q, %v; want nil, %v", c.name, name, got, err, c.want)
			}
		}
	}
}
