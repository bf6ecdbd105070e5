package term

import "unicode/utf8"

// Format is a text form of terms, in Erlang's syntax: P, as Erlang's ~p
// writes terms, or W, as ~w writes them. The two differ only in lists and
// binaries: P writes those that hold printable characters as strings, W
// always as numbers. Both write a term on one line, read back with Parse,
// and write pids, ports, references and Desc in this project's forms
// (#Pid<...>, #Port<...>, #Ref<...>, #Desc<...>), which Erlang prints
// opaquely or does not have.
//
// A Format is safe for concurrent use. WithPrintableRange returns a
// variant, as encoding/base32's Encoding.WithPadding does.
type Format struct {
	strings bool // printable lists and binaries as strings: ~p
	unicode bool // the printable range: all of Unicode, not Latin-1
}

// The formats.
var (
	// P writes a term as io_lib:format("~0tp", [T]) does on OTP 25 with
	// the VM's default printable range (+pc latin1): ~tp with a line
	// length of 0, which io_lib_pretty takes as "never break a line". A
	// proper list of character codes in Latin-1's printable range
	// (io_lib:printable_list) is a string, "abc", with \n, \r, \t, \v, \b,
	// \f and \e written as escapes; a binary of printable characters is
	// <<"abc">>, or <<"héllo"/utf8>> when it is UTF-8 that holds
	// characters beyond ASCII. Term.String uses P.
	P = &Format{strings: true}

	// W writes a term as io_lib:format("~tw", [T]) does: lists and
	// binaries as numbers, atoms quoted as Erlang quotes them, Unicode
	// characters in quoted atoms as themselves.
	W = &Format{}
)

// PrintableRange says which characters P takes as printable, as the
// Erlang VM's +pc flag does (io:printable_range()).
type PrintableRange uint8

// The printable ranges.
const (
	// Latin1 is the VM's default: the printable characters of Latin-1,
	// 32 to 126 and 160 to 255, and the seven escapes.
	Latin1 PrintableRange = iota
	// Unicode adds every other character that is not a surrogate,
	// U+FFFE or U+FFFF, as +pc unicode does: a list [955] prints as "λ",
	// a binary of UTF-8 Greek as <<"λ"/utf8>>.
	Unicode
)

// WithPrintableRange returns f with its printable range set to r, as the
// VM's +pc flag sets it. It changes nothing for W, which prints no
// strings.
func (f *Format) WithPrintableRange(r PrintableRange) *Format {
	g := *f
	g.unicode = r == Unicode
	return &g
}

// Append appends t's text in format f to dst and returns the extended
// slice. A term that AppendText refuses is printed nonetheless, in a form
// Parse refuses (see ErrUnprintable).
func (f *Format) Append(dst []byte, t Term) []byte {
	b, _ := appendTerm(dst, t, f)
	return b
}

// Text returns t's text in format f, as Append writes it.
func (f *Format) Text(t Term) string { return string(f.Append(nil, t)) }

// AppendText appends t's text in format f to dst. For a term that has no
// exact text form it returns dst unchanged and an error wrapping
// ErrUnprintable, so that what it writes always parses back to an equal
// term.
func (f *Format) AppendText(dst []byte, t Term) ([]byte, error) {
	out, err := appendTerm(dst, t, f)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// printableLatin1 marks the character codes below 256 that
// io_lib:printable_latin1_list accepts: 32 to 126, 160 to 255, and \b,
// \t, \n, \v, \f, \r and \e.
var printableLatin1 = func() (p [256]bool) {
	for c := range p {
		p[c] = c >= ' ' && c <= '~' || c >= 0xA0 || c >= '\b' && c <= '\r' || c == 0x1B
	}
	return p
}()

// printable reports whether the character code c is printable in f's
// range, as io_lib:printable_list and io_lib_pretty's printable_char
// decide.
func (f *Format) printable(c int64) bool {
	if uint64(c) < 256 {
		return printableLatin1[c]
	}
	return f.unicode && (c > 0 && c < 0xD800 || c > 0xDFFF && c < 0xFFFE || c > 0xFFFF && c <= 0x10FFFF)
}

// printableList reports whether P writes the non-empty list t as a
// string: a proper list of printable character codes.
func (f *Format) printableList(t Term) bool {
	if t.tail() {
		return false
	}
	for _, x := range t.slice() {
		if !x.IsInt64() || !f.printable(x.Int64()) {
			return false
		}
	}
	return true
}

// The ways P writes a binary of whole bytes.
const (
	binNumbers = iota // <<1,2,3>>
	binBytes          // <<"abc">>: each byte a character
	binUTF8           // <<"héllo"/utf8>>: the bytes are UTF-8
)

// binaryForm decides how P writes the binary b (whole bytes, not empty)
// as io_lib_pretty does: valid UTF-8 whose characters are all printable
// is a string, marked /utf8 unless it is all ASCII; other valid UTF-8 is
// numbers; bytes that are not UTF-8 are a string if each byte is a
// printable Latin-1 character, and numbers otherwise.
func (f *Format) binaryForm(b []byte) int {
	// ASCII first, the common case: the same characters either way. A
	// byte below 128 that is not printable is not printable either way.
	i := 0
	for ; i < len(b) && b[i] < 0x80; i++ {
		if !printableLatin1[b[i]] {
			return binNumbers
		}
	}
	if i == len(b) {
		return binBytes
	}
	if r, ok := f.utf8Printable(b[i:]); ok {
		if r {
			return binUTF8
		}
		return binNumbers
	}
	for _, c := range b[i:] {
		if !printableLatin1[c] {
			return binNumbers
		}
	}
	return binBytes
}

// utf8Printable reports whether b is valid UTF-8 (ok), as Erlang's
// <<_/utf8>> reads it, and if so whether each character is printable.
func (f *Format) utf8Printable(b []byte) (printable, ok bool) {
	printable = true
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:]) // refuses what Erlang refuses: surrogates, overlong forms
		if r == utf8.RuneError && size == 1 {
			return false, false
		}
		if printable && !f.printable(int64(r)) {
			printable = false
		}
		i += size
	}
	return printable, true
}
