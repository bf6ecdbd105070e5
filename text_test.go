package sext

import (
	"bytes"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/erlsext/sext/term"
	"pgregory.net/rapid"
)

// decodeText decodes the term whose encoding s holds as text.
func decodeText(e *Encoding, s string) (term.Term, error) {
	b, err := e.DecodeString(s)
	if err != nil {
		return term.Term{}, err
	}
	return Decode(b)
}

var encodings = []struct {
	name string
	enc  *Encoding
}{{"Hex", Hex}, {"SB32", SB32}, {"OrderedSB32", OrderedSB32}}

func TestEncodingTexts(t *testing.T) {
	for _, c := range []struct {
		enc  *Encoding
		in   []byte
		want string
	}{
		{Hex, nil, ""},
		{Hex, []byte{0x00, 0xAB, 0xFF}, "00ABFF"},
		{SB32, nil, ""},
		{SB32, []byte{0xFF}, "V7------"},              // 3 bits left: 7 as a plain number
		{OrderedSB32, []byte{0xFF}, "VS------"},       // the same bits shifted up: 28
		{SB32, []byte{0x12, 0x01}, "2801----"},        // 1 bit left: 1
		{OrderedSB32, []byte{0x12, 0x01}, "280G----"}, // 16
		{SB32, []byte{0x12, 0x00, 0xFF}, "280FF---"},  // 4 bits left: 15
		{OrderedSB32, []byte{0x12, 0x00, 0xFF}, "280FU---"},
		{SB32, []byte{1, 2, 3, 4, 5}, "04106105"}, // 40 bits: no padding
		{OrderedSB32, []byte{1, 2, 3, 4, 5}, "04106105"},
	} {
		if got := c.enc.EncodeToString(c.in); got != c.want {
			t.Errorf("%v.EncodeToString(%x) = %q, want %q", *c.enc, c.in, got, c.want)
		}
		if got := string(c.enc.AppendEncode([]byte("x"), c.in)); got != "x"+c.want {
			t.Errorf("%v.AppendEncode(x, %x) = %q, want %q", *c.enc, c.in, got, "x"+c.want)
		}
		if got := c.enc.EncodedLen(len(c.in)); got != len(c.want) {
			t.Errorf("%v.EncodedLen(%d) = %d, want %d", *c.enc, len(c.in), got, len(c.want))
		}
		back, err := c.enc.DecodeString(c.want)
		if err != nil || !bytes.Equal(back, c.in) {
			t.Errorf("%v.DecodeString(%q) = %x, %v; want %x", *c.enc, c.want, back, err, c.in)
		}
	}
}

// Hex is encoding/hex in upper case, and reads either case.
func TestHexIsUpperCaseHex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
		want := strings.ToUpper(hex.EncodeToString(b))
		if got := Hex.EncodeToString(b); got != want {
			t.Fatalf("Hex %x = %s, want %s", b, got, want)
		}
		for _, s := range []string{want, strings.ToLower(want)} {
			if back, err := Hex.DecodeString(s); err != nil || !bytes.Equal(back, b) {
				t.Fatalf("Hex.DecodeString(%s) = %x, %v", s, back, err)
			}
		}
	})
}

// OrderedSB32 is RFC 4648's base32hex alphabet with '-' for padding;
// SB32 differs from it only in the last, partial character.
func TestOrderedSB32IsBase32Hex(t *testing.T) {
	rfc := base32.HexEncoding.WithPadding('-')
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
		want := rfc.EncodeToString(b)
		if got := OrderedSB32.EncodeToString(b); got != want {
			t.Fatalf("OrderedSB32 %x = %s, want %s", b, got, want)
		}
		ref := SB32.EncodeToString(b)
		if len(ref) != len(want) || (len(b)%5 == 0 && ref != want) {
			t.Fatalf("SB32 %x = %s, base32hex %s", b, ref, want)
		}
	})
}

// Every encoding: the text decodes back, AppendDecode appends, texts sort
// as the bytes (OrderedSB32 always, SB32 for bytes of one length), and
// DecodedLen bounds what a text holds.
func TestPropEncodingRoundTripAndOrder(t *testing.T) {
	for _, e := range encodings {
		t.Run(e.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				a := rapid.SliceOf(rapid.Byte()).Draw(t, "a")
				b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
				sa, sb := e.enc.EncodeToString(a), e.enc.EncodeToString(b)
				got, err := e.enc.AppendDecode([]byte("pre"), []byte(sa))
				if err != nil || !bytes.Equal(got, append([]byte("pre"), a...)) {
					t.Fatalf("AppendDecode(pre, %s) = %q, %v", sa, got, err)
				}
				if n := e.enc.DecodedLen(len(sa)); n < len(a) {
					t.Fatalf("DecodedLen(%d) = %d, holds %d", len(sa), n, len(a))
				}
				if e.enc != SB32 || len(a) == len(b) {
					if c, want := strings.Compare(sa, sb), bytes.Compare(a, b); c != want {
						t.Fatalf("%x, %x: texts %s, %s compare %d, bytes %d", a, b, sa, sb, c, want)
					}
				}
			})
		})
	}
}

// AppendPrefix is a text prefix of the text of every extension of the
// prefix, and the longest one for sb32: one character more would not be.
func TestPropAppendPrefix(t *testing.T) {
	for _, e := range encodings {
		t.Run(e.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := rapid.SliceOf(rapid.Byte()).Draw(t, "prefix")
				rest := rapid.SliceOf(rapid.Byte()).Draw(t, "rest")
				pt := string(e.enc.AppendPrefix(nil, p))
				full := e.enc.EncodeToString(append(p[:len(p):len(p)], rest...))
				if !strings.HasPrefix(full, pt) {
					t.Fatalf("prefix text %s of %x does not start %s", pt, p, full)
				}
				if e.enc == Hex && pt != e.enc.EncodeToString(p) {
					t.Fatalf("hex prefix text %s of %x is not its text", pt, p)
				}
				if e.enc != Hex && len(p)%5 != 0 && len(pt) >= len(strings.TrimRight(e.enc.EncodeToString(p), "-")) {
					t.Fatalf("sb32 prefix text %s of %x keeps its partial character", pt, p)
				}
			})
		})
	}
}

func TestEncodingDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		enc *Encoding
		in  string
		off int
	}{
		{Hex, "0", 1},
		{Hex, "0G", 1},
		{Hex, "G0", 0},
		{Hex, "00 1", 2},
		{SB32, "0", 1},
		{SB32, "0W------", 1},
		{SB32, "0a------", 1},
		{SB32, "08------", 1},        // 3 bits hold at most 7
		{OrderedSB32, "0V------", 1}, // bits past the end
		{SB32, "00-", 3},             // 7 bits
		{SB32, "0--", 3},             // padding of no case
	} {
		dst := []byte("XY")
		got, err := c.enc.AppendDecode(dst, []byte(c.in))
		var de *DecodeError
		if !errors.Is(err, ErrText) || !errors.As(err, &de) || de.Offset != c.off {
			t.Errorf("%v %q: error %v, want ErrText at %d", *c.enc, c.in, err, c.off)
		}
		if string(got) != "XY" {
			t.Errorf("%v %q: AppendDecode returned %q, want dst unchanged", *c.enc, c.in, got)
		}
		if b, err2 := c.enc.DecodeString(c.in); b != nil || err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%v %q: DecodeString = %x, %v; want nil, %v", *c.enc, c.in, b, err2, err)
		}
	}
}

// The encoders allocate nothing into a buffer with room, DecodeString
// only its result, and EncodeToString only its string.
func TestEncodingAllocations(t *testing.T) {
	src := bytes.Repeat([]byte{0x12, 0x80, 0xC0, 0xA0, 0x60, 0x08}, 100)
	for _, e := range encodings {
		text := e.enc.EncodeToString(src)
		buf := make([]byte, 0, e.enc.EncodedLen(len(src)))
		for _, c := range []struct {
			what string
			want float64
			f    func()
		}{
			{"AppendEncode", 0, func() { buf = e.enc.AppendEncode(buf[:0], src) }},
			{"AppendPrefix", 0, func() { buf = e.enc.AppendPrefix(buf[:0], src[:7]) }},
			{"AppendDecode", 0, func() { buf, _ = e.enc.AppendDecode(buf[:0], []byte(text[:16])) }},
			{"EncodeToString", 1, func() { _ = e.enc.EncodeToString(src) }},
			{"DecodeString", 1, func() { _, _ = e.enc.DecodeString(text) }},
		} {
			if n := testing.AllocsPerRun(50, c.f); n != c.want {
				t.Errorf("%s.%s: %v allocations, want %v", e.name, c.what, n, c.want)
			}
		}
	}
}
