package sext

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// keyPart draws a tuple element near the edges of appendTupleHead's short
// way: integers around 0 and 2^31, atoms of 7 and 8 characters, Latin-1
// and wildcard names, binaries of 7 and 8 bytes, bitstrings, and any term.
var keyPart = rapid.OneOf(
	rapid.Map(rapid.SampledFrom([]int64{0, 1, 42, -1, math.MaxInt32, math.MaxInt32 + 1, math.MinInt64}), term.Int),
	rapid.Map(rapid.Int64(), term.Int),
	rapid.Map(rapid.SampledFrom([]string{"", "user", "abcdefg", "abcdefgh", "é", "caf\u00e9",
		"_", "_x", "$1", "$12", "$", "$_"}), term.Atom),
	rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 9), term.Binary),
	rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 2), func(b []byte) term.Term {
		return term.Bitstring(b[:1], 5)
	}),
	genTerm(2),
)

// Append and AppendPrefix, which take appendTupleHead's short way for
// tuples, write what the general walk writes, and fail where it fails.
func TestPropFlatKeyIsGeneralWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := term.Tuple(rapid.SliceOfN(keyPart, 0, maxTupleHead+2).Draw(t, "elems")...)
		o := Options{UTF8Atoms: rapid.Bool().Draw(t, "utf8"), MaxDepth: rapid.IntRange(0, 3).Draw(t, "depth")}
		dst := rapid.SliceOfN(rapid.Byte(), 0, 4).Draw(t, "dst")
		dst = append(make([]byte, 0, len(dst)+rapid.IntRange(0, 40).Draw(t, "room")), dst...)
		for _, prefix := range []bool{false, true} {
			e := o.encodeState()
			e.prefix = prefix
			want, werr := e.appendTerm(room(dst), x)
			if prefix && werr == errWildcard {
				werr = nil
			}
			var got []byte
			var err error
			if prefix {
				got, err = o.AppendPrefix(room(dst), x)
			} else {
				got, err = o.Append(room(dst), x)
			}
			if (err == nil) != (werr == nil) {
				t.Fatalf("prefix %v: error %v, the general walk's %v", prefix, err, werr)
			}
			if err != nil {
				if !bytes.Equal(got, dst) {
					t.Fatalf("prefix %v: failed with %x, not dst %x", prefix, got, dst)
				}
				continue
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("prefix %v: %x, the general walk wrote %x", prefix, got, want)
			}
		}
	})
}

// The short way covers the shapes of keys.
func TestFlatKeyTakesKeys(t *testing.T) {
	for _, tc := range []struct {
		key  term.Term
		rest int // elements left to the general walk
	}{
		{term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice"))), 0},
		{term.Tuple(), 0},
		{term.Tuple(term.Atom(""), term.Binary(nil), term.Int(math.MaxInt32)), 0},
		{term.Tuple(term.Atom("order"), term.Int(7), term.Tuple(term.Int(2026))), 1},
		{term.Tuple(term.Atom("session"), term.Binary(make([]byte, 16)), term.Atom("active")), 2},
		{term.Tuple(term.Int(-1)), 1},
		{term.Tuple(term.Atom("caf\u00e9")), 1},
		{term.Tuple(term.Atom("abcdefgh")), 1},
	} {
		_, rest, ok := appendTupleHead(nil, tc.key, false)
		if !ok || len(rest) != tc.rest {
			t.Errorf("appendTupleHead(%v) left %d elements (ok %v), want %d", tc.key, len(rest), ok, tc.rest)
		}
	}
	for _, x := range []term.Term{term.Int(1), term.List(term.Int(1)), term.Tuple(make([]term.Term, maxTupleHead+1)...)} {
		if _, _, ok := appendTupleHead(nil, x, false); ok {
			t.Errorf("appendTupleHead(%v) took it", x)
		}
	}
	_, rest, ok := appendTupleHead(nil, term.Tuple(term.Atom("user"), term.Atom("_"), term.Int(1)), true)
	if !ok || len(rest) != 0 {
		t.Errorf("a prefix walk did not stop at the wildcard: %d left (ok %v)", len(rest), ok)
	}
}

// room copies dst with its capacity, so that the short way's writes into
// the capacity are seen.
func room(dst []byte) []byte { return append(make([]byte, 0, cap(dst)), dst...) }

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
