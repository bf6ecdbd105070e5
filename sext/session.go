package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

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

// writeTerm writes t's text and a newline.
func (s *session) writeTerm(t term.Term) {
	s.buf = append(appendTerm(s.buf[:0], t), '\n')
	s.out.Write(s.buf)
}

// writeText writes b's text and a newline.
func (s *session) writeText(enc *sext.Encoding, b []byte) {
	s.buf = append(enc.AppendEncode(s.buf[:0], b), '\n')
	s.out.Write(s.buf)
}
