package term

import (
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// String returns t in Erlang's term syntax as P writes it, the text of
// io_lib:format("~0tp", [T]) on OTP 25: printable lists as "abc",
// printable binaries as <<"abc">> or <<"héllo"/utf8>>, everything on one
// line. What Erlang prints opaquely has this project's forms: #Pid, #Port,
// #Ref and #Desc. Parse reads the text back to an equal term, except for
// the terms AppendText refuses (see ErrUnprintable): a NaN or infinite
// float prints as #NaN, #Inf or #-Inf so that it cannot be mistaken for
// an atom. W writes lists and binaries as numbers, as ~w does.
func (t Term) String() string { return string(P.Append(nil, t)) }

// AppendString appends t's text, as String returns it, to dst. It is the
// form of AppendText for callers that want no error.
func AppendString(dst []byte, t Term) []byte { return P.Append(dst, t) }

// AppendText implements encoding.TextAppender. It appends t's text, as
// String returns it, to b. For a term that has no exact text form it
// returns b unchanged and an error wrapping ErrUnprintable, so that text
// written by AppendText always parses back to an equal term: with Parse,
// or, for an integer of more than DefaultMaxIntDigits digits, with
// ParseOptions.MaxIntDigits raised to its length.
func (t Term) AppendText(b []byte) ([]byte, error) { return P.AppendText(b, t) }

// MarshalText implements encoding.TextMarshaler with AppendText's text.
func (t Term) MarshalText() ([]byte, error) { return t.AppendText(nil) }

// UnmarshalText implements encoding.TextUnmarshaler by parsing text with
// Parse, and so with its limits (DefaultMaxIntDigits, DefaultMaxDepth);
// text with longer integers needs ParseOptions. On error *t is left
// unchanged.
func (t *Term) UnmarshalText(text []byte) error {
	v, err := Parse(string(text))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// printFrame is a compound term being printed and the index of the child
// being written. Map entries count as two children, key and value.
type printFrame struct {
	t       Term
	i       int
	entries []MapEntry // a map's entries in the order printed
}

// printOrder returns a map's entries as Erlang prints them: in map key
// order, the order Map keeps them in (integers before floats), which is
// what io:format's ~w and ~p write on OTP 25 (measured).
func printOrder(t Term) []MapEntry { return t.Entries() }

// appendTerm prints t in format f with an explicit stack rather than
// recursion, so that the depth of a term costs heap memory only. It
// reports the first reason the text cannot be parsed back, but prints the
// whole term regardless.
func appendTerm(b []byte, t Term, f *Format) ([]byte, error) {
	var (
		small [16]printFrame // shallow terms print without allocating
		stack = small[:0]
		err   error
	)
	for {
		// Past 64 KiB, room for this term's start, doubling: append alone
		// grows a long text by a quarter at a time, five times its size
		// in all. (Short texts keep append's way, which never allocates
		// while the caller's buffer has room.)
		if len(b) >= 1<<16 {
			b = growBy(b, 64)
		}
		// Write the start of t; a compound with children is pushed and its
		// first child becomes t. A list P writes as a string is a leaf.
		if n := numChildren(t); n > 0 && !(f.strings && t.Kind() == KindList && f.printableList(t)) {
			switch t.Kind() {
			case KindList:
				b = append(b, '[')
			case KindTuple:
				b = append(b, '{')
			case KindMap:
				b = append(b, "#{"...)
			case KindDesc:
				b = append(b, "#Desc<"...)
			}
			fr := printFrame{t: t}
			if t.Kind() == KindMap {
				fr.entries = printOrder(t)
			}
			stack = append(stack, fr)
			t = fr.child(0)
			continue
		}
		b = f.appendLeaf(b, t, &err)

		// t is complete: close the parents it completes, then move on to
		// the next sibling.
		for {
			if len(stack) == 0 {
				return b, err
			}
			fr := &stack[len(stack)-1]
			fr.i++
			if fr.i < numChildren(fr.t) {
				switch {
				case fr.t.Kind() == KindMap && fr.i&1 == 1:
					b = append(b, " => "...)
				case fr.t.Kind() == KindList && fr.t.tail() && fr.i == fr.t.n()-1:
					b = append(b, '|')
				default:
					b = append(b, ',')
				}
				t = fr.child(fr.i)
				break
			}
			switch fr.t.Kind() {
			case KindList:
				b = append(b, ']')
			case KindTuple, KindMap:
				b = append(b, '}')
			case KindDesc:
				b = append(b, '>')
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// numChildren returns how many subterms the printer visits in t.
func numChildren(t Term) int {
	switch t.Kind() {
	case KindList, KindTuple:
		return t.n()
	case KindMap:
		return 2 * t.n()
	case KindDesc:
		return 1
	}
	return 0
}

// child returns subterm i of the frame's term as numChildren counts them.
func (f *printFrame) child(i int) Term {
	t := f.t
	switch t.Kind() {
	case KindMap:
		e := f.entries[i>>1]
		if i&1 == 0 {
			return e.Key
		}
		return e.Value
	case KindDesc:
		return t.Inner()
	}
	return t.slice()[i]
}

// appendBig prints the bignum t in decimal, through a big.Int that shares
// t's words and only reads them (Neg would write them back: a race when
// terms are printed concurrently).
func appendBig(b []byte, t Term) []byte {
	w, neg := t.BigBits()
	if neg {
		b = append(b, '-')
	}
	var z big.Int
	return z.SetBits(w).Append(b, 10)
}

// appendLeaf prints a term the printer does not descend into: empty
// compounds, and lists P writes as strings. It sets *err to the first
// reason the text will not parse back.
func (f *Format) appendLeaf(b []byte, t Term, err *error) []byte {
	ok := true
	switch t.Kind() {
	case KindList:
		if t.n() == 0 {
			b = append(b, "[]"...)
		} else {
			b = appendString(b, t.slice())
		}
	case KindTuple:
		b = append(b, "{}"...)
	case KindMap:
		b = append(b, "#{}"...)
	case KindInt:
		if t.IsInt64() {
			b = strconv.AppendInt(b, int64(t.r.Num), 10)
		} else {
			b = appendBig(b, t)
		}
	case KindFloat:
		b, ok = appendFloat(b, t.Float())
	case KindAtom:
		b, ok = appendAtom(b, t.Atom())
	case KindBinary:
		b = f.appendBinary(b, t.bytes(), t.n(), false)
	case KindBinaryPrefix:
		b = f.appendBinary(b, t.bytes(), t.n(), true)
	case KindPid:
		p := t.Pid()
		b = append(b, "#Pid<"...)
		b, ok = appendAtom(b, p.Node)
		b = appendUints(b, uint64(p.ID), uint64(p.Serial), uint64(p.Creation))
		b = append(b, '>')
	case KindPort:
		p := t.Port()
		b = append(b, "#Port<"...)
		b, ok = appendAtom(b, p.Node)
		b = appendUints(b, p.ID, uint64(p.Creation))
		b = append(b, '>')
	case KindRef:
		r := t.Ref()
		b = append(b, "#Ref<"...)
		b, ok = appendAtom(b, r.Node)
		b = appendUints(b, uint64(r.Creation))
		for _, id := range r.IDs {
			b = appendUints(b, uint64(id))
		}
		b = append(b, '>')
		ok = ok && len(r.IDs) > 0 // Parse insists on an id word
	default:
		b = append(b, "#Invalid<>"...)
		ok = false
	}
	if !ok && *err == nil {
		*err = ErrUnprintable
	}
	return b
}

// appendUints writes each of us preceded by a comma.
func appendUints(b []byte, us ...uint64) []byte {
	for _, u := range us {
		b = strconv.AppendUint(append(b, ','), u, 10)
	}
	return b
}

// appendBinary writes a bitstring as f does, and if prefix, as the
// pattern <<Data, _/binary>>. W writes whole bytes as numbers, then the
// bits of a partial last byte as an integer with its size; P writes a
// printable binary as a string (binaryForm).
func (f *Format) appendBinary(b, data []byte, bits int, prefix bool) []byte {
	full := bits >> 3
	form := binNumbers
	if f.strings && full > 0 && bits&7 == 0 {
		form = f.binaryForm(data[:full])
	}
	if full >= 1<<14 {
		room := 4 * full // at most "255," a byte
		if form != binNumbers {
			room = stringRoom(data[:full], form == binBytes)
		}
		b = growBy(b, room+20) // and the delimiters
	}
	b = append(b, "<<"...)
	switch form {
	case binBytes:
		b = append(b, '"')
		for _, c := range data[:full] {
			b = appendQuotedRune(b, rune(c), '"')
		}
		b = append(b, '"')
	case binUTF8:
		b = append(b, '"')
		for i := 0; i < full; {
			r, size := utf8.DecodeRune(data[i:full])
			b = appendQuotedRune(b, r, '"')
			i += size
		}
		b = append(b, `"/utf8`...)
	default:
		for i := range full {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(data[i]), 10)
		}
		if k := bits & 7; k != 0 {
			if full > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(data[full]>>(8-k)), 10)
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(k), 10)
		}
	}
	if prefix {
		if full > 0 {
			b = append(b, ',')
		}
		b = append(b, "_/binary"...)
	}
	return append(b, ">>"...)
}

// stringRoom returns the length of the binary b's text as a string,
// without the delimiters: an escape takes two bytes, and so does each
// byte from 128 up if latin1 (a Latin-1 character in UTF-8); UTF-8 is
// written as it is.
func stringRoom(b []byte, latin1 bool) int {
	n := len(b)
	for _, c := range b {
		if c == '"' || c == '\\' || c < ' ' || latin1 && c >= 0x80 {
			n++
		}
	}
	return n
}

// appendString writes a list of printable character codes as a string,
// as io_lib:write_string does.
func appendString(b []byte, cs []Term) []byte {
	if len(cs) >= 1<<14 {
		// Room for the text at once, as for a binary: its exact length,
		// since a character takes from 1 to 4 bytes.
		n := 2
		for _, c := range cs {
			switch r := rune(c.Int64()); {
			case r == '"' || r == '\\' || r < ' ':
				n += 2
			default:
				n += utf8.RuneLen(r)
			}
		}
		b = growBy(b, n)
	}
	b = append(b, '"')
	for _, c := range cs {
		b = appendQuotedRune(b, rune(c.Int64()), '"')
	}
	return append(b, '"')
}

// appendFloat writes f as OTP's io_lib_format:fwrite_g does: the shortest
// digits that read back as f, in plain notation where that is no longer
// than scientific, with a ".0" or an exponent so that it reads as a float.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	switch {
	case math.IsNaN(f):
		return append(b, "#NaN"...), false
	case math.IsInf(f, 1):
		return append(b, "#Inf"...), false
	case math.IsInf(f, -1):
		return append(b, "#-Inf"...), false
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...), true
		}
		return append(b, "0.0"...), true
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// Shortest digits from Go, as d.ddde±XX; Go and OTP both pick the
	// shortest string that round-trips, and the closest of those.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	var digs [20]byte
	s := digs[:0]
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			s = append(s, e[i])
		}
	}
	neg := e[i+1] == '-'
	exp := 0
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	// The length of the exponent as Erlang writes it ("e" and at least one
	// digit, no padding): Go pads to two digits, so count afresh.
	expCost := 2 + len(strconv.AppendInt(buf[:0], int64(exp), 10))
	l := len(s)
	place := exp - (l - 1)
	if place < 0 {
		switch {
		case exp >= 0:
			b = append(b, s[:l+place]...)
			b = append(b, '.')
			return append(b, s[l+place:]...), true
		case 2-place-l <= expCost:
			b = append(b, "0."...)
			for range -place - l {
				b = append(b, '0')
			}
			return append(b, s...), true
		}
	} else {
		dot := 0
		if l == 1 {
			dot = 1
		}
		if expCost+dot >= place+2 && f < 1<<53 {
			b = append(b, s...)
			for range place {
				b = append(b, '0')
			}
			return append(b, ".0"...), true
		}
	}
	b = append(b, s[0], '.')
	if l == 1 {
		b = append(b, '0')
	} else {
		b = append(b, s[1:]...)
	}
	b = append(b, 'e')
	return strconv.AppendInt(b, int64(exp), 10), true
}

// appendAtom writes an atom's name, quoted where Erlang would quote it.
// It reports false if name is not valid UTF-8: the bad bytes print as
// U+FFFD, which does not read back as the same name.
func appendAtom(b []byte, name string) ([]byte, bool) {
	if !atomNeedsQuotes(name) {
		return append(b, name...), true
	}
	ok := true
	b = append(b, '\'')
	for i, r := range name {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(name[i:]); size == 1 {
				ok = false
			}
		}
		b = appendQuotedRune(b, r, '\'')
	}
	return append(b, '\''), ok
}

// appendQuotedRune writes r inside quotes q as Erlang's io_lib does:
// printable characters as themselves, the usual letter escapes, and other
// control characters in octal.
func appendQuotedRune(b []byte, r rune, q rune) []byte {
	switch {
	case r == q || r == '\\':
		return append(b, '\\', byte(r))
	case r >= ' ' && r <= '~':
		return append(b, byte(r))
	case r >= 0xA0:
		return utf8.AppendRune(b, r)
	}
	switch r {
	case '\n':
		return append(b, `\n`...)
	case '\r':
		return append(b, `\r`...)
	case '\t':
		return append(b, `\t`...)
	case '\v':
		return append(b, `\v`...)
	case '\b':
		return append(b, `\b`...)
	case '\f':
		return append(b, `\f`...)
	case 0x1B:
		return append(b, `\e`...)
	case 0x7F:
		return append(b, `\d`...)
	}
	return append(b, '\\', byte('0'+(r>>6)), byte('0'+(r>>3)&7), byte('0'+r&7))
}

// atomNeedsQuotes reports whether an atom must be quoted to read back as
// itself: Erlang's rule in io_lib:quote_atom.
func atomNeedsQuotes(name string) bool {
	if name == "" {
		return true
	}
	r, size := utf8.DecodeRuneInString(name)
	if !isAtomStart(r) {
		return true
	}
	for _, r := range name[size:] {
		if !isNameChar(r) {
			return true
		}
	}
	return isReserved(name)
}

// isAtomStart reports whether r may begin an unquoted atom: a lower-case
// ASCII or Latin-1 letter.
func isAtomStart(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 0xDF && r <= 0xFF && r != 0xF7
}

// isVarStart reports whether r begins an Erlang variable, which is not a
// term: an upper-case ASCII or Latin-1 letter, or an underscore.
func isVarStart(r rune) bool {
	return r >= 'A' && r <= 'Z' || r == '_' || r >= 0xC0 && r <= 0xDE && r != 0xD7
}

// isNameChar reports whether r may continue an unquoted atom or variable.
func isNameChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '@':
		return true
	}
	return r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7
}

// isReserved reports whether name is an Erlang reserved word, which Erlang
// quotes when it prints the atom. maybe and else are reserved only with
// the maybe feature on; they are quoted always, as quoting is harmless.
func isReserved(name string) bool {
	switch name {
	case "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr",
		"bxor", "case", "catch", "cond", "div", "end", "fun", "if", "let", "not",
		"of", "or", "orelse", "receive", "rem", "try", "when", "xor", "maybe", "else":
		return true
	}
	return false
}
