package store

import (
	"context"

	"github.com/erlsext/sext/store/pebblekv"
)

// Open opens the embedded Pebble store in dir, as OpenContext does with
// a context that is never done.
func Open(dir string, opts *Options) (*Store, error) {
	return OpenContext(context.Background(), dir, opts)
}

// OpenContext opens the embedded Pebble store in dir, creating it (and
// dir, but not dir's parent) if needed, as pebblekv.OpenContext does
// with opts.Pebble, and puts a Store on it with the rest of opts. A
// missing directory is an error wrapping ErrNoStore, one that another
// process has open an error wrapping ErrLocked, one whose files are
// damaged (its manifest marker or manifest missing or cut, a table of
// the wrong size) an error wrapping ErrCorrupt; each names the path.
// Warnings reports a torn write-ahead log found on the way.
//
// A store on a disk too full to replay its logs opens read-only: reads
// work, writes fail with an error wrapping syscall.ENOSPC. If the disk
// fills during the open, or ctx is done first, OpenContext returns that
// error at once rather than wait; see pebblekv.OpenContext.
func OpenContext(ctx context.Context, dir string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	kv, err := pebblekv.OpenContext(ctx, dir, &opts.Pebble)
	if err != nil {
		return nil, err
	}
	return New(kv, opts), nil
}
