package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
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
	return &flagSet{FlagSet: fs, synopsis: synopsis, about: about}
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

// session holds a running command's output and remembers whether any
// input item failed.
type session struct {
	out    *bufio.Writer
	stderr io.Writer
	failed bool
	buf    []byte // scratch for one output line
}

func newSession(stdout, stderr io.Writer) *session {
	return &session{out: bufio.NewWriterSize(stdout, 64<<10), stderr: stderr}
}

// fail reports a bad input item: "sext: line 3: column 5: unexpected ']'".
func (s *session) fail(where string, err error) {
	s.failed = true
	if where != "" {
		where += ": "
	}
	fmt.Fprintf(s.stderr, "sext: %s%s\n", where, describe(err))
}

// finish flushes the output and returns the exit status.
func (s *session) finish() int {
	if err := s.out.Flush(); err != nil {
		fmt.Fprintf(s.stderr, "sext: writing output: %v\n", err)
		return exitFail
	}
	if s.failed {
		return exitFail
	}
	return exitOK
}

// textError marks an error in the hex or sb32 text of an encoding; its
// offset counts characters of the text, not bytes of the encoding.
type textError struct {
	off int // offset in the line as read
	err *sext.DecodeError
}

func (e *textError) Error() string { return e.err.Error() }

// describe formats an error for a one-line report, with the position it
// carries: a column for text, a byte offset for an encoding.
func describe(err error) string {
	var te *textError
	if errors.As(err, &te) {
		return fmt.Sprintf("column %d: %s", te.off+1, decodeMsg(te.err))
	}
	var se *term.SyntaxError
	if errors.As(err, &se) {
		if se.Line > 1 {
			return fmt.Sprintf("line %d, column %d: %s", se.Line, se.Column, se.Msg)
		}
		return fmt.Sprintf("column %d: %s", se.Column, se.Msg)
	}
	var de *sext.DecodeError
	if errors.As(err, &de) {
		return fmt.Sprintf("byte %d: %s", de.Offset, decodeMsg(de))
	}
	msg := strings.TrimPrefix(err.Error(), "sext: ")
	return strings.Replace(msg, "(use UTF8Atoms)", "(use --utf8-atoms)", 1)
}

func decodeMsg(de *sext.DecodeError) string {
	msg := de.Err.Error()
	if de.Detail != "" {
		msg += ": " + de.Detail
	}
	return msg
}

// eachItem calls fn for each positional argument, or when there are none
// for each line of stdin. where names the item for error reports ("line
// 3", "argument 2"). Lines have their line ending removed; blank lines
// are skipped but counted. Lines may be of any length. A panic in fn is
// reported as that item's error rather than crashing the program.
func (s *session) eachItem(args []string, stdin io.Reader, fn func(where, item string) error) {
	call := func(where, item string) {
		if err := safely(func() error { return fn(where, item) }); err != nil {
			s.fail(where, err)
		}
	}
	if len(args) > 0 {
		for i, a := range args {
			call("argument "+strconv.Itoa(i+1), a)
			if i > 0 && len(a) > 1 && a[0] == '-' && (a[1] == '-' || a[1] >= 'a' && a[1] <= 'z') {
				fmt.Fprintf(s.stderr, "sext: note: %q looks like a flag; flags must come before the arguments\n", a)
			}
		}
		return
	}
	err := eachLine(stdin, func(n int, line string) {
		call("line "+strconv.Itoa(n), line)
	})
	if err != nil {
		s.fail("", fmt.Errorf("reading input: %w", err))
	}
}

// eachLine calls fn for each non-blank line of r, numbered from 1,
// without its "\n" or "\r\n". It has no limit on line length.
func eachLine(r io.Reader, fn func(n int, line string)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) > 0 {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if strings.TrimSpace(line) != "" {
				fn(n, line)
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// safely runs fn and turns a panic into an error.
func safely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report it): %v", r)
		}
	}()
	return fn()
}

// parseTerm parses one term of text.
func parseTerm(s string) (term.Term, error) { return term.Parse(s) }

// appendTerm appends t's text. A term without an exact text form (which
// decoding should never produce) gets String's form.
func appendTerm(dst []byte, t term.Term) []byte {
	if b, err := t.AppendText(dst); err == nil {
		return b
	}
	return term.AppendString(dst, t)
}

// writeTerm writes t's text and a newline.
func (s *session) writeTerm(t term.Term) {
	s.buf = append(appendTerm(s.buf[:0], t), '\n')
	s.out.Write(s.buf)
}

// parseArgTerms parses the operand terms of match and compare. On a
// parse error it reports it and returns ok false.
func parseArgTerms(fs *flagSet, args []string, names []string, stderr io.Writer) ([]term.Term, bool) {
	ts := make([]term.Term, len(args))
	for i, a := range args {
		t, err := parseTerm(a)
		if err != nil {
			fmt.Fprintf(stderr, "sext: %s: %s\n", names[i], describe(err))
			return nil, false
		}
		ts[i] = t
	}
	return ts, true
}
