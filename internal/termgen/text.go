package termgen

import (
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/term"
)

// textChars are character codes at the edges of what Erlang's ~p takes
// as printable: printable ASCII, the seven escapes and the control
// characters beside them, DEL, C1 controls, Latin-1, the first code point
// beyond it, surrogates, U+FFFE and U+FFFF, the planes beyond, and the
// characters a string must escape (" and \).
var textChars = []rune{
	'a', 'Z', ' ', '~', '"', '\\', '\'', '0',
	'\b', '\t', '\n', '\v', '\f', '\r', 0x1B, 0, 7, 14, 31, 0x7F,
	0x80, 0x9F, 0xA0, 0xE9, 0xFF, 0x100, 'λ', '日', 0xD7FF, 0xD800, 0xDFFF,
	0xE000, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, '😀', 0x10FFFF,
}

// Text returns a generator of terms rich in text: lists of character
// codes and binaries that are often printable, as Erlang's ~p writes them
// as strings, and often just not (one character off, invalid UTF-8, a
// bitstring), nested in tuples, lists and maps with Draw's leaves. It
// draws no Desc, pid, port or reference unless o.Kinds asks for them
// (nil Kinds here means the kinds Erlang prints as it reads them).
func Text(o Options) *rapid.Generator[term.Term] {
	if o.Kinds == nil {
		o.Kinds = []term.Kind{term.KindInt, term.KindFloat, term.KindAtom, term.KindBinary,
			term.KindTuple, term.KindList, term.KindMap}
	}
	o.Validate()
	return rapid.Custom(func(t *rapid.T) term.Term { return DrawText(t, o, o.Depth) })
}

// DrawText draws one term of Text's, nested at most depth deep.
func DrawText(t *rapid.T, o Options, depth int) term.Term {
	switch c := rapid.IntRange(0, 7).Draw(t, "text"); {
	case c <= 1:
		return drawCharList(t)
	case c <= 3:
		return drawTextBinary(t)
	case c == 4 || depth <= 0:
		return draw(t, o, 0)
	}
	n := rapid.IntRange(0, 4).Draw(t, "n")
	elems := make([]term.Term, n)
	for i := range elems {
		elems[i] = DrawText(t, o, depth-1)
	}
	switch rapid.IntRange(0, 3).Draw(t, "compound") {
	case 0:
		return term.Tuple(elems...)
	case 1:
		es := make([]term.MapEntry, n/2)
		for i := range es {
			es[i] = term.MapEntry{Key: elems[2*i], Value: elems[2*i+1]}
		}
		return term.Map(es...)
	}
	return term.List(elems...)
}

// drawChars draws a run of characters, mostly from one class so that a
// run is often wholly printable: ASCII, Latin-1, or any of textChars.
func drawChars(t *rapid.T) []rune {
	var pool []rune
	switch rapid.IntRange(0, 2).Draw(t, "class") {
	case 0:
		pool = []rune{'a', 'b', 'Z', ' ', '~', '0', '"', '\\', '\n'}
	case 1:
		pool = []rune{'a', ' ', 0xA0, 0xE9, 0xFF, '\t', 0x1B}
	default:
		pool = textChars
	}
	rs := rapid.SliceOfN(rapid.SampledFrom(pool), 1, 12).Draw(t, "chars")
	if rapid.IntRange(0, 4).Draw(t, "spoil") == 0 {
		rs[rapid.IntRange(0, len(rs)-1).Draw(t, "at")] = rapid.SampledFrom(textChars).Draw(t, "with")
	}
	return rs
}

// drawCharList draws a list of character codes, now and then improper or
// with a code no character has.
func drawCharList(t *rapid.T) term.Term {
	rs := drawChars(t)
	elems := make([]term.Term, len(rs))
	for i, r := range rs {
		elems[i] = term.Int(int64(r))
	}
	switch rapid.IntRange(0, 9).Draw(t, "listodd") {
	case 0:
		return term.ImproperList(elems, term.Int('a'))
	case 1:
		elems[0] = term.Int(rapid.SampledFrom([]int64{-1, 0x110000, 1 << 40}).Draw(t, "noncode"))
	case 2:
		elems[0] = term.List(elems[0])
	}
	return term.List(elems...)
}

// drawTextBinary draws a binary of text: UTF-8, Latin-1 bytes, broken
// UTF-8, or a bitstring of text.
func drawTextBinary(t *rapid.T) term.Term {
	rs := drawChars(t)
	var b []byte
	switch rapid.IntRange(0, 3).Draw(t, "encoding") {
	case 0, 1:
		for _, r := range rs {
			if r >= 0xD800 && r <= 0xDFFF {
				b = append(b, 0xED, byte(0x80|r>>6&0x3F), byte(0x80|r&0x3F)) // as Erlang refuses to read it
				continue
			}
			b = utf8.AppendRune(b, r)
		}
	case 2:
		for _, r := range rs {
			b = append(b, byte(r))
		}
	default:
		b = utf8.AppendRune(nil, rs[0])
		b = append(b, rapid.SampledFrom([][]byte{{0xC3}, {0xC0, 0x80}, {0xE9}, {0xF4, 0x90, 0x80, 0x80}, {0x80}}).Draw(t, "broken")...)
		for _, r := range rs[1:] {
			b = utf8.AppendRune(b, r)
		}
	}
	if rapid.IntRange(0, 9).Draw(t, "bits") == 0 && len(b) > 0 {
		return term.Bitstring(b, 8*len(b)-rapid.IntRange(1, 7).Draw(t, "short"))
	}
	return term.Binary(b)
}
