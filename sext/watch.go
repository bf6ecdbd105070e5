package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
)

// etcdTarget is the cluster that "sext db --etcd" names; runDB sets
// dbEtcd, and openStore opens it in place of a directory when it has
// endpoints.
type etcdTarget struct {
	endpoints []string
	timeout   time.Duration
}

var dbEtcd etcdTarget

// etcdDefaultBatch is load's batch size with --etcd: etcd's default
// --max-txn-ops, since a batch is one transaction and is not split.
const etcdDefaultBatch = 128

// flagGiven reports whether the flag was set on the command line.
func flagGiven(fs *flagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func openEtcdKV(stderr io.Writer) (*etcdkv.KV, bool) {
	kv, err := etcdkv.Open(etcdkv.Options{Endpoints: dbEtcd.endpoints, Timeout: dbEtcd.timeout, Codec: dbCodec})
	if err != nil {
		fmt.Fprintf(stderr, "sext: %v\n", err)
		return nil, false
	}
	return kv, true
}

func openEtcdStore(opts *store.Options, stderr io.Writer) (*store.Store, bool) {
	kv, ok := openEtcdKV(stderr)
	if !ok {
		return nil, false
	}
	return store.New(kv, opts), true
}

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

func dbWatch(_ string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := subFlags("watch")
	from := fs.Int64("from", 0, "replay the changes from revision `REV` on first (0: only new ones)")
	limit := fs.Int("limit", 0, "exit after `N` changes (0: never)")
	args, status, ok := parseAll(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(args) != 1 {
		return fs.usageError(stderr, "want one PATTERN")
	}
	if *from < 0 || *limit < 0 {
		return fs.usageError(stderr, "--from and --limit must not be negative")
	}
	if dbEtcd.endpoints == nil {
		return fs.usageError(stderr, "watch needs --etcd ENDPOINTS")
	}
	ts, ok := parseArgTerms(fs, args, []string{"PATTERN"}, stderr)
	if !ok {
		return exitUsage
	}
	kv, ok := openEtcdKV(stderr)
	if !ok {
		return exitFail
	}
	defer kv.Close()
	// An interrupt ends the watch normally: it is how a watch is stopped
	// (runDB's context is cancelled by one).
	ctx := dbCtx
	out := newSession(stdout, stderr)
	opts := etcdkv.WatchOptions{FromRevision: *from, OnBadKey: func(k []byte, err error) {
		out.fail("key "+sext.Hex.EncodeToString(k), fmt.Errorf("not a sext encoding, skipped: %s", describe(err)))
	}}
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
