package store

import (
	"context"

	"github.com/erlsext/sext/store/seam"
)

// cursor is a seam iterator closed exactly once, so that a scan can defer
// Close for an early return or a panic in its loop and still close it at
// the normal end, where Close's error counts. Every cursor the store
// opens is one (openCursor): the seam forbids a second Close, and Pebble,
// given one, puts the same iterator in its pool twice, so that two later
// readers share it (wrong counts and panics in other goroutines' scans;
// storetest.Checked reports it).
type cursor struct {
	seam.Iter
	closed bool
}

// openCursor opens [lower, upper) of s's KV, in reverse if asked.
func (s *Store) openCursor(ctx context.Context, lower, upper []byte, reverse bool) (*cursor, error) {
	it, err := s.kv.NewIter(ctx, lower, upper, reverse)
	if err != nil {
		return nil, err
	}
	return &cursor{Iter: it}, nil
}

// Close closes the iterator the first time; later calls return nil.
func (c *cursor) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.Iter.Close()
}

// finish closes the cursor at the end of a scan and returns the first of
// err, the iteration's error and Close's.
func (c *cursor) finish(err error) error {
	if err == nil {
		err = c.Err()
	}
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}
