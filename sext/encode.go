package main

import (
	"io"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

const encodeAbout = `
Encode each TERM, written in Erlang term syntax, and print its encoding,
one a line. With no TERM arguments, read terms from stdin, one a line
(blank lines are skipped). A line that does not parse or encode is
reported on stderr as "sext: line N: ..." and the others still go
through; the exit status is then 1.

Formats: hex is upper-case hex, as the reference writes it; sb32 is
sortable base 32; raw writes the bytes themselves, without a newline, and
takes exactly one term.

A TERM that starts with '-' may be given directly (sext encode -1); put
"--" before any other argument that starts with '-'.

examples:
  sext encode '{user,42}' '[1,2,3]'
  sext encode --desc --format=sb32 '<<"abc">>'
  sext encode --format=raw '{a,1}' > key.bin`

func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("encode", "sext encode [flags] [TERM...]", encodeAbout)
	digits := intDigitsFlag(fs)
	format := formatFlag(fs, "output `format`: hex (upper-case hex), sb32 (sortable base 32) or raw (the bytes; one term only)")
	utf8 := fs.Bool("utf8-atoms", false, "write atom names as UTF-8 instead of Latin-1")
	legacy := fs.Bool("legacy", false, "write bignums in the pre-2013 layout, without a size prefix")
	desc := fs.Bool("desc", false, "encode each term in descending order, as #Desc<TERM> (tag byte 4)")
	ordered := orderedFlag(fs)
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	opts := sext.Options{UTF8Atoms: *utf8, Legacy: *legacy}
	enc := textEncoding(format.val, *ordered)
	encode := func(item string) ([]byte, error) {
		t, err := parseTerm(item, parseOptions(digits))
		if err != nil {
			return nil, err
		}
		if *desc {
			t = term.Desc(t)
		}
		return opts.Encode(t)
	}
	return encodeItems(fs, newSession(stdout, stderr), format.val == "raw", enc, args, stdin, encode)
}

// encodeItems writes what encode makes of each item encode and etf
// encode read (each argument, or each line of stdin): with raw, the
// bytes of the one item there must be; otherwise a line of enc's text
// each.
func encodeItems(fs *flagSet, s *session, raw bool, enc *sext.Encoding, args []string, stdin io.Reader, encode func(string) ([]byte, error)) int {
	if raw {
		return writeRaw(fs, s, args, stdin, "term", encode)
	}
	s.eachItem(args, stdin, func(_, item string) error {
		b, err := encode(item)
		if err != nil {
			return err
		}
		s.writeText(enc, b)
		return nil
	})
	return s.finish()
}

// writeRaw handles --format=raw for encode and prefix: exactly one item,
// whose bytes are written as they are.
func writeRaw(fs *flagSet, s *session, args []string, stdin io.Reader, what string, encode func(string) ([]byte, error)) int {
	type item struct{ where, text string }
	var items []item
	s.eachItem(args, stdin, func(where, text string) error {
		if len(items) < 2 {
			items = append(items, item{where, text})
		}
		return nil
	})
	if s.failed {
		return s.finish()
	}
	if len(items) != 1 {
		return fs.usageError(s.stderr, "--format=raw takes exactly one "+what)
	}
	err := safely(func() error {
		b, err := encode(items[0].text)
		if err == nil {
			s.out.Write(b)
		}
		return err
	})
	if err != nil {
		s.fail(items[0].where, err)
	}
	return s.finish()
}
