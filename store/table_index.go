package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// Indexes on a table's fields, as mnesia's add_table_index. The entry of
// an object whose field at Pos holds V is
//
//	0x00 ++ sext({table, <<Name>>, {i, Pos, V, Key}})  value: empty
//	0x00 ++ sext({table, <<Name>>, {u, Pos, V}})       value: sext(Key), for a unique index
//
// Entries of one value sort by key, so a look-up yields its objects in
// key order, as a select must. Unlike the store's key indexes, these
// depend on the value, so a writer reads the object it replaces to find
// the entry it must delete; it does so in the same turn as the count
// (see table.go). A unique index's entry is one key per value, so that a
// second object with the value finds it in one read, and on a shared
// backend the commit's condition on that key refuses a racing writer.

// CreateTableIndex indexes table's objects by the field attr (an
// attribute's name, or a position in decimal for a table without
// attribute names). With unique, two objects may not hold one value
// there: a write that would is refused with a *UniqueError.
//
// The index is stored in the table's definition in state IndexBuilding:
// from then on every writer maintains it, and selects do not use it.
// Then the objects already stored are indexed in steps of opts.Step,
// each one atomic write (writers wait for one step, not for the build),
// and the index becomes IndexReady. If the objects already break a
// unique index, the build stops with a *UniqueError and removes what it
// made. A build that is interrupted leaves the index IndexBuilding:
// CreateTableIndex again with the same arguments, or CheckTables with
// Fix, finishes it.
func (s *Store) CreateTableIndex(ctx context.Context, table, attr string, unique bool, opts *BuildOptions) error {
	var pos int
	_, err := s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		d, err := c.live(table)
		if err != nil {
			return nil, err
		}
		p, ok := d.attrPos(attr)
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: table %q has no attribute %q", ErrTableDef, table, attr)
		case p == d.KeyPos:
			return nil, fmt.Errorf("%w: table %q: %s is the key, which orders the table already", ErrTableDef, table, attr)
		}
		pos = p
		if ix := d.index(pos); ix != nil {
			if ix.State == IndexBuilding && ix.Unique == unique {
				return c.list, nil // resume the build
			}
			return nil, fmt.Errorf("%w: table %q has an index on %s (%s)", ErrIndexExists, table, ix.Attr, ix.State)
		}
		nd, err := s.withIndexes(d, false, append(indexList(d), TableIndex{Pos: pos, Unique: unique, State: IndexBuilding}))
		if err != nil {
			return nil, err
		}
		return replaceDef(c, table, nd), nil
	})
	if err != nil {
		return err
	}
	if err := s.buildTableIndex(ctx, table, pos, opts); err != nil {
		if errors.Is(err, ErrUnique) {
			// The data break the index: take it away again.
			if derr := s.dropTableIndex(ctx, table, pos, opts); derr != nil {
				return errors.Join(err, derr)
			}
		}
		return err
	}
	_, err = s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		d, err := c.live(table)
		if err != nil {
			return nil, err
		}
		ix := d.index(pos)
		if ix == nil || ix.State != IndexBuilding || ix.Unique != unique {
			return nil, fmt.Errorf("%w: table %q's index on %s was dropped or changed during its build", ErrNoIndex, table, attr)
		}
		return s.setIndexState(c, d, pos, IndexReady)
	})
	return err
}

// setIndexState returns c's list with d's index at pos in state st, or
// without it for st removed.
func (s *Store) setIndexState(c *tableCatalog, d *tableDef, pos int, st IndexState) ([]*tableDef, error) {
	var idx []TableIndex
	for _, ti := range indexList(d) {
		if ti.Pos == pos {
			if st == removed {
				continue
			}
			ti.State = st
		}
		idx = append(idx, ti)
	}
	nd, err := s.withIndexes(d, d.dropping, idx)
	if err != nil {
		return nil, err
	}
	return replaceDef(c, d.Name, nd), nil
}

// removed is the state setIndexState removes an index with.
const removed = IndexState(0xFF)

// DropTableIndex removes the index on table's field attr: it marks it
// dropping (writers stop maintaining it, selects stop using it), deletes
// its entries in steps and then its definition. An interrupted drop
// leaves it dropping; DropTableIndex again, or CheckTables with Fix,
// finishes it.
func (s *Store) DropTableIndex(ctx context.Context, table, attr string, opts *BuildOptions) error {
	c, err := s.currentTables(ctx)
	if err != nil {
		return err
	}
	d, err := c.live(table)
	if err != nil {
		return err
	}
	pos, ok := d.attrPos(attr)
	if !ok || d.index(pos) == nil {
		return fmt.Errorf("%w: table %q has no index on %q", ErrNoIndex, table, attr)
	}
	return s.dropTableIndex(ctx, table, pos, opts)
}

func (s *Store) dropTableIndex(ctx context.Context, table string, pos int, opts *BuildOptions) error {
	c, err := s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		d, err := c.live(table)
		if err != nil {
			return nil, err
		}
		if d.index(pos) == nil {
			return nil, fmt.Errorf("%w: table %q has no index on %s", ErrNoIndex, table, d.attrName(pos))
		}
		return s.setIndexState(c, d, pos, IndexDropping)
	})
	if err != nil {
		return err
	}
	ix := c.find(table).index(pos)
	if err := s.deleteSpan(ctx, ix.head, prefixEnd(ix.head), opts); err != nil {
		return fmt.Errorf("store: dropping table %s's index on %s: %w", table, ix.Attr, err)
	}
	_, err = s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		d := c.find(table)
		if d == nil || d.index(pos) == nil || d.index(pos).State != IndexDropping {
			return c.list, nil // finished by another caller, or the table went
		}
		return s.setIndexState(c, d, pos, removed)
	})
	return err
}

// buildTableIndex writes the entries of the objects already stored, one
// step at a time, each under the writers' turn (or, on a shared
// backend, conditional on the objects and the entries it read).
func (s *Store) buildTableIndex(ctx context.Context, table string, pos int, opts *BuildOptions) error {
	step := opts.step(s.ix.shared)
	var lower []byte
	var read int64
	for {
		next, n, err := s.buildTableStep(ctx, table, pos, lower, step)
		for attempt := 0; errors.Is(err, ErrPrecondition) && attempt < maxCatalogRetries; attempt++ {
			next, n, err = s.buildTableStep(ctx, table, pos, lower, step)
		}
		if err != nil {
			return err
		}
		read += int64(n)
		opts.progress(read)
		if next == nil {
			return nil
		}
		lower = next
	}
}

// buildTableStep indexes up to step objects from lower on (nil: the
// first); it returns where the next step starts, nil at the end.
func (s *Store) buildTableStep(ctx context.Context, table string, pos int, lower []byte, step int) (next []byte, n int, err error) {
	s.tb.mu.Lock()
	defer s.tb.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if s.ix.shared {
		s.tb.cat.Store(nil) // another process may have changed them
	}
	cat, err := s.tablesLocked(ctx)
	if err != nil {
		return nil, 0, err
	}
	d, err := cat.live(table)
	if err != nil {
		return nil, 0, err
	}
	ix := d.index(pos)
	if ix == nil || ix.State != IndexBuilding {
		return nil, 0, fmt.Errorf("%w: table %q's index on %s was dropped during its build", ErrNoIndex, table, d.attrName(pos))
	}
	if lower == nil {
		lower = d.rows
	}
	it, err := s.openCursor(ctx, lower, d.rowsEnd, false)
	if err != nil {
		return nil, 0, err
	}
	defer it.Close() // an early return; the normal end reports its error
	wb := s.kv.NewBatch()
	defer wb.Close()
	cb, shared := wb.(seam.CondBatch)
	owners := map[string][]byte{} // unique entries: the key they name now
	var last []byte
	for n < step && it.Next() {
		k, v := it.Key(), it.Value()
		if v == nil && it.Err() != nil {
			break
		}
		n++
		last = append(last[:0], k...)
		kb := k[len(d.rows):]
		key, err := s.codec.Decode(kb)
		if err != nil {
			continue // CheckTables reports it
		}
		obj, err := d.object(key, v)
		if err != nil || obj.Len() < pos {
			continue
		}
		vb, err := s.codec.Encode(obj.Elems()[pos-1])
		if err != nil {
			return nil, 0, err
		}
		if shared {
			cb.RequireValue(k, v)
		}
		if !ix.Unique {
			if err := wb.Set(slices.Concat(ix.head, vb, kb), nil); err != nil {
				return nil, 0, err
			}
			continue
		}
		uk := slices.Concat(ix.head, vb)
		owner, seen := owners[string(uk)]
		if !seen {
			owner, err = s.kv.Get(ctx, uk)
			if errors.Is(err, ErrNotFound) {
				owner, err = nil, nil
			}
			if err != nil {
				return nil, 0, err
			}
			if shared {
				cb.RequireValue(uk, owner)
			}
		}
		if owner != nil && !bytes.Equal(owner, kb) {
			other, _ := s.codec.Decode(owner)
			return nil, 0, &UniqueError{Table: table, Attr: ix.Attr, Value: obj.Elems()[pos-1], Key: other, Other: key}
		}
		owners[string(uk)] = bytes.Clone(kb)
		if err := wb.Set(uk, kb); err != nil {
			return nil, 0, err
		}
	}
	if err := it.finish(nil); err != nil {
		return nil, 0, err
	}
	if shared {
		cb.RequireValue(s.tableCatalogKey(), cat.raw)
	}
	if err := wb.Commit(ctx, false); err != nil {
		s.forgetTables()
		return nil, 0, err
	}
	if n < step {
		return nil, n, s.syncLocked(ctx)
	}
	return append(bytes.Clone(last), 0), n, nil
}

// syncLocked makes the writes so far durable, for a store that syncs.
func (s *Store) syncLocked(ctx context.Context) error {
	if !s.sync {
		return nil
	}
	return s.Sync(ctx)
}

// indexValue returns the term an object holds at pos.
func indexValue(obj term.Term, pos int) (term.Term, bool) {
	if obj.Kind() != term.KindTuple || obj.Len() < pos {
		return term.Term{}, false
	}
	return obj.Elems()[pos-1], true
}
