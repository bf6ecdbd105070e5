package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/erlsext/sext/store/etcdkv"
)

const watchAbout = `
Print each change to a key that matches PATTERN, one a line, as
"REVISION<TAB>put<TAB>TERM<TAB>VALUE" or "REVISION<TAB>delete<TAB>TERM",
until interrupted. The cluster watches the byte range of PATTERN's prefix
and the command keeps the changes that match, as scan does.

With --from REV, first replay the changes from revision REV on (the
cluster keeps them until it is compacted): a watcher that printed
revision R and stopped resumes with --from R+1 and misses nothing. With
--limit N, exit after N changes. A changed key that is no sext encoding
is reported on stderr in hex and skipped. The watch fails, with exit
status 1, if the cluster loses its quorum.

Needs --etcd: an embedded store has no log of changes to follow.`

func dbWatch(c *dbCall, args []string) int {
	fs := c.flags()
	from := fs.Int64("from", 0, "replay the changes from revision `REV` on first (0: only new ones)")
	limit := fs.Int("limit", 0, "exit after `N` changes (0: never)")
	args, status, ok := c.parse(fs, args, 1, "want one PATTERN")
	if !ok {
		return status
	}
	if *from < 0 || *limit < 0 {
		return fs.usageError(c.stderr, "--from and --limit must not be negative")
	}
	if !c.be.etcd() {
		return fs.usageError(c.stderr, "watch needs --etcd ENDPOINTS")
	}
	ts, ok := c.terms(args, []string{"PATTERN"})
	if !ok {
		return exitUsage
	}
	kv, ok := c.be.openEtcd(c.stderr)
	if !ok {
		return exitFail
	}
	defer kv.Close()
	// An interrupt ends the watch normally: it is how a watch is stopped
	// (runDB's context is cancelled by one).
	ctx := c.ctx
	out := newSession(c.stdout, c.stderr)
	opts := etcdkv.WatchOptions{FromRevision: *from, OnBadKey: skipBadKey(out)}
	n := 0
	for ev, err := range kv.Watch(ctx, ts[0], opts) {
		if err != nil {
			if !errors.Is(err, context.Canceled) || ctx.Err() == nil {
				out.fail("", err)
			}
			break
		}
		b := strconv.AppendInt(out.buf[:0], ev.Revision, 10)
		b = append(append(append(b, '\t'), ev.Kind.String()...), '\t')
		b = appendTerm(b, ev.Key)
		if ev.Kind == etcdkv.Put {
			b = append(append(b, '\t'), ev.Value...)
		}
		out.buf = append(b, '\n')
		out.out.Write(out.buf)
		// Each change goes out as it happens, not when a buffer fills.
		out.out.Flush()
		if n++; *limit > 0 && n >= *limit {
			break
		}
	}
	return out.finish()
}
