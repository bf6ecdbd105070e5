package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/erlsext/sext/store"
)

const indexAbout = `
Secondary indexes, kept in the store itself: every process that opens
the store maintains them, each write of a key writing its index entries
in the same atomic write.

subcommands:
  create NAME PATTERN   index every key that matches PATTERN by what its
                        '$N' variables bind (several: the tuple of them,
                        in the order of their numbers); the keys already
                        stored are indexed in steps, with progress on
                        stderr, while writers go on
  drop NAME             delete the index and its entries
  list                  print "NAME<TAB>PATTERN<TAB>STATE" for each index
  check [--fix]         find data without entries, entries without data,
                        stale entries and unfinished builds or drops; exit
                        1 if there are any; --fix repairs them
  scan NAME VALUEPATTERN [--before VALUEPATTERN] [--limit N]
       [--reverse] [--count] [--after TOKEN]
                        print "TERM<TAB>VALUE" for each key whose index
                        value matches VALUEPATTERN ('_' for all), in index
                        order (by value, then key); --before ends a
                        half-open range of values (5 --before 8: 5, 6
                        and 7); with --limit, the
                        token that resumes after the last row goes to
                        stderr as "next: TOKEN"

examples:
  sext db --dir /tmp/shop index create order_id "{order, '_', '_', '\$1'}"
  sext db --dir /tmp/shop index scan order_id 500000
  sext db --dir /tmp/shop index scan order_id '_' --limit 10 --reverse`

// dbIndexSubs are the subcommands of "sext db index".
var dbIndexSubs = map[string]dbSub{
	"create": {"index create", "sext db --dir DIR index create NAME PATTERN [--progress DURATION]", "Define the index NAME over the keys that match PATTERN, which needs a '$N' variable, and index the keys already stored.", dbIndexCreate},
	"drop":   {"index drop", "sext db --dir DIR index drop NAME", "Delete the index NAME and its entries.", dbIndexDrop},
	"list":   {"index list", "sext db --dir DIR index list", "Print each index: NAME<TAB>PATTERN<TAB>STATE (building, ready or dropping).", dbIndexList},
	"check":  {"index check", "sext db --dir DIR index check [--fix]", indexCheckAbout, dbIndexCheck},
	"scan":   {"index scan", "sext db --dir DIR index scan NAME VALUEPATTERN [--before VALUEPATTERN] [--limit N] [--reverse] [--count] [--after TOKEN]", indexScanAbout, dbIndexScan},
}

// dbIndex dispatches "sext db index SUB".
func dbIndex(c *dbCall, args []string) int {
	return c.dispatch(args, dbIndexSubs, "create, drop, list, check or scan")
}

// dispatch runs the subcommand of a group (index, table) that args name,
// or says which there are; --help prints the group's help.
func (c *dbCall) dispatch(args []string, subs map[string]dbSub, names string) int {
	fs := c.flags()
	if len(args) == 0 {
		return fs.usageError(c.stderr, "missing subcommand: "+names)
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		_, status, _ := fs.parse(args, c.stdout, c.stderr)
		return status
	}
	sub, ok := subs[args[0]]
	if !ok {
		return fs.usageError(c.stderr, fmt.Sprintf("unknown subcommand %q", args[0]))
	}
	call := *c
	call.sub = sub
	return sub.run(&call, args[1:])
}

func dbIndexCreate(c *dbCall, args []string) int {
	fs := c.flags()
	every := fs.Duration("progress", 2*time.Second, "report progress every `DURATION` (a terminal's bar is redrawn more often)")
	args, status, ok := c.parse(fs, args, 2, "want a NAME and a PATTERN")
	if !ok {
		return status
	}
	if *every <= 0 {
		return fs.usageError(c.stderr, "--progress must be positive")
	}
	ts, ok := c.terms(args[1:], []string{"PATTERN"})
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	p := newProgress(c.stderr, "indexing", 0)
	p.every = *every
	var keys int64
	start := time.Now()
	err := s.CreateIndex(c.ctx, args[0], ts[0], &store.BuildOptions{Progress: func(n int64) {
		keys = n
		p.update(n, -1, 0)
	}})
	p.clear()
	if err != nil {
		fmt.Fprintf(c.stderr, "sext: %s\n", storeErr(err))
		if errors.Is(err, store.ErrIndexPattern) {
			return c.close(s, exitUsage)
		}
		return c.close(s, exitFail)
	}
	fmt.Fprintf(c.stderr, "indexed %s: read %s in %s\n", args[0], counted(keys, "key"), round(time.Since(start)))
	return c.close(s, exitOK)
}

func dbIndexDrop(c *dbCall, args []string) int {
	fs := c.flags()
	args, status, ok := c.parse(fs, args, 1, "want one NAME")
	if !ok {
		return status
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	status = exitOK
	if err := s.DropIndex(c.ctx, args[0], nil); err != nil {
		fmt.Fprintf(c.stderr, "sext: %s\n", storeErr(err))
		status = exitFail
	}
	return c.close(s, status)
}

func dbIndexList(c *dbCall, args []string) int {
	fs := c.flags()
	s, status, ok := c.openNoArgs(fs, args)
	if !ok {
		return status
	}
	out := newSession(c.stdout, c.stderr)
	list, err := s.Indexes(c.ctx)
	if err != nil {
		out.fail("", errors.New(storeErr(err)))
	}
	for _, ix := range list {
		fmt.Fprintf(out.out, "%s\t%s\t%s\n", ix.Name, appendTerm(nil, ix.Pattern), ix.State)
	}
	return c.close(s, out.finish())
}
