package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// BuildOptions adjusts CreateIndex and DropIndex.
type BuildOptions struct {
	// Progress, when set, is called after each step with the number of
	// keys read so far.
	Progress func(keys int64)
	// Step is the number of keys a build or drop handles per atomic
	// write; 0 means the default (1000, or 60 on a shared backend such
	// as etcd, whose transactions hold 128 operations by default).
	Step int
}

func (o *BuildOptions) step(shared bool) int {
	switch {
	case o != nil && o.Step > 0:
		return o.Step
	case shared:
		return 60
	}
	return 1000
}

func (o *BuildOptions) progress(n int64) {
	if o != nil && o.Progress != nil {
		o.Progress(n)
	}
}

// CreateIndex defines the index name over the keys that match pattern,
// which must hold at least one '$N' variable: every such key gets an
// entry under what its variables bind (see IndexScan). The definition is
// stored in the store, so every process that opens it maintains the
// index from then on.
//
// The keys already stored are indexed in steps of opts.Step keys, each
// one atomic write; writers wait only for the step in progress, and
// maintain the index themselves meanwhile (its state is IndexBuilding,
// and queries refuse it until the build marks it IndexReady). If the
// build is interrupted the index stays IndexBuilding; CheckIndexes with
// Fix finishes it, and DropIndex removes it.
func (s *Store) CreateIndex(ctx context.Context, name string, pattern term.Term, opts *BuildOptions) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ix, err := s.compile(IndexInfo{Name: name, Pattern: pattern, State: IndexBuilding})
	if err != nil {
		return err
	}
	_, err = s.changeCatalog(ctx, func(c *catalog) ([]*index, error) {
		if c.find(name) != nil {
			return nil, fmt.Errorf("%w: %q", ErrIndexExists, name)
		}
		return append(c.list[:len(c.list):len(c.list)], ix), nil
	})
	if err != nil {
		return err
	}
	if err := s.build(ctx, ix, opts); err != nil {
		return err
	}
	return s.markReady(ctx, ix)
}

// markReady moves ix from building to ready, if it is still the same
// index.
func (s *Store) markReady(ctx context.Context, ix *index) error {
	_, err := s.changeCatalog(ctx, func(c *catalog) ([]*index, error) {
		cur := c.find(ix.Name)
		if cur == nil || cur.State != IndexBuilding || !term.Equal(cur.Pattern, ix.Pattern) {
			return nil, fmt.Errorf("%w: %q was dropped or changed during its build", ErrNoIndex, ix.Name)
		}
		return withState(c, ix.Name, int(IndexReady)), nil
	})
	return err
}

// build writes the entries of the keys already stored, one step at a
// time. Each step reads its keys and writes their entries atomically with
// the check that they still exist: under the store's lock, which its own
// writers respect, or on a shared backend as conditions of the commit
// (a key deleted in between fails it, and the step is read again).
func (s *Store) build(ctx context.Context, ix *index, opts *BuildOptions) error {
	step := opts.step(s.ix.shared)
	lower := ix.lower
	var read int64
	for {
		next, n, err := s.buildStep(ctx, ix, lower, step)
		for attempt := 0; errors.Is(err, ErrPrecondition) && attempt < maxCatalogRetries; attempt++ {
			next, n, err = s.buildStep(ctx, ix, lower, step)
		}
		if err != nil {
			return fmt.Errorf("store: building index %s: %w", ix.Name, err)
		}
		read += int64(n)
		opts.progress(read)
		if next == nil {
			return nil
		}
		lower = next
	}
}

// buildStep indexes up to step keys from lower on; it returns where the
// next step starts, nil at the end.
func (s *Store) buildStep(ctx context.Context, ix *index, lower []byte, step int) (next []byte, n int, err error) {
	if !s.ix.shared {
		s.ix.mu.Lock()
		defer s.ix.mu.Unlock()
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if lower == nil {
		lower = seam.ReservedEnd
	}
	it, err := s.openCursor(ctx, lower, ix.upper, false)
	if err != nil {
		return nil, 0, err
	}
	defer it.Close() // an early return; the normal end reports its error
	wb := s.kv.NewBatch()
	defer wb.Close()
	cb, _ := wb.(seam.CondBatch)
	var buf, last []byte
	for n < step && it.Next() {
		k := it.Key()
		n++
		last = append(last[:0], k...)
		t, err := s.codec.Decode(k)
		if err != nil {
			continue // foreign: Check's business
		}
		v, ok := ix.value(t)
		if !ok {
			continue
		}
		if buf, err = s.appendEntry(buf[:0], ix, v, k); err != nil {
			return nil, 0, err
		}
		if err := wb.Set(buf, nil); err != nil {
			return nil, 0, err
		}
		if cb != nil {
			cb.RequirePresent(k)
		}
	}
	more := n == step
	if err := it.finish(nil); err != nil {
		return nil, 0, err
	}
	if cb != nil {
		// The definitions must still hold this index as building: a
		// drop meanwhile must not get entries back.
		c, err := s.readCatalog(ctx)
		if err != nil {
			return nil, 0, err
		}
		if cur := c.find(ix.Name); cur == nil || cur.State != IndexBuilding {
			return nil, 0, fmt.Errorf("%w: %q was dropped during its build", ErrNoIndex, ix.Name)
		}
		cb.RequireValue(s.catalogKey(), c.raw)
	}
	if wb.Count() > 0 {
		if err := wb.Commit(ctx, false); err != nil {
			return nil, 0, err
		}
	}
	if !more {
		return nil, n, nil
	}
	return append(last, 0), n, nil // the least key after the last one read
}

// DropIndex deletes the index name and its entries. Writers stop
// maintaining it at once; its entries are deleted in steps, and the
// definition goes last, so an interrupted drop leaves the index
// IndexDropping, which DropIndex again (or CheckIndexes with Fix)
// finishes.
func (s *Store) DropIndex(ctx context.Context, name string, opts *BuildOptions) error {
	if s.closed.Load() {
		return ErrClosed
	}
	c, err := s.changeCatalog(ctx, func(c *catalog) ([]*index, error) {
		if c.find(name) == nil {
			return nil, fmt.Errorf("%w: %q", ErrNoIndex, name)
		}
		return withState(c, name, int(IndexDropping)), nil
	})
	if err != nil {
		return err
	}
	if err := s.deleteEntries(ctx, c.find(name).head, opts); err != nil {
		return fmt.Errorf("store: dropping index %s: %w", name, err)
	}
	_, err = s.changeCatalog(ctx, func(c *catalog) ([]*index, error) {
		return withState(c, name, -1), nil
	})
	return err
}

// deleteEntries deletes every key that starts with head, in steps.
func (s *Store) deleteEntries(ctx context.Context, head []byte, opts *BuildOptions) error {
	step := opts.step(s.ix.shared)
	upper := prefixEnd(head)
	var read int64
	lower := head
	for {
		// Each step starts past the last key deleted, not at head: Pebble
		// would step over every tombstone written so far again.
		it, err := s.openCursor(ctx, lower, upper, false)
		if err != nil {
			return err
		}
		wb := s.kv.NewBatch()
		n := 0
		for n < step && it.Next() {
			if err = wb.Delete(it.Key()); err != nil {
				break
			}
			lower = append(append(lower[:0:0], it.Key()...), 0)
			n++
		}
		err = it.finish(err)
		if err == nil && n > 0 {
			err = wb.Commit(ctx, false)
		}
		wb.Close()
		if err != nil {
			return err
		}
		read += int64(n)
		opts.progress(read)
		if n < step {
			return s.Sync(ctx)
		}
	}
}

// prefixEnd is sext.PrefixEnd for a reserved key, which never is all
// 0xFF.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
