package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
)

const migrateAbout = `
Move every key that a clause of SPEC matches to the key its body builds,
keeping its value and its index entries: SPEC is a match specification
as select takes it, the head matching keys of the old layout, the body
building keys of the new. For instance, to make every order's timestamp
descending:

  sext db --dir D migrate "[{{order,'\$1','\$2','\$3'},[{is_integer,'\$2'}],[{{order,'\$1',#Desc<'\$2'>,'\$3'}}]}]"

Keys are read in steps of --batch keys (1,000; with --etcd fewer, to fit
etcd's transactions), and each step's moves are one atomic write. A key
whose new key exists already is a conflict: it is left, and the existing
key is not touched. A key that already has the shape of a body's key
(the body with its variables and calls as wildcards) is left too: so a
key is never moved twice, and running a finished migration again
changes nothing. SPEC must build keys of a shape its head's keys do not
have (another tag, a #Desc, one more element); one that could not tell
them apart, a swap of two elements say, is refused.

stdout gets samples, one a line: "move<TAB>FROM<TAB>TO" for the first
--samples moves and "conflict<TAB>FROM<TAB>TO" for the first conflicts.
--dry-run reads and counts without writing: its moves and conflicts are
what a migration of the store as it is would do. Progress goes to
stderr, on a terminal as one line redrawn, elsewhere as a line every
--progress interval that ends in the token that resumes the migration
from there: the store is synced first, so the keys moved before the
token stay moved whatever happens next. After a crash or an interrupt,
pass the last token to --after (with the same SPEC) to go on; a stale
token, or none, only reads again what is already moved. At the end a
summary: keys read, moved, in conflict, and left as already of the new
layout. The exit status is 1 if any key was left in conflict.`

func init() {
	dbSubs["migrate"] = dbSub{"migrate", "sext db --dir DIR migrate [--dry-run] [--after TOKEN] [--batch N] [--samples N] [--progress DURATION] SPEC", migrateAbout, dbMigrate}
}

func dbMigrate(c *dbCall, args []string) int {
	fs := c.flags()
	dry := fs.Bool("dry-run", false, "read and count, write nothing")
	after := fs.String("after", "", "resume after the step this `TOKEN` came from")
	batch := fs.Int("batch", 0, "keys a step reads, its moves one atomic write (0: 1,000, or with --etcd 60 divided by one more than the number of indexes)")
	samples := fs.Int("samples", 10, "print the first `N` moves and the first N conflicts")
	every := fs.Duration("progress", 2*time.Second, "sync and report progress every `DURATION` (a terminal's line is redrawn more often)")
	args, status, ok := c.parse(fs, args, -1, "")
	if !ok {
		return status
	}
	switch {
	case *batch < 0:
		return fs.usageError(c.stderr, "--batch must not be negative")
	case *samples < 0:
		return fs.usageError(c.stderr, "--samples must not be negative")
	case *every <= 0:
		return fs.usageError(c.stderr, "--progress must be positive")
	}
	spec, ok := parseSpec(fs, args, c.termOpts, c.stderr)
	if !ok {
		return exitUsage
	}
	// Steps need not wait for the disk one by one: a progress report
	// syncs before it gives a token, and closing syncs the rest.
	s, ok := c.open(&pebblestore.Options{Store: store.Options{NoSync: !*dry}, Pebble: pebblekv.Options{MustExist: true}})
	if !ok {
		return exitFail
	}
	label := "migrating"
	if *dry {
		label = "dry run"
	}
	mp := &migrateProgress{p: newProgress(c.stderr, label, 0), ctx: c.ctx, s: s, dry: *dry}
	mp.p.every = *every
	opts := store.MigrateOptions{DryRun: *dry, After: strings.TrimSpace(*after), Step: *batch, Samples: *samples,
		Progress: mp.update, OnBadKey: func(key []byte, err error) {
			mp.p.clear()
			mp.bad++
			if mp.bad <= maxBadLines {
				fmt.Fprintf(c.stderr, "sext: key %X: %v (left as it is)\n", key, err)
			}
		}}
	if *samples == 0 {
		opts.Samples = -1
	}
	start := time.Now()
	res, err := s.Migrate(c.ctx, spec, opts)
	mp.p.clear()
	printMoves(c.stdout, "move", res.Moves)
	printMoves(c.stdout, "conflict", res.Conflicting)
	status = exitOK
	if res.Conflicts > 0 || mp.bad > 0 {
		status = exitFail
	}
	if err != nil {
		switch {
		case errors.Is(err, store.ErrMigrateSpec) || errors.Is(err, store.ErrToken) || errors.Is(err, store.ErrTokenMismatch):
			fmt.Fprintf(c.stderr, "sext: %s\n", storeErr(err))
			return c.close(s, exitUsage)
		case errors.Is(err, context.Canceled) && c.ctx.Err() != nil:
			fmt.Fprintf(c.stderr, "sext: interrupted: %s\n", migrateSummary(res, *dry))
		default:
			fmt.Fprintf(c.stderr, "sext: %s\nsext: before the error: %s\n", storeErr(err), migrateSummary(res, *dry))
		}
		if res.Token != "" {
			fmt.Fprintf(c.stderr, "sext: resume with --after %s\n", res.Token)
		}
		return c.close(s, exitFail)
	}
	status = c.close(s, status)
	fmt.Fprintf(c.stderr, "%s in %s\n", migrateSummary(res, *dry), round(time.Since(start)))
	return status
}

// migrateProgress reports a migration's steps as they commit: on a
// terminal a line redrawn in place; elsewhere a line each interval,
// after a sync, that ends in the token resuming after the step.
type migrateProgress struct {
	p   *progress
	ctx context.Context
	s   *store.Store
	dry bool
	bad int
	err error // of a sync, reported once
}

func (mp *migrateProgress) update(r store.MigrateResult) {
	p := mp.p
	if p.tty {
		every := 100 * time.Millisecond
		if time.Since(p.last) < every {
			return
		}
		p.last = time.Now()
		fmt.Fprintf(p.w, "\r%s: %s\x1b[K", p.label, migrateCounts(r, mp.dry, time.Since(p.start)))
		p.drawn = true
		return
	}
	if !p.due() || r.Token == "" {
		return
	}
	if !mp.dry {
		// The token is given once what it stands for is durable.
		if err := mp.s.Sync(mp.ctx); err != nil {
			if mp.err == nil {
				mp.err = err
				fmt.Fprintf(p.w, "sext: syncing the store: %s\n", storeErr(err))
			}
			return
		}
	}
	fmt.Fprintf(p.w, "%s: %s; resume: --after %s\n", p.label, migrateCounts(r, mp.dry, time.Since(p.start)), r.Token)
}

// migrateCounts is a progress line's counts and rate.
func migrateCounts(r store.MigrateResult, dry bool, elapsed time.Duration) string {
	moved := "moved"
	if dry {
		moved = "to move"
	}
	return fmt.Sprintf("%s read, %s %s, %s, %s keys/s, %s", counted(r.Read, "key"), commas(r.Migrated), moved,
		counted(r.Conflicts, "conflict"), commas(int64(float64(r.Read)/elapsed.Seconds())), round(elapsed))
}

// migrateSummary is the end's line.
func migrateSummary(r store.MigrateResult, dry bool) string {
	verb := "migrated"
	if dry {
		verb = "dry run: would migrate"
	}
	return fmt.Sprintf("%s %s (read %s; %s left; %s already of the new layout)", verb, counted(r.Migrated, "key"),
		commas(r.Read), counted(r.Conflicts, "conflict"), commas(r.Settled))
}

func printMoves(w io.Writer, kind string, ms []store.Move) {
	for _, m := range ms {
		b := append([]byte(kind), '\t')
		b = append(appendTerm(b, m.From), '\t')
		b = append(appendTerm(b, m.To), '\n')
		w.Write(b)
	}
}
