package main

import (
	"io"
	"math/bits"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

const prefixAbout = `
Print the prefix of each PATTERN: the encoding of the pattern up to its
first wildcard ('_', a bare _, or '$N'), which every matching term's encoding starts
with. With no PATTERN arguments, read patterns from stdin, one a line.

A binary prefix <<"ali",_/binary>> (every binary that starts with "ali")
ends the prefix as a wildcard does. A binary's bytes are framed in 9-bit
units, so its n bytes fix 9n bits of the encoding: the prefix holds their
whole bytes, and --range narrows the bounds by the 9n mod 8 bits left
over, which fix the start of the next byte (under #Desc, only the whole
bytes count).

With --format=sb32 the prefix drops its last, partial sb32 character and
the padding, so that it is a text prefix of every match's sb32 text.
--format=raw writes the bytes themselves and takes exactly one pattern.

With --range, print two lines for each pattern: the lower bound and the
upper bound of the half-open range [lower, upper) of the keys that can
match, ready for an ordered store's iterator: the keys that start with
the prefix and, after a binary prefix, with its bits left over. The upper
line is empty when there is no upper bound (an empty prefix, as for '_',
or one of all FF bytes). In hex these are sext.PrefixRange's bounds. In
sb32 they bound the keys' sb32 texts instead: the lower bound is the sb32
text every such key's text starts with (a binary prefix's bits left over
included, in whole characters of 5 bits) and the upper bound the least
sb32 text above every text that starts with it. (sb32 text does not always
sort as the bytes do, so the sb32 text of the byte bounds would not do.)
--range cannot be used with --format=raw.

examples:
  sext prefix "{user,'_'}"
  sext prefix --range "{user,'\$1',name}"
  sext prefix --range '{user, <<"ali", _/binary>>, _}'`

func runPrefix(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("prefix", "sext prefix [flags] [PATTERN...]", prefixAbout)
	digits := intDigitsFlag(fs)
	format := formatFlag(fs, "output `format`: hex (upper-case hex), sb32 (sortable base 32) or raw (the bytes; one pattern only)")
	utf8 := fs.Bool("utf8-atoms", false, "write atom names as UTF-8 instead of Latin-1")
	rng := fs.Bool("range", false, "print the lower and upper bounds of the key range, on two lines")
	ordered := orderedFlag(fs)
	args, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	opts := sext.Options{UTF8Atoms: *utf8}
	enc := textEncoding(format.val, *ordered)
	s := newSession(stdout, stderr)
	if format.val == "raw" {
		if *rng {
			return fs.usageError(stderr, "--range cannot be used with --format=raw")
		}
		return writeRaw(fs, s, args, stdin, "pattern", func(item string) ([]byte, error) {
			p, err := parsePattern(item, parseOptions(digits))
			if err != nil {
				return nil, err
			}
			return opts.Prefix(p)
		})
	}
	s.eachItem(args, stdin, func(_, item string) error {
		p, err := parsePattern(item, parseOptions(digits))
		if err != nil {
			return err
		}
		if *rng && format.val != "sb32" {
			lower, upper, err := opts.PrefixRange(p)
			if err != nil {
				return err
			}
			s.writeText(enc, lower)
			s.writeText(enc, upper) // empty line for nil
			return nil
		}
		b, err := opts.Prefix(p)
		if err != nil {
			return err
		}
		text := string(enc.AppendPrefix(nil, b))
		if *rng {
			if text, err = sb32RangePrefix(opts, enc, p, b); err != nil {
				return err
			}
		}
		s.out.WriteString(text + "\n")
		if *rng {
			s.out.WriteString(sb32Successor(text) + "\n")
		}
		return nil
	})
	return s.finish()
}

// sb32RangePrefix returns the sb32 text that the text of every key in
// pattern p's range starts with: the whole characters of the bits all
// those keys share, the bytes of p's prefix pre and, after a binary
// prefix, the bits of the next byte that it fixes.
func sb32RangePrefix(opts sext.Options, enc *sext.Encoding, p term.Term, pre []byte) (string, error) {
	lower, upper, err := opts.PrefixRange(p)
	if err != nil {
		return "", err
	}
	n := 8 * len(pre) // the bits every key shares
	if len(lower) > len(pre) {
		// The range's keys go on with a byte from lower's last to the
		// one before upper's last, or to FF where upper carried.
		hi := byte(0xFF)
		if len(upper) == len(lower) {
			hi = upper[len(upper)-1] - 1
		}
		n += bits.LeadingZeros8(lower[len(pre)] ^ hi)
	}
	return string(enc.AppendEncode(nil, lower)[:n/5]), nil
}

// sb32Successor returns the least sb32 text greater than every text that
// starts with p, or "" if there is none (p empty or all 'V').
func sb32Successor(p string) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
	for i := len(p) - 1; i >= 0; i-- {
		if j := strings.IndexByte(digits, p[i]); j >= 0 && j < len(digits)-1 {
			return p[:i] + digits[j+1:j+2]
		}
	}
	return ""
}
