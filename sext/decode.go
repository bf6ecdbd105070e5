package main

import (
	"errors"
	"io"
	"strings"

	"github.com/erlsext/sext"
)

const decodeAbout = `
Decode each ENCODING and print the term in Erlang term syntax, one a line.
With no ENCODING arguments, read encodings from stdin, one a line (blank
lines are skipped). Hex may be in either case. A line that does not
decode is reported on stderr as "sext: line N: ..." with the column of a
bad text character or the byte offset in the encoding of the failing
term; the others still go through, and the exit status is then 1.

With --format=raw, all of stdin is one encoding and no arguments are
taken.

examples:
  sext decode 10000000020CB08008
  sext decode --canonical --max-depth 100 < keys.txt
  sext encode --format=raw '{a,1}' | sext decode --format=raw`

func runDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("decode", "sext decode [flags] [ENCODING...]", decodeAbout)
	format := formatFlag(fs, "input `format`: hex (either case), sb32 (sortable base 32) or raw (all of stdin is one encoding)")
	decoder := newChoice(fs, "decoder", "cps", "`decoder` to use: recursive or cps (continuation stack)", "recursive", "cps")
	utf8 := fs.Bool("utf8-atoms", false, "read atom names as UTF-8 instead of Latin-1")
	canonical := fs.Bool("canonical", false, "accept only exactly what the encoder writes (no legacy bignums, unsorted map keys, ...)")
	maxDepth := fs.Int("max-depth", 0, "nesting limit, `N` levels (0: the library default, 10000)")
	ordered := orderedFlag(fs)
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if *maxDepth < 0 {
		return fs.usageError(stderr, "--max-depth must not be negative")
	}
	opts := sext.Options{UTF8Atoms: *utf8, Canonical: *canonical, MaxDepth: *maxDepth}
	enc := textEncoding(format.val, *ordered)
	dec := opts.DecodeCPS
	if decoder.val == "recursive" {
		dec = opts.DecodeRecursive
	}
	s := newSession(stdout, stderr)
	emit := func(b []byte) error {
		t, err := dec(b)
		if err != nil {
			return err
		}
		s.writeTerm(t)
		return nil
	}
	return decodeItems(fs, s, format.val == "raw", enc, args, stdin, emit)
}

// decodeItems runs emit on each encoding decode and etf decode read:
// with raw, all of stdin as one; otherwise each argument, or each line
// of stdin, in enc's text.
func decodeItems(fs *flagSet, s *session, raw bool, enc *sext.Encoding, args []string, stdin io.Reader, emit func([]byte) error) int {
	if raw {
		if len(args) > 0 {
			return fs.usageError(s.stderr, "--format=raw reads stdin and takes no arguments")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			s.fail("", err)
		} else if err := safely(func() error { return emit(b) }); err != nil {
			s.fail("input", err)
		}
		return s.finish()
	}
	s.eachItem(args, stdin, func(_, item string) error {
		b, err := fromText(enc, item)
		if err != nil {
			return err
		}
		return emit(b)
	})
	return s.finish()
}

// fromText reads the hex or sb32 text of an encoding, with surrounding
// blanks allowed. Its errors are *textError, placed in item.
func fromText(enc *sext.Encoding, item string) ([]byte, error) {
	trimmed := strings.TrimLeft(item, " \t")
	lead := len(item) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, " \t\r")
	b, err := enc.DecodeString(trimmed)
	var de *sext.DecodeError
	if errors.As(err, &de) {
		return nil, &textError{off: lead + de.Offset, err: de}
	}
	return b, err
}
