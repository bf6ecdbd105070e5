// Package etcdkv puts a term store on an etcd cluster: it implements
// store.KV (and store.StatsKV) over etcd's v3 API, so that
//
//	kv, err := etcdkv.Open(etcdkv.Options{Endpoints: []string{"127.0.0.1:2379"}})
//	s := store.New(kv, nil)
//
// gives the same Store, with the same scans and patterns, as the embedded
// Pebble backend, replicated by Raft across the cluster's members. It adds
// what only a replicated log can give: Watch, which follows the changes to
// the keys matching a pattern, from a revision on.
//
// Keys are raw bytes (etcd keys are byte strings, and a sext key may hold
// any byte). A write batch commits as one etcd transaction. A cursor reads
// its range in pages, all at the revision of the first page, so it sees one
// consistent snapshot and holds one page in memory however long the range.
// Every call takes the caller's context, and is bounded besides by
// Options.Timeout: without a quorum of members it fails with an error
// wrapping ErrUnavailable instead of waiting. A cancelled context ends
// the call at once with an error wrapping context.Canceled; a context's
// deadline that passes first gives one wrapping both
// context.DeadlineExceeded and ErrUnavailable.
//
// The package depends on the seam (store/seam), not on package store,
// and so not on Pebble.
package etcdkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store/seam"
)

// Defaults for the zero Options.
const (
	DefaultTimeout  = 5 * time.Second
	DefaultPageSize = 1000
)

// Sentinel errors. Errors from this package wrap one of these or a
// store sentinel, so errors.Is works through the added detail.
var (
	// ErrUnavailable: the cluster did not answer within the timeout, or
	// answered that it has no leader. Usually fewer than a quorum of
	// members are up, or none can be reached. The operation may or may
	// not have taken effect (a batch whose answer was lost may have
	// committed); it is safe to retry writes, which are idempotent.
	// It is store.ErrUnavailable (seam.ErrUnavailable), so that callers
	// of the store need not import this package to recognise it.
	ErrUnavailable = seam.ErrUnavailable
	// ErrBatchTooLarge: the batch has more writes than the server allows
	// in one transaction (its --max-txn-ops, 128 by default) or is over
	// its request size limit (--max-request-bytes). A batch is atomic, so
	// it is refused whole rather than split.
	ErrBatchTooLarge = errors.New("etcdkv: batch too large for one etcd transaction")
	// ErrCompacted: the revision asked for (a cursor's snapshot or a
	// watch's start) has been compacted away.
	ErrCompacted = errors.New("etcdkv: revision compacted")
)

// Options configures Open. The zero value of each field but Endpoints
// takes the default.
type Options struct {
	// Endpoints are the members' client URLs or host:port pairs.
	Endpoints []string
	// Timeout bounds every call to the cluster, within the caller's own
	// context: a Get, a batch commit, each page of a cursor. Default
	// DefaultTimeout.
	Timeout time.Duration
	// PageSize is the number of keys a cursor reads per request, and so
	// the most it holds in memory. Default DefaultPageSize.
	PageSize int
	// Prefix, if set, is put before every key, so that the store lives
	// in its own part of a cluster that other programs share. Ranges and
	// watches never reach outside it. Keys seen through the KV do not
	// show it.
	Prefix []byte
	// Logger receives the etcd client's log; nil silences it.
	Logger *zap.Logger
	// Codec decodes the keys Watch yields and encodes its patterns; it
	// must be the Codec of the store.Options the store uses.
	Codec sext.Options
}

// KV is a store.KV over an etcd cluster. It is safe for concurrent use.
type KV struct {
	c        *clientv3.Client
	own      bool // Close closes c
	closed   atomic.Bool
	timeout  time.Duration
	codec    sext.Options
	pageSize int
	prefix   []byte
	// end is the first key past the prefix's part of the keyspace; nil
	// means the end of the keyspace.
	end []byte
}

var (
	_ seam.KV      = (*KV)(nil)
	_ seam.StatsKV = (*KV)(nil)
)

// Open connects to the cluster at opts.Endpoints. Connecting does not
// wait for the cluster: a cluster that cannot be reached shows as an
// ErrUnavailable from the first call.
func Open(opts Options) (*KV, error) {
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("etcdkv: no endpoints")
	}
	lg := opts.Logger
	if lg == nil {
		lg = zap.NewNop()
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		DialTimeout: opts.timeout(),
		Logger:      lg,
		// Keepalives find a member that went silent (a partition, not a
		// crash, which resets the connection at once), so that calls move
		// to a live one. 10s is gRPC's floor and above the server's
		// --grpc-keepalive-min-time (5s), which would refuse faster pings.
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 3 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("etcdkv: %w", err)
	}
	kv := Wrap(c, opts)
	kv.own = true
	return kv, nil
}

// Wrap returns a KV over a client the caller set up (for TLS or
// authentication, say); opts.Endpoints and opts.Logger are ignored.
// Close leaves the client open.
func Wrap(c *clientv3.Client, opts Options) *KV {
	kv := &KV{c: c, timeout: opts.timeout(), codec: opts.Codec, pageSize: opts.PageSize, prefix: bytes.Clone(opts.Prefix)}
	if kv.pageSize <= 0 {
		kv.pageSize = DefaultPageSize
	}
	if len(kv.prefix) > 0 {
		kv.end = prefixEnd(kv.prefix)
	}
	return kv
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// Client returns the etcd client, for what the KV does not offer.
func (kv *KV) Client() *clientv3.Client { return kv.c }

// Close closes the client if Open made it. Closing again does nothing.
func (kv *KV) Close() error {
	if !kv.own || kv.closed.Swap(true) {
		return nil
	}
	return kv.c.Close()
}

// key returns the etcd key for k.
func (kv *KV) key(k []byte) string {
	if len(kv.prefix) == 0 {
		return string(k)
	}
	return string(kv.prefix) + string(k)
}

// ctx returns the caller's context bounded by the KV's timeout too.
func (kv *KV) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, kv.timeout)
}

// Get returns a copy of the value under key. The read is linearizable: it
// sees every write acknowledged before it began.
func (kv *KV) Get(parent context.Context, key []byte) ([]byte, error) {
	ctx, cancel := kv.ctx(parent)
	defer cancel()
	resp, err := kv.c.Get(ctx, kv.key(key))
	if err != nil {
		return nil, kv.wrap(parent, ctx, "get", err)
	}
	if len(resp.Kvs) == 0 {
		return nil, seam.ErrNotFound
	}
	// The response is ours alone, but the seam promises a non-nil copy.
	return append([]byte{}, resp.Kvs[0].Value...), nil
}

// Revision returns the cluster's current revision: every write
// acknowledged before the call has a revision at most this one. A reader
// that scans and then watches from Revision()+1, taken before the scan,
// misses no change (and may see some twice).
func (kv *KV) Revision(parent context.Context) (int64, error) {
	ctx, cancel := kv.ctx(parent)
	defer cancel()
	// A count of a one-key range is the cheapest linearizable read that
	// carries the revision in its header.
	resp, err := kv.c.Get(ctx, kv.key([]byte{0}), clientv3.WithCountOnly())
	if err != nil {
		return 0, kv.wrap(parent, ctx, "revision", err)
	}
	return resp.Header.Revision, nil
}

// Stats counts the keys under the KV's prefix (exactly, at the current
// revision; the store's reserved range, seam.ReservedByte, is not data
// and not counted) and reports the database size of the member that
// answered.
func (kv *KV) Stats(parent context.Context) (seam.Stats, error) {
	st := seam.Stats{Backend: "etcd", Dir: strings.Join(kv.c.Endpoints(), ",")}
	ctx, cancel := kv.ctx(parent)
	defer cancel()
	// The store's reserved keys (index entries) are not data.
	lower, opts := kv.rangeOpts(seam.ReservedEnd, nil)
	resp, err := kv.c.Get(ctx, lower, append(opts, clientv3.WithCountOnly())...)
	if err != nil {
		return st, kv.wrap(parent, ctx, "stats", err)
	}
	st.KeysEstimate = uint64(resp.Count)
	var errs []error
	for _, ep := range kv.c.Endpoints() {
		s, err := kv.c.Status(ctx, ep)
		if err == nil {
			st.DiskBytes = uint64(s.DbSize)
			return st, nil
		}
		errs = append(errs, err)
	}
	return st, kv.wrap(parent, ctx, "stats", errors.Join(errs...))
}

// bounds returns the etcd keys that bound the raw range [lower, upper) of
// the KV's keys, nil meaning unbounded: start, and end or nil for the end
// of the keyspace.
func (kv *KV) bounds(lower, upper []byte) (start string, end []byte) {
	start = kv.key(lower)
	if start == "" {
		start = "\x00" // the least key etcd can hold
	}
	end = kv.end
	if upper != nil {
		end = []byte(kv.key(upper))
	}
	return start, end
}

// emptyRange reports whether the raw range [lower, upper) holds no key
// etcd can store. It must be checked before a read: etcd takes the range
// end "\x00" to mean the end of the keyspace, not an empty range.
func (kv *KV) emptyRange(lower, upper []byte) bool {
	start, end := kv.bounds(lower, upper)
	return end != nil && start >= string(end)
}

// rangeOpts returns the etcd key and options for the raw range [lower,
// upper). The caller must have checked that it is not empty.
func (kv *KV) rangeOpts(lower, upper []byte) (string, []clientv3.OpOption) {
	start, end := kv.bounds(lower, upper)
	if end == nil {
		// etcd reads the range end "\x00" as "to the end of the keyspace".
		return start, []clientv3.OpOption{clientv3.WithFromKey()}
	}
	return start, []clientv3.OpOption{clientv3.WithRange(string(end))}
}

// prefixEnd returns the least key past every key that starts with p, or
// nil if there is none.
func prefixEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xFF {
			end := bytes.Clone(p[:i+1])
			end[i]++
			return end
		}
	}
	return nil
}

// wrap turns a client error into one that names the operation and wraps
// this package's sentinel for it, if any, as well as the cause. parent is
// the caller's context, ctx the call's (parent bounded by the timeout).
// When parent is done the error is its error, whatever form the client
// returned it in: the caller asked for that. Once ctx's deadline has
// passed the error is ErrUnavailable, whatever form it came back in (the
// server may report the cancelled call as an unknown error).
func (kv *KV) wrap(parent, ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	switch perr := parent.Err(); {
	case errors.Is(perr, context.Canceled):
		return fmt.Errorf("etcdkv: %s: %w", op, perr)
	case errors.Is(perr, context.DeadlineExceeded):
		return fmt.Errorf("%w: %s: no answer before the caller's deadline: %w", ErrUnavailable, op, perr)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || serverDeadline(err) {
		// The server's report can come a moment before parent expires
		// here: the deadline that passed is the earlier of the two.
		if callersDeadline(parent, ctx) {
			return fmt.Errorf("%w: %s: no answer before the caller's deadline: %w", ErrUnavailable, op, context.DeadlineExceeded)
		}
		return fmt.Errorf("%w: %s: no answer within %v", ErrUnavailable, op, kv.timeout)
	}
	if s := sentinel(err); s != nil {
		return fmt.Errorf("%w: %s: %w", s, op, err)
	}
	return fmt.Errorf("etcdkv: %s: %w", op, err)
}

// callersDeadline reports whether the deadline bounding ctx, the call's
// context, is parent's, the caller's, rather than the KV's timeout.
func callersDeadline(parent, ctx context.Context) bool {
	pd, ok := parent.Deadline()
	cd, _ := ctx.Deadline()
	return ok && !pd.After(cd)
}

// serverDeadline reports an error that the server returns when the
// request's deadline, which gRPC sends along, passes there first: it can
// arrive a moment before the client's own context expires, with the code
// Unknown.
func serverDeadline(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unknown && strings.Contains(st.Message(), "deadline exceeded")
}

// sentinel classifies a client error.
func sentinel(err error) error {
	var ee rpctypes.EtcdError
	switch {
	case errors.Is(err, rpctypes.ErrTooManyOps), errors.Is(err, rpctypes.ErrRequestTooLarge):
		return ErrBatchTooLarge
	case errors.Is(err, rpctypes.ErrCompacted):
		return ErrCompacted
	case errors.As(err, &ee):
		if ee.Code() == codes.Unavailable {
			return ErrUnavailable // no leader, timed out, stopping, ...
		}
	case status.Code(err) == codes.Unavailable, status.Code(err) == codes.DeadlineExceeded:
		return ErrUnavailable // the connection, not the server
	}
	return nil
}

// NewBatch returns an empty batch; Commit sends it as one transaction.
func (kv *KV) NewBatch() seam.WriteBatch { return &batch{kv: kv, at: map[string]int{}} }

// batch collects writes for one etcd transaction.
type batch struct {
	kv  *KV
	ops []clientv3.Op
	// at maps a key to its op's index: etcd refuses a transaction that
	// writes a key twice, where a batch lets the last write win.
	at    map[string]int
	count int
	done  bool
	conds []clientv3.Cmp // RequireValue and the like
}

var _ seam.CondBatch = (*batch)(nil)

// RequireValue makes the transaction compare key's value; etcd cannot
// compare the value of a missing key, so absence is a create revision
// of 0.
func (b *batch) RequireValue(key, value []byte) {
	if value == nil {
		b.RequireAbsent(key)
		return
	}
	b.conds = append(b.conds, clientv3.Compare(clientv3.Value(b.kv.key(key)), "=", string(value)))
}

// RequirePresent makes the transaction depend on key existing.
func (b *batch) RequirePresent(key []byte) {
	b.conds = append(b.conds, clientv3.Compare(clientv3.CreateRevision(b.kv.key(key)), ">", 0))
}

// RequireAbsent makes the transaction depend on key not existing.
func (b *batch) RequireAbsent(key []byte) {
	b.conds = append(b.conds, clientv3.Compare(clientv3.CreateRevision(b.kv.key(key)), "=", 0))
}

func (b *batch) add(k string, op clientv3.Op) error {
	if b.done {
		return seam.ErrBatchClosed
	}
	b.count++
	if i, ok := b.at[k]; ok {
		b.ops[i] = op
		return nil
	}
	b.at[k] = len(b.ops)
	b.ops = append(b.ops, op)
	return nil
}

// Set records a put; the client copies key and value into the op.
func (b *batch) Set(key, value []byte) error {
	k := b.kv.key(key)
	return b.add(k, clientv3.OpPut(k, string(value)))
}

// Delete records a delete of the one key.
func (b *batch) Delete(key []byte) error {
	k := b.kv.key(key)
	return b.add(k, clientv3.OpDelete(k))
}

// Count returns the number of writes recorded, a key written twice
// counting twice.
func (b *batch) Count() int { return b.count }

// Commit sends the writes as one transaction. etcd makes every commit
// durable on a quorum before it answers, so sync changes nothing.
func (b *batch) Commit(parent context.Context, sync bool) error {
	if b.done {
		return seam.ErrBatchClosed
	}
	b.done = true
	if err := parent.Err(); err != nil {
		return fmt.Errorf("etcdkv: commit: %w", err)
	}
	if len(b.ops) == 0 && len(b.conds) == 0 {
		return nil
	}
	ctx, cancel := b.kv.ctx(parent)
	defer cancel()
	resp, err := b.kv.c.Txn(ctx).If(b.conds...).Then(b.ops...).Commit()
	if errors.Is(err, rpctypes.ErrTooManyOps) {
		return b.kv.wrap(parent, ctx, fmt.Sprintf("commit of %d writes", len(b.ops)), err)
	}
	if err == nil && !resp.Succeeded {
		return fmt.Errorf("etcdkv: commit: %w", seam.ErrPrecondition)
	}
	return b.kv.wrap(parent, ctx, "commit", err)
}

// Close discards the batch.
func (b *batch) Close() error {
	b.done = true
	b.ops, b.at, b.conds = nil, nil, nil
	return nil
}
