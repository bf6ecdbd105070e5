// Package pebblestore opens the store's embedded default, a store.Store
// over Pebble in a directory, in one call:
//
//	s, err := pebblestore.Open(ctx, dir, nil)
//	...
//	defer s.Close()
//
// It is apart from package store so that a program on another backend
// (store.New over etcdkv, say) links no Pebble: store imports no backend,
// and this package is the one place where the two meet. Use package
// pebblekv and store.New directly to keep the backend's own handle (for
// its raw byte keys, or the Pebble database underneath).
package pebblestore

import (
	"context"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
)

// Options configures Open. A nil *Options is the zero value: keys in the
// reference's encoding, every write synced, the store created if missing
// and its write-ahead log on.
type Options struct {
	// Store is what store.New takes: the key codec, and NoSync.
	Store store.Options
	// Pebble configures the engine: MustExist, DisableWAL, MemTableSize
	// (see pebblekv.Options).
	Pebble pebblekv.Options
}

// Open opens the Pebble store in dir, creating it (and dir, but not dir's
// parent) unless opts.Pebble.MustExist, as pebblekv.OpenContext does, and
// puts a store.Store on it, which owns it: Close closes both. A missing
// directory is an error wrapping store.ErrNoStore, one that another
// process has open an error wrapping store.ErrLocked, one whose files are
// damaged (its manifest marker or manifest missing or cut, a table of the
// wrong size) an error wrapping store.ErrCorrupt; each names the path.
// Store.Warnings reports a torn write-ahead log found on the way.
//
// A store on a disk too full to replay its logs opens read-only: reads
// work, writes fail with an error wrapping syscall.ENOSPC. If the disk
// fills during the open, or ctx is done first, Open returns that error at
// once rather than wait (see pebblekv.OpenContext).
func Open(ctx context.Context, dir string, opts *Options) (*store.Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	kv, err := pebblekv.OpenContext(ctx, dir, &opts.Pebble)
	if err != nil {
		return nil, err
	}
	return store.New(kv, &opts.Store), nil
}
