package etcdkv

import (
	"bytes"
	"context"
	"fmt"
	"iter"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// EventKind says what happened to a key.
type EventKind uint8

// The kinds of event.
const (
	Put    EventKind = iota + 1 // the key was created or given a new value
	Delete                      // the key was deleted
)

// String returns "put" or "delete".
func (k EventKind) String() string {
	switch k {
	case Put:
		return "put"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one change to a key that matches a watched pattern.
type Event struct {
	Kind  EventKind
	Key   term.Term
	Value []byte // the new value of a Put; nil for a Delete
	// Bindings holds what the pattern's '$N' wildcards matched.
	Bindings sext.Bindings
	// Revision is the revision of the change. Changes committed in one
	// batch share it. Watching again from Revision+1 resumes just after
	// this event.
	Revision int64
}

// WatchOptions adjusts Watch.
type WatchOptions struct {
	// FromRevision, if positive, replays the changes from that revision
	// on before the live ones (it fails with ErrCompacted if the cluster
	// no longer keeps it). Zero watches from now.
	FromRevision int64
	// OnBadKey, when set, is called with every changed key in the
	// watched range that is not a sext encoding, and its decoding error;
	// such keys are never yielded and never end the watch. As with Scan,
	// a key the pattern rules out before its bad bytes goes unreported.
	OnBadKey func(key []byte, err error)
}

// Watch yields, in revision order, the changes to keys that match pattern
// (see sext.Match): etcd watches the byte range of the pattern's prefix
// (sext.PrefixRange), and a sext.Matcher filters what comes back on the
// keys' bytes, as Scan does: only matching keys are decoded.
//
// The sequence runs until ctx is done, the loop breaks, or the watch
// fails; its last pair then carries the error (ctx.Err() when ctx ended
// it) and a zero Event. It survives the loss of the member it is
// connected to, resuming on another without missing or repeating a
// change; if the cluster loses its quorum it fails with ErrUnavailable,
// and the caller resumes from the last Revision+1 when it is back.
func (kv *KV) Watch(ctx context.Context, pattern term.Term, opts WatchOptions) iter.Seq2[Event, error] {
	lower, upper, err := kv.codec.PrefixRange(pattern)
	var m *sext.Matcher
	if err == nil {
		m, err = kv.codec.CompileMatch(pattern)
	}
	return func(yield func(Event, error) bool) {
		if err != nil {
			yield(Event{}, err)
			return
		}
		if len(lower) == 0 {
			lower = seam.ReservedEnd // below it lie the store's index entries
		}
		if kv.emptyRange(lower, upper) {
			<-ctx.Done()
			yield(Event{}, ctx.Err())
			return
		}
		start, ropts := kv.rangeOpts(lower, upper)
		if opts.FromRevision > 0 {
			ropts = append(ropts, clientv3.WithRev(opts.FromRevision))
		}
		// Breaking out of the loop cancels the watch and frees its stream.
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// Without a leader a member still answers a watch but can send
		// nothing new; WithRequireLeader makes it say so instead.
		wch := kv.c.Watch(clientv3.WithRequireLeader(wctx), start, ropts...)
		for resp := range wch {
			if err := resp.Err(); err != nil {
				if ctx.Err() != nil {
					break
				}
				yield(Event{}, kv.wrap(ctx, wctx, "watch", err))
				return
			}
			for _, ev := range resp.Events {
				e, ok := kv.event(ev, m, opts.OnBadKey)
				if ok && !yield(e, nil) {
					return
				}
			}
		}
		if ctx.Err() != nil {
			yield(Event{}, ctx.Err())
			return
		}
		// The channel closed with no error: the client was closed.
		yield(Event{}, fmt.Errorf("etcdkv: watch: %w", context.Canceled))
	}
}

// event filters one etcd event, decoding its key only if it matches.
func (kv *KV) event(ev *clientv3.Event, m *sext.Matcher, onBad func([]byte, error)) (Event, bool) {
	k := ev.Kv.Key[len(kv.prefix):]
	t, bs, ok, err := m.MatchKey(k)
	if err != nil {
		if onBad != nil {
			onBad(bytes.Clone(k), err)
		}
		return Event{}, false
	}
	if !ok {
		return Event{}, false
	}
	e := Event{Kind: Put, Key: t, Bindings: bs, Revision: ev.Kv.ModRevision, Value: ev.Kv.Value}
	if ev.Type == mvccpb.Event_DELETE {
		e.Kind, e.Value = Delete, nil
	} else if e.Value == nil {
		e.Value = []byte{} // a put of an empty value is still a put
	}
	return e, true
}
