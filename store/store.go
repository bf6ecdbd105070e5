// Package store keeps values under Erlang term keys in an ordered
// key-value store, each key written as its sext encoding, so that the
// store's byte order is term order. A pattern such as {order, 42, '_', '_'}
// becomes the byte range of its prefix (sext.PrefixRange), so finding every
// key that matches it reads one contiguous range instead of the whole
// store.
//
// A Store sits on a backend behind the small KV interface (package
// seam), given to New: package pebblekv is the embedded one, Pebble in a
// directory, which pebblestore.Open opens as a Store in one call; package
// etcdkv is an etcd cluster. This package imports neither, so a program
// links only the backend it uses. Package storetest holds the
// conformance tests a backend must pass. Every call that may block takes
// a context.Context first.
//
//	s, err := pebblestore.Open(ctx, dir, nil) // or store.New(kv, nil)
//	...
//	defer s.Close()
//	err = s.Put(ctx, key, []byte("value"))
//	for e, err := range s.Scan(ctx, pattern, store.ScanOptions{Limit: 10}) {
//		if err != nil { return err }
//		fmt.Println(e.Key, string(e.Value))
//	}
package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// Options configures a Store. A nil *Options is the zero value: keys in
// the reference's encoding (sext.Options{}), every write synced.
type Options struct {
	// Codec encodes and decodes the store's keys: UTF8Atoms for stores
	// whose atoms are UTF-8, MaxDepth to bound nesting, Legacy to write
	// bignums as pre-2013 readers expect. Every reader and writer of one
	// store must use the same Codec; Canonical is ignored (a scan reports
	// non-canonical keys itself, see ScanOptions).
	Codec sext.Options

	// NoSync commits writes without waiting for the disk. Apply then
	// returns once the write is visible, not once it is durable: until
	// Sync, Close or a later synced write, a crash of the process, not
	// only of the machine, may lose it. Bulk loads use it and call Sync
	// at the points they report as durable.
	NoSync bool
}

// Store is a term-keyed store. Its methods are safe for concurrent use,
// except Close, which must not run while other calls are in progress or
// scans are open (the engine underneath cannot close under a reader).
type Store struct {
	kv     KV
	codec  sext.Options
	sync   bool
	closed atomic.Bool
	ix     indexes // secondary indexes (index.go)
	tb     tables  // tables of records (table.go)
}

// New returns a Store over kv, which it takes over: Close closes kv. A
// nil opts is the zero Options.
func New(kv KV, opts *Options) *Store {
	if opts == nil {
		opts = &Options{}
	}
	codec := opts.Codec
	codec.Canonical = false
	s := &Store{kv: kv, codec: codec, sync: !opts.NoSync}
	s.ix.shared = sharedBackend(kv)
	return s
}

// Codec returns the options the store encodes and decodes keys with.
func (s *Store) Codec() sext.Options { return s.codec }

// Close closes the store and its backend. Closing twice returns
// ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	return s.kv.Close()
}

// Put stores value under key, replacing any value there.
func (s *Store) Put(ctx context.Context, key term.Term, value []byte) error {
	b := s.NewBatch()
	defer b.Close()
	if err := b.Put(key, value); err != nil {
		return err
	}
	return s.Apply(ctx, b)
}

// Delete removes key. Deleting a key that is not there is not an error.
func (s *Store) Delete(ctx context.Context, key term.Term) error {
	b := s.NewBatch()
	defer b.Close()
	if err := b.Delete(key); err != nil {
		return err
	}
	return s.Apply(ctx, b)
}

// Get returns the value stored under key, or an error wrapping
// ErrNotFound.
func (s *Store) Get(ctx context.Context, key term.Term) ([]byte, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	k, err := s.codec.Encode(key)
	if err != nil {
		return nil, err
	}
	v, err := s.kv.Get(ctx, k)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", ErrNotFound, key)
	}
	return v, err
}

// Sync makes every write applied so far durable, for a store opened
// with NoSync; with the default options it has nothing to do but costs
// a disk sync all the same.
func (s *Store) Sync(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	wb := s.kv.NewBatch()
	defer wb.Close()
	return wb.Commit(ctx, true)
}

// Stats describes the store, if its backend can (see StatsKV); otherwise
// it returns an error wrapping ErrUnsupported.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	if s.closed.Load() {
		return Stats{}, ErrClosed
	}
	if sk, ok := s.kv.(StatsKV); ok {
		return sk.Stats(ctx)
	}
	return Stats{}, ErrUnsupported
}

// Warnings returns what the backend keeps on record for a person to see
// although the store works (see WarningsKV): for Pebble, write-ahead logs
// found torn when the store opened. Backends without it have none.
func (s *Store) Warnings() []error {
	if w, ok := s.kv.(WarningsKV); ok {
		return w.Warnings()
	}
	return nil
}

// ClearWarnings removes the backend's record of its warnings, once a
// person has seen them (sext db check --fix does).
func (s *Store) ClearWarnings() error {
	if w, ok := s.kv.(WarningsKV); ok {
		return w.ClearWarnings()
	}
	return nil
}

// Batch collects puts and deletes that Apply commits atomically. Nothing in
// a batch is visible until it is applied.
//
// A Put or Delete that fails (a key that cannot be encoded) returns its
// error and also spoils the batch: Apply then refuses it and writes
// nothing, so that a loop that forgets to check each Put cannot commit
// part of what it meant to write.
type Batch struct {
	s    *Store
	wb   WriteBatch // nil once applied or discarded
	buf  []byte     // encoding scratch, reused across writes
	err  error      // first error met, returned by Apply
	done bool
	log  writeLog // the writes, for their index entries (index_write.go)
}

// NewBatch returns an empty batch.
func (s *Store) NewBatch() *Batch {
	if s.closed.Load() {
		return &Batch{s: s, err: ErrClosed}
	}
	return &Batch{s: s, wb: s.kv.NewBatch()}
}

// Put records that key will hold value. The batch copies value.
func (b *Batch) Put(key term.Term, value []byte) error {
	return b.write(key, value, true)
}

// Delete records that key will be removed.
func (b *Batch) Delete(key term.Term) error {
	return b.write(key, nil, false)
}

func (b *Batch) write(key term.Term, value []byte, set bool) error {
	if b.done {
		return ErrBatchClosed
	}
	if b.err != nil {
		return b.err
	}
	var err error
	if b.buf, err = b.s.codec.Append(b.buf[:0], key); err == nil {
		if set {
			err = b.wb.Set(b.buf, value)
		} else {
			err = b.wb.Delete(b.buf)
		}
	}
	if err == nil {
		b.log.add(b.buf, value, set, b.s.ix.shared)
	}
	if err != nil {
		b.err = fmt.Errorf("store: batch spoiled: %w", err)
		return err
	}
	return nil
}

// Len returns the number of writes recorded.
func (b *Batch) Len() int {
	if b.wb == nil {
		return 0
	}
	return b.wb.Count()
}

// Close discards the batch if it has not been applied. It is safe to call
// after Apply and more than once; the usual pattern is to defer it.
func (b *Batch) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	if b.wb == nil {
		return nil
	}
	err := b.wb.Close()
	b.wb = nil
	return err
}

// Apply commits every write in b atomically, then releases b; b cannot be
// used again. With the store's default options it returns once the writes
// are durable. A batch that was spoiled by a failed Put or Delete, or was
// already applied or discarded, is refused and nothing is written.
func (s *Store) Apply(ctx context.Context, b *Batch) error {
	if b.done {
		return ErrBatchClosed
	}
	if b.s != s {
		return errors.New("store: batch belongs to another store")
	}
	if b.err != nil {
		err := b.err
		b.Close()
		return err
	}
	if s.closed.Load() {
		b.Close()
		return ErrClosed
	}
	err := s.commitIndexed(ctx, b)
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return err
}
