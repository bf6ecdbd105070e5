package main

import (
	"fmt"
	"io"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/etf"
)

const etfAbout = `
sext etf encode [flags] [TERM...]
  Write each TERM, in Erlang term syntax, as term_to_binary(TERM) writes
  it on Erlang/OTP 25, one hex line each.
sext etf decode [flags] [HEX...]
  Read each HEX line as binary_to_term does and print the term.

With no arguments, each reads its items from stdin, one a line (blank
lines are skipped). A line that does not parse, encode or decode is
reported on stderr as "sext: line N: ..." with the column of a bad text
character or the byte offset of the failing term; the others still go
through, and the exit status is then 1. Run "sext etf encode -h" or
"sext etf decode -h" for the flags.

examples:
  sext etf encode '{ok,[1,2]}'
  sext etf encode --minor-version 2 --compressed 6 "$(cat term.txt)"
  sext etf decode 836803640002...`

func runETF(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("etf", "sext etf encode|decode [flags] [ITEM...]", etfAbout)
	if len(args) == 0 {
		return fs.usageError(stderr, "encode or decode?")
	}
	switch args[0] {
	case "encode":
		return runETFEncode(args[1:], stdin, stdout, stderr)
	case "decode":
		return runETFDecode(args[1:], stdin, stdout, stderr)
	}
	if _, status, ok := fs.parse(args, stdout, stderr); !ok {
		return status
	}
	return fs.usageError(stderr, fmt.Sprintf("unknown subcommand %q: encode or decode", args[0]))
}

const etfEncodeAbout = `
Write each TERM as term_to_binary(TERM) writes it on Erlang/OTP 25, in
upper-case hex, one a line; with no TERM arguments, read terms from
stdin, one a line. --minor-version and --compressed are term_to_binary's
options of those names (--minor-version 2 is OTP 26's default). A map of
more than 32 keys is written in erts's hash order unless a key holds an
atom, pid, port or reference (then in key order), and compressed bytes
come from Go's zlib, not erts's: both read back as the same term.

examples:
  sext etf encode '{ok,[1,2]}' 'a'
  sext etf encode --format=raw '#{a => 1}' > value.bin`

func runETFEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("etf encode", "sext etf encode [flags] [TERM...]", etfEncodeAbout)
	digits := intDigitsFlag(fs)
	format := newChoice(fs, "format", "hex", "output `format`: hex (upper-case hex) or raw (the bytes; one term only)", "hex", "raw")
	minor := fs.Int("minor-version", 1, "term_to_binary's minor_version `N`: 0 (text floats), 1 (OTP 25) or 2 (UTF-8 atoms, OTP 26)")
	level := fs.Int("compressed", 0, "zlib `level` 1..9 as term_to_binary's {compressed, Level}; 0 writes no compression")
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	opts, ok := etf.Options{Compression: *level}.WithMinorVersion(*minor)
	if !ok {
		return fs.usageError(stderr, "--minor-version must be 0, 1 or 2")
	}
	if *level < 0 || *level > 9 {
		return fs.usageError(stderr, "--compressed must be 0..9")
	}
	encode := func(item string) ([]byte, error) {
		t, err := parseTerm(item, parseOptions(digits))
		if err != nil {
			return nil, err
		}
		return opts.Encode(t)
	}
	return encodeItems(fs, newSession(stdout, stderr), format.val == "raw", sext.Hex, args, stdin, encode)
}

const etfDecodeAbout = `
Read each HEX (either case) as binary_to_term reads it and print the term
in Erlang term syntax, one a line; with no HEX arguments, read them from
stdin, one a line. Every tag OTP 25 and 26 write is read, compressed
terms too; funs and exports are an error. Unlike binary_to_term, bytes
after the term are an error. A compressed term may inflate to 64 times its
own bytes (or 1 MiB, whatever its size) and to 64 MiB at most, so that a
small input cannot make the decoder allocate gigabytes:
--max-inflate-ratio and --max-inflate lift the limits.

With --format=raw, all of stdin is one term and no arguments are taken.

examples:
  sext etf decode 83680264000161610A
  sext etf encode --format=raw '{a,1}' | sext etf decode --format=raw`

func runETFDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("etf decode", "sext etf decode [flags] [HEX...]", etfDecodeAbout)
	format := newChoice(fs, "format", "hex", "input `format`: hex (either case) or raw (all of stdin is one term)", "hex", "raw")
	maxDepth := fs.Int("max-depth", 0, "nesting limit, `N` levels (0: the library default, 10000)")
	maxInflate := fs.Int("max-inflate", 0, "most `bytes` a compressed term may inflate to (0: the library default, 64 MiB)")
	maxRatio := fs.Int("max-inflate-ratio", 0, "most a compressed term may inflate to, `N` times its own bytes, above 1 MiB (0: the library default, 64; -1: no ratio, only --max-inflate)")
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	if *maxDepth < 0 || *maxInflate < 0 || *maxRatio < -1 {
		return fs.usageError(stderr, "--max-depth and --max-inflate must not be negative, nor --max-inflate-ratio below -1")
	}
	opts := etf.Options{MaxDepth: *maxDepth, MaxInflate: *maxInflate, MaxInflateRatio: *maxRatio}
	s := newSession(stdout, stderr)
	emit := func(b []byte) error {
		t, err := opts.Decode(b)
		if err != nil {
			return err
		}
		s.writeTerm(t)
		return nil
	}
	return decodeItems(fs, s, format.val == "raw", sext.Hex, args, stdin, emit)
}
