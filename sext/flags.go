package main

import (
	"github.com/erlsext/sext/term"

	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/erlsext/sext"
)

// Exit statuses shared by the subcommands.
const (
	exitOK    = 0
	exitFail  = 1 // some input was bad, or no match
	exitUsage = 2 // bad flags or arguments
)

// flagSet is a subcommand's flags with the text of its help.
type flagSet struct {
	*flag.FlagSet
	synopsis string // "sext encode [flags] [TERM...]"
	about    string // paragraphs after the synopsis
}

func newFlagSet(name, synopsis, about string) *flagSet {
	fs := flag.NewFlagSet("sext "+name, flag.ContinueOnError)
	fs.Usage = func() {} // parse prints the help itself
	f := &flagSet{FlagSet: fs, synopsis: synopsis, about: about}
	printFlag(f)
	return f
}

// parse parses args. If it returns ok false the command must return
// status at once: -h printed the help to stdout (status 0), or a bad flag
// was reported on stderr (status 2).
func (fs *flagSet) parse(args []string, stdout, stderr io.Writer) (rest []string, status int, ok bool) {
	fs.SetOutput(io.Discard) // the error comes back from Parse too
	err := fs.Parse(protectNegatives(fs.FlagSet, args))
	if errors.Is(err, flag.ErrHelp) {
		fs.printHelp(stdout)
		return nil, exitOK, false
	}
	if err != nil {
		return nil, fs.usageError(stderr, err.Error()), false
	}
	return fs.Args(), exitOK, true
}

// usageError reports a usage problem and returns exitUsage.
func (fs *flagSet) usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), msg)
	fmt.Fprintf(stderr, "usage: %s\nRun \"sext help %s\" for details.\n",
		fs.synopsis, strings.TrimPrefix(fs.Name(), "sext "))
	return exitUsage
}

func (fs *flagSet) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", fs.synopsis, strings.TrimSpace(fs.about))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if isBoolFlag(f) {
			fmt.Fprintf(w, "  --%s\n", f.Name)
		} else {
			fmt.Fprintf(w, "  --%s %s\n", f.Name, name)
		}
		fmt.Fprintf(w, "        %s", usage)
		if !isBoolFlag(f) && f.DefValue != "" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// protectNegatives inserts "--" before the first positional argument if
// it starts with '-' and a digit, so that "sext encode -1" takes -1 as a
// term rather than an unknown flag.
func protectNegatives(fs *flag.FlagSet, args []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return args
		}
		if a[1] >= '0' && a[1] <= '9' {
			out := make([]string, 0, len(args)+1)
			out = append(append(append(out, args[:i]...), "--"), args[i:]...)
			return out
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
			i++ // skip the flag's value
		}
	}
	return args
}

// choiceValue is a flag that takes one of a fixed set of words.
type choiceValue struct {
	val     string
	choices []string
}

func newChoice(fs *flagSet, name, def, usage string, choices ...string) *choiceValue {
	c := &choiceValue{val: def, choices: choices}
	fs.Var(c, name, usage)
	return c
}

func (c *choiceValue) String() string {
	if c == nil {
		return ""
	}
	return c.val
}

func (c *choiceValue) Set(s string) error {
	for _, x := range c.choices {
		if s == x {
			c.val = s
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(c.choices, ", "))
}

// formatFlag adds the --format flag shared by encode, decode and prefix.
func formatFlag(fs *flagSet, usage string) *choiceValue {
	return newChoice(fs, "format", "hex", usage, "hex", "sb32", "raw")
}

// orderedFlag is --ordered-sb32, sext.OrderedSB32 rather than sext.SB32
// for the commands that write or read sb32.
func orderedFlag(fs *flagSet) *bool {
	return fs.Bool("ordered-sb32", false, "with --format=sb32, shift the bits of a last partial character up (RFC 4648), so that sb32 texts always sort as the encodings; the reference does not")
}

// textEncoding is the text form that --format (hex or sb32) and
// --ordered-sb32 name.
func textEncoding(format string, ordered bool) *sext.Encoding {
	switch {
	case format != "sb32":
		return sext.Hex
	case ordered:
		return sext.OrderedSB32
	}
	return sext.SB32
}

// parseAll parses flags that may come before, between or after the
// positional arguments ("scan PATTERN --limit 5"), which the flag package
// alone stops at.
func parseAll(fs *flagSet, args []string, stdout, stderr io.Writer) (pos []string, status int, ok bool) {
	for {
		rest, status, ok := fs.parse(args, stdout, stderr)
		if !ok {
			return nil, status, false
		}
		if len(rest) == 0 {
			return pos, exitOK, true
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// flagGiven reports whether the flag was set on the command line.
func flagGiven(fs *flagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// intDigitsFlag adds --max-int-digits to a command that reads terms, so
// that an integer longer than term.Parse's default limit, as decode and
// the db commands may print it, reads back; its value gives the options
// every TERM is parsed with.
func intDigitsFlag(fs *flagSet) *int {
	return fs.Int("max-int-digits", 0, "the most decimal digits an integer in a TERM may have, `N` (0: 4300; -1: no limit)")
}

// parseOptions is what a TERM is parsed with, given --max-int-digits.
func parseOptions(digits *int) term.ParseOptions {
	return term.ParseOptions{MaxIntDigits: *digits}
}
