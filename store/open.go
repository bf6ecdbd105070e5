package store

import "github.com/erlsext/sext/store/pebblekv"

// Open opens the embedded Pebble store in dir, creating it (and dir, but
// not dir's parent) if needed, as pebblekv.Open does with opts.Pebble,
// and puts a Store on it with the rest of opts. A missing directory is an
// error wrapping ErrNoStore, one that another process has open an error
// wrapping ErrLocked, one that holds store files but lost its manifest
// marker an error wrapping ErrCorrupt; each names the path. Warnings
// reports a torn write-ahead log found on the way.
func Open(dir string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	kv, err := pebblekv.Open(dir, &opts.Pebble)
	if err != nil {
		return nil, err
	}
	return New(kv, opts), nil
}
