package sext

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/erlsext/sext/term"
)

// readLines returns the lines of a file in testdata, with their line
// numbers, and fails the test if the file holds none.
func readLines(t testing.TB, name string) []vectorLine {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []vectorLine
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		if s.Text() != "" {
			lines = append(lines, vectorLine{n, strings.Split(s.Text(), "\t")})
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return lines
}

type vectorLine struct {
	n      int
	fields []string
}

func mustParse(t *testing.T, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return x
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}

// decoders lists both decoders: every decoding test runs against each.
var decoders = []struct {
	name   string
	decode func([]byte) (term.Term, error)
}{
	{"recursive", DecodeRecursive},
	{"cps", DecodeCPS},
	{"decode", Decode}, // the flat path, else cps
}

func TestVectorsEncode(t *testing.T) {
	for _, l := range readLines(t, "encode.tsv") {
		x := mustParse(t, l.fields[0])
		got, err := Encode(x)
		if err != nil {
			t.Errorf("line %d: Encode(%s): %v", l.n, l.fields[0], err)
			continue
		}
		if diff := cmp.Diff(l.fields[1], hex.EncodeToString(got)); diff != "" {
			t.Errorf("line %d: Encode(%s) (-want +got):\n%s", l.n, l.fields[0], diff)
		}
		for _, d := range decoders {
			back, err := d.decode(mustHex(t, l.fields[1]))
			if err != nil {
				t.Errorf("line %d: %s decoder: %s: %v", l.n, d.name, l.fields[0], err)
				continue
			}
			if !term.Equal(back, x) {
				t.Errorf("line %d: %s decoder (-want +got):\n%s", l.n, d.name, cmp.Diff(x.String(), back.String()))
			}
		}
	}
}

func TestVectorsReferenceCannotDecode(t *testing.T) {
	encoded := map[string]bool{}
	for _, l := range readLines(t, "encode.tsv") {
		encoded[l.fields[0]] = true
	}
	for _, l := range readLines(t, "sext_decode_fails.txt") {
		if !encoded[l.fields[0]] {
			t.Errorf("line %d: %s has no vector in encode.tsv", l.n, l.fields[0])
		}
	}
}

func TestVectorsOrder(t *testing.T) {
	var prev []byte
	var prevText string
	for i, l := range readLines(t, "order.txt") {
		b, err := Encode(mustParse(t, l.fields[0]))
		if err != nil {
			t.Fatalf("line %d: %v", l.n, err)
		}
		if i > 0 && bytes.Compare(prev, b) >= 0 {
			t.Errorf("line %d: encoding of %s does not sort after %s", l.n, l.fields[0], prevText)
		}
		prev, prevText = b, l.fields[0]
	}
}

func TestVectorsInvalid(t *testing.T) {
	for _, l := range readLines(t, "invalid.txt") {
		b := mustHex(t, l.fields[0])
		for _, d := range decoders {
			if x, err := d.decode(b); err == nil {
				t.Errorf("line %d: %s decoder accepted %s as %s", l.n, d.name, l.fields[0], x)
			}
		}
	}
}

func TestVectorsPrefix(t *testing.T) {
	for _, l := range readLines(t, "prefix.tsv") {
		p := mustParse(t, l.fields[0])
		got, err := Prefix(p)
		if err != nil {
			t.Errorf("line %d: Prefix(%s): %v", l.n, l.fields[0], err)
			continue
		}
		if diff := cmp.Diff(l.fields[1], hex.EncodeToString(got)); diff != "" {
			t.Errorf("line %d: Prefix(%s) (-want +got):\n%s", l.n, l.fields[0], diff)
		}
		wantKind, wantText, _ := strings.Cut(l.fields[2], " ")
		pat, full, rest, err := PartialDecode(mustHex(t, l.fields[1]))
		if err != nil || len(rest) != 0 {
			t.Errorf("line %d: PartialDecode: %v, rest %x", l.n, err, rest)
			continue
		}
		gotKind := map[bool]string{true: "full", false: "partial"}[full]
		if gotKind != wantKind || !term.Equal(pat, mustParse(t, wantText)) {
			t.Errorf("line %d: PartialDecode(%s) = %s %s, want %s", l.n, l.fields[1], gotKind, pat, l.fields[2])
		}
	}
}

func TestVectorsReverse(t *testing.T) {
	for _, l := range readLines(t, "reverse.tsv") {
		x := term.Desc(mustParse(t, l.fields[0]))
		got, err := Encode(x)
		if err != nil {
			t.Errorf("line %d: %v", l.n, err)
			continue
		}
		if diff := cmp.Diff(l.fields[1], hex.EncodeToString(got)); diff != "" {
			t.Errorf("line %d: Encode(Desc(%s)) (-want +got):\n%s", l.n, l.fields[0], diff)
		}
		for _, d := range decoders {
			back, err := d.decode(got)
			if err != nil || !term.Equal(back, x) {
				t.Errorf("line %d: %s decoder: got %v, %v; want %s", l.n, d.name, back, err, x)
			}
		}
	}
}

func TestVectorsLegacy(t *testing.T) {
	for _, l := range readLines(t, "legacy.tsv") {
		x := mustParse(t, l.fields[0])
		b := mustHex(t, l.fields[1])
		for _, d := range decoders {
			back, err := d.decode(b)
			if err != nil || !term.Equal(back, x) {
				t.Errorf("line %d: %s decoder: got %v, %v; want %s", l.n, d.name, back, err, x)
			}
		}
		got, err := Options{Legacy: true}.Encode(x)
		if err != nil {
			t.Errorf("line %d: %v", l.n, err)
			continue
		}
		if diff := cmp.Diff(l.fields[1], hex.EncodeToString(got)); diff != "" {
			t.Errorf("line %d: legacy Encode(%s) (-want +got):\n%s", l.n, l.fields[0], diff)
		}
	}
}

func TestVectorsSB32(t *testing.T) {
	for _, l := range readLines(t, "sb32.tsv") {
		x := mustParse(t, l.fields[0])
		b, err := Encode(x)
		if err != nil {
			t.Fatalf("line %d: %v", l.n, err)
		}
		sb, hx := SB32.EncodeToString(b), Hex.EncodeToString(b)
		if sb != l.fields[1] || hx != l.fields[2] {
			t.Errorf("line %d: %s: got %s %s, want %s %s", l.n, l.fields[0], sb, hx, l.fields[1], l.fields[2])
		}
		for _, s := range []struct {
			text string
			enc  *Encoding
		}{{l.fields[1], SB32}, {l.fields[2], Hex}} {
			back, err := decodeText(s.enc, s.text)
			if err != nil || !term.Equal(back, x) {
				t.Errorf("line %d: decoding %s: got %v, %v", l.n, s.text, back, err)
			}
		}
	}
}

func TestVectorsPrefixSB32(t *testing.T) {
	for _, l := range readLines(t, "prefix_sb32.tsv") {
		p := mustParse(t, l.fields[0])
		b, err := Prefix(p)
		if err != nil {
			t.Fatalf("line %d: %v", l.n, err)
		}
		sb, hx := string(SB32.AppendPrefix(nil, b)), string(Hex.AppendPrefix(nil, b))
		want := append(l.fields[1:], "", "")
		if sb != want[0] || hx != want[1] {
			t.Errorf("line %d: %s: got %q %q, want %q %q", l.n, l.fields[0], sb, hx, want[0], want[1])
		}
	}
}

// TestNodeNamesLatin1: the reference writes node names as OTP 25's
// term_to_binary gives them, in Latin-1, with or without UTF-8 atoms (the
// bytes below are its encode/1's, on OTP 25), and reads them back as
// Latin-1; a node name beyond Latin-1 it would read back as other
// characters, so it is refused.
func TestNodeNamesLatin1(t *testing.T) {
	for _, c := range []struct{ text, hex string }{
		{"#Pid<'é@h',1,2,3>", "0FF4D02D0008000000010000000203"},
		{"#Port<'é@h',5,3>", "0EF4D02D00080000000503"},
		{"#Ref<'é@h',3,7,9>", "0DF4D02D000881C02010083C020100848008"},
	} {
		x, want := mustParse(t, c.text), mustHex(t, c.hex)
		for _, o := range []Options{{}, {UTF8Atoms: true}} {
			if got, err := o.Encode(x); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %+v: encodes to %X, %v; the reference writes %s", c.text, o, got, err, c.hex)
			}
			for _, decode := range []func([]byte) (term.Term, error){o.Decode, o.DecodeRecursive, o.DecodeCPS} {
				if got, err := decode(want); err != nil || !term.Equal(got, x) {
					t.Errorf("%s, %+v: %X decodes to %v, %v", c.text, o, want, got, err)
				}
			}
		}
	}
	if _, err := Encode(mustParse(t, "#Pid<'日本@h',1,2,3>")); !errors.Is(err, ErrUnencodable) {
		t.Errorf("a node name beyond Latin-1: %v, want ErrUnencodable", err)
	}
}
