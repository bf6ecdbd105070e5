package etcdkv

import (
	"bytes"
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/erlsext/sext/store/seam"
)

// NewIter returns a cursor over the keys in [lower, upper). It reads the
// range a page at a time, the first page at the cluster's current
// revision and every later one at that same revision, so the cursor sees
// one consistent snapshot: writes made after the first page are not seen,
// and a key is never yielded twice. A cursor that outlives the cluster's
// compaction of its revision fails with ErrCompacted.
//
// A descending cursor is dearer than it looks: etcd (3.4 at least) serves
// a sorted range by reading the whole range, sorting it, then cutting it to
// the page, so each descending page costs the server the rest of the range.
// Keep reverse scans narrow, or store #Desc keys and scan forward.
func (kv *KV) NewIter(ctx context.Context, lower, upper []byte, reverse bool) (seam.Iter, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("etcdkv: range read: %w", err)
	}
	it := &cursor{kv: kv, ctx: ctx, lower: bytes.Clone(lower), upper: bytes.Clone(upper), reverse: reverse}
	it.done = it.empty()
	return it, nil
}

// cursor is the paged cursor. lower and upper shrink as pages are read:
// they always bound what is left to read.
type cursor struct {
	kv           *KV
	ctx          context.Context // the caller's, for every page
	lower, upper []byte          // raw keys, without the KV's prefix; nil unbounded
	reverse      bool
	rev          int64 // the snapshot's revision, once the first page is read
	page         []*mvccpb.KeyValue
	i            int
	last         bool // page is the range's last
	done         bool
	err          error
}

// empty reports whether [lower, upper) holds no key.
func (it *cursor) empty() bool {
	return it.kv.emptyRange(it.lower, it.upper)
}

// Next moves to the next key, reading the next page when the current one
// is used up.
func (it *cursor) Next() bool {
	if it.done {
		return false
	}
	it.i++
	for it.i >= len(it.page) {
		if it.last || it.empty() {
			it.finish()
			return false
		}
		if !it.fetch() {
			it.finish()
			return false
		}
	}
	return true
}

// fetch reads the next page and narrows the range past it.
func (it *cursor) fetch() bool {
	kv := it.kv
	start, opts := kv.rangeOpts(it.lower, it.upper)
	order := clientv3.SortAscend
	if it.reverse {
		order = clientv3.SortDescend
	}
	opts = append(opts, clientv3.WithLimit(int64(kv.pageSize)), clientv3.WithSort(clientv3.SortByKey, order))
	if it.rev != 0 {
		opts = append(opts, clientv3.WithRev(it.rev))
	}
	ctx, cancel := kv.ctx(it.ctx)
	defer cancel()
	resp, err := kv.c.Get(ctx, start, opts...)
	if err != nil {
		it.err = kv.wrap(it.ctx, ctx, "range read", err)
		return false
	}
	if it.rev == 0 {
		it.rev = resp.Header.Revision
	}
	// The previous page is dropped here: one page in memory at a time.
	it.page, it.i = resp.Kvs, 0
	it.last = !resp.More || len(resp.Kvs) == 0
	if n := len(resp.Kvs); n > 0 {
		lastKey := resp.Kvs[n-1].Key[len(kv.prefix):]
		if it.reverse {
			it.upper = bytes.Clone(lastKey)
		} else {
			// The least key after lastKey.
			it.lower = append(bytes.Clone(lastKey), 0)
		}
	}
	return true
}

func (it *cursor) finish() {
	it.done = true
	it.page = nil
}

// Key returns the current key, without the KV's prefix.
func (it *cursor) Key() []byte {
	if it.done {
		return nil
	}
	return it.page[it.i].Key[len(it.kv.prefix):]
}

// Value returns the current value; the page holds values with keys.
func (it *cursor) Value() []byte {
	if it.done {
		return nil
	}
	return it.page[it.i].Value
}

// Err returns the error that ended the cursor, if any.
func (it *cursor) Err() error { return it.err }

// Close drops the page and returns Err.
func (it *cursor) Close() error {
	it.finish()
	return it.err
}
