package main

import (
	"errors"
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

const checkAbout = `
Read every key in the store and count the keys that are no sext encoding
(foreign: written by another program) and those that decode but are not
the bytes this encoder writes for their term (non-canonical: a legacy
bignum, a map with its entries unsorted, as other writers of sext leave
them). Get and del address a term's canonical bytes, so they do not reach
a non-canonical key, and a scan shows it beside the canonical one as if
the key were there twice. Also list the torn write-ahead logs the store
has on record (writes lost when it opened after a crash or a damaged
disk). Each finding is one "sext:" line on stderr (at most 20 of each
kind); the counts go to stdout. The exit status is 1 if anything was
found.

With --fix, rewrite each non-canonical key to its canonical bytes, value
kept: the new key is written and the old one deleted in one atomic
batch. A key whose canonical bytes are stored too is a conflict and left
as it is, since one of two values would be lost. --fix also clears the
note of torn logs, once reported. The exit status is then 0 if nothing
is left to fix: no foreign keys and no conflicts.`

func dbCheck(c *dbCall, args []string) int {
	fs := c.flags()
	fix := fs.Bool("fix", false, "rewrite non-canonical keys to their canonical bytes, and clear the note of torn logs")
	s, status, ok := c.openNoArgs(fs, args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	var nForeign, nOdd int
	opts := store.CheckOptions{
		Fix: *fix,
		OnForeign: func(k []byte, err error) {
			if nForeign++; nForeign <= maxBadLines {
				fmt.Fprintf(c.stderr, "sext: key %s: not a sext encoding: %s\n", sext.Hex.EncodeToString(k), describe(err))
			}
		},
		OnNonCanonical: func(k []byte, t term.Term, ferr error) {
			if nOdd++; nOdd > maxBadLines {
				return
			}
			switch {
			case !*fix:
				fmt.Fprintf(c.stderr, "sext: key %s: %v\n", sext.Hex.EncodeToString(k), c.be.nonCanonical(t))
			case ferr == nil:
				fmt.Fprintf(c.stderr, "sext: key %s: rewritten as %s\n", sext.Hex.EncodeToString(k), appendTerm(nil, t))
			default:
				fmt.Fprintf(c.stderr, "sext: key %s (%s): %s\n", sext.Hex.EncodeToString(k), appendTerm(nil, t), storeErr(ferr))
			}
		},
	}
	r, err := s.Check(c.ctx, opts)
	if err != nil {
		out.fail("", errors.New(storeErr(err)))
	}
	if nForeign > maxBadLines || nOdd > maxBadLines {
		fmt.Fprintln(c.stderr, "sext: (more keys not shown; the counts are on stdout)")
	}
	fmt.Fprintf(out.out, "keys           %s\n", commas(r.Keys))
	fmt.Fprintf(out.out, "foreign        %s\n", commas(r.Foreign))
	fmt.Fprintf(out.out, "non-canonical  %s\n", commas(r.NonCanonical))
	if *fix {
		fmt.Fprintf(out.out, "rewritten      %s\n", commas(r.Fixed))
		fmt.Fprintf(out.out, "conflicts      %s\n", commas(r.Conflicts))
	}
	fmt.Fprintf(out.out, "torn logs      %d\n", len(r.Warnings))
	// Opening the store printed each torn log as a warning already.
	switch {
	case *fix && (r.Foreign > 0 || r.Conflicts > 0):
		out.failed = true
	case !*fix && !r.Clean():
		out.failed = true
	}
	return c.close(s, out.finish())
}
