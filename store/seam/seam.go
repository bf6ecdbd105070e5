// Package seam is the boundary between package store's term store and the
// engine that keeps its bytes: the interfaces a backend implements, and
// the errors both sides share. It imports nothing but the standard
// library, so that a backend (store/pebblekv, store/etcdkv) depends on it
// and not on the other backends; package store re-exports every name here
// (store.KV is seam.KV), so callers of the store never import it.
//
// The seam is deliberately small: what a term store needs from an ordered
// key-value store is point reads, atomic multi-key writes and a cursor over
// a half-open byte range in one direction. Everything about terms
// (encoding, prefixes, matching) stays above it, so a backend never sees
// anything but bytes in sext order, which is plain lexicographic order.
//
// Every call that may block takes a context.Context first. A backend
// honours its cancellation and deadline as far as its engine lets it: a
// network backend passes it to every request; an embedded one checks it
// between keys of a cursor and before a commit, and never interrupts the
// engine mid-write.
package seam

import "context"

// KV is an ordered byte-key store. Keys compare as bytes.Compare does.
// Implementations must be safe for concurrent use by multiple goroutines.
type KV interface {
	// Get returns a copy of the value stored under key, or an error that
	// wraps ErrNotFound when there is none.
	Get(ctx context.Context, key []byte) ([]byte, error)

	// NewIter returns a cursor over the keys k with lower <= k < upper,
	// ascending, or descending when reverse is set. A nil lower means no
	// lower bound, a nil upper no upper bound. The cursor sees a
	// consistent snapshot or at least never yields a key twice or out of
	// order; it need not see writes made after NewIter returns. ctx
	// bounds the whole life of the cursor: once it is done, Next returns
	// false and Err reports ctx.Err().
	NewIter(ctx context.Context, lower, upper []byte, reverse bool) (Iter, error)

	// NewBatch returns an empty write batch. Nothing written to it is
	// visible to Get or NewIter until it is committed.
	NewBatch() WriteBatch

	// Close releases the store. Iterators and batches must be closed
	// first.
	Close() error
}

// Iter is a one-directional cursor, used as sql.Rows is:
//
//	for it.Next() { use(it.Key(), it.Value()) }
//	if err := it.Err(); err != nil { ... }
//	it.Close()
//
// A single direction fixed at creation is all a scan needs, and it maps
// directly onto a paged range read (etcd's Range with a sort order and a
// limit), which a bidirectional iterator would not.
type Iter interface {
	// Next moves to the next key in the cursor's direction; the first
	// call moves to the first key. It returns false when there are no more
	// keys or on error.
	Next() bool
	// Key returns the current key. It is valid only until the next call
	// to Next or Close; the caller must copy it to keep it.
	Key() []byte
	// Value returns the current value, with Key's lifetime rules.
	// Backends may fetch values lazily, so callers that want only keys
	// should not call it. An error reading the value ends the iteration:
	// Value returns nil and Err reports it.
	Value() []byte
	// Err returns the error that stopped the iteration, if any.
	Err() error
	// Close releases the cursor and returns the error that stopped it, if
	// any (the one Err reports). It must be called exactly once.
	Close() error
}

// WriteBatch collects writes that commit atomically: either every one of
// them becomes visible, or none does.
type WriteBatch interface {
	// Set records that key will hold value. The batch copies both.
	Set(key, value []byte) error
	// Delete records that key will be removed. Deleting a missing key is
	// not an error.
	Delete(key []byte) error
	// Count returns the number of writes recorded.
	Count() int
	// Commit applies the writes atomically. With sync, it returns only
	// once they, and every write committed before them, are durable: an
	// empty batch committed with sync makes earlier unsynced commits
	// durable. A ctx already done when Commit is called commits nothing
	// and returns its error. The batch must not be used afterwards
	// except to Close it.
	Commit(ctx context.Context, sync bool) error
	// Close releases the batch; an uncommitted batch is discarded. It is
	// safe to call after Commit.
	Close() error
}

// StatsKV is implemented by backends that can describe themselves;
// Store.Stats uses it when the KV has it.
type StatsKV interface {
	Stats(ctx context.Context) (Stats, error)
}

// WarningsKV is implemented by backends that can meet, when they open,
// something a person should hear about although the store still works:
// a write-ahead log that ended in a torn record, say. Warnings returns
// what the backend met then, and since, that it keeps on record (a check
// reports it) until ClearWarnings.
type WarningsKV interface {
	Warnings() []error
	ClearWarnings() error
}

// Stats describes a store for people: counts are estimates.
type Stats struct {
	Backend string // "pebble", ...
	Dir     string // where the data lives, if local

	// KeysEstimate is the number of live keys, estimated from table
	// properties; writes not yet flushed from memory are not counted, and
	// overwritten or deleted keys may be until compaction drops them.
	// ReservedCounted says whether it counts the keys of the reserved
	// range (index entries, the index catalog) with the data keys.
	KeysEstimate    uint64
	ReservedCounted bool
	DiskBytes       uint64 // bytes on disk, all files included
	Tables          int64  // sorted tables on disk
	MemTableSize    uint64 // bytes held in memory tables, not yet flushed
}
