package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// IndexProblemKind names what CheckIndexes found.
type IndexProblemKind uint8

// The problems CheckIndexes finds.
const (
	// MissingEntry: a stored key that matches an index has no entry.
	MissingEntry IndexProblemKind = iota
	// OrphanEntry: an entry whose key is not stored.
	OrphanEntry
	// StaleEntry: an entry that its key, stored or not, does not give: a
	// wrong index value, a key that does not match the pattern, or an
	// index that is no longer defined.
	StaleEntry
	// Unfinished: an index left building or dropping by a process that
	// stopped; Fix finishes the build or the drop.
	Unfinished
	// ForeignReserved: a key in the reserved range that is neither the
	// catalog nor an index entry; it is reported and left.
	ForeignReserved
)

var problemNames = [...]string{"missing entry", "orphan entry", "stale entry", "unfinished", "foreign reserved key"}

func (k IndexProblemKind) String() string {
	if int(k) < len(problemNames) {
		return problemNames[k]
	}
	return fmt.Sprintf("problem(%d)", k)
}

// IndexProblem is one finding of CheckIndexes.
type IndexProblem struct {
	Kind  IndexProblemKind
	Index string    // the index concerned; empty for a foreign key
	Key   term.Term // the data key concerned, if any
	Raw   []byte    // the reserved key concerned (entry or foreign), if any
	Fixed bool      // with Fix: repaired
}

// IndexCheckOptions adjusts CheckIndexes.
type IndexCheckOptions struct {
	// Fix repairs what is found: writes missing entries, deletes orphan
	// and stale ones, finishes unfinished builds and drops. Each repair
	// is conditional on what was found still holding (the key still
	// there, or still absent), so a check running beside writers does
	// not undo their work.
	Fix bool
	// OnProblem, when set, is called with each problem found.
	OnProblem func(IndexProblem)
}

// IndexCheckResult counts what CheckIndexes found.
type IndexCheckResult struct {
	Indexes    int   // indexes defined
	Keys       int64 // data keys read (those that can match an index)
	Entries    int64 // reserved keys read
	Missing    int64
	Orphans    int64
	Stale      int64
	Unfinished int64
	Foreign    int64
	Fixed      int64
}

// Clean reports whether the check found nothing.
func (r IndexCheckResult) Clean() bool {
	return r.Missing+r.Orphans+r.Stale+r.Unfinished+r.Foreign == 0
}

// CheckIndexes compares every index with the data: each stored key that
// matches an index's pattern must have its entry, and each entry must
// belong to a stored key that gives it. It reads the data keys of each
// index's range and the whole reserved range, with one point read per
// key (so it holds no more than a key in memory). A finding is read again
// before it is reported, so a write that raced the check's snapshot is
// not taken for a fault; on a quiet store the check is exact.
func (s *Store) CheckIndexes(ctx context.Context, opts IndexCheckOptions) (IndexCheckResult, error) {
	var r IndexCheckResult
	if s.closed.Load() {
		return r, ErrClosed
	}
	c, err := s.current(ctx)
	if err != nil {
		return r, err
	}
	r.Indexes = len(c.list)
	report := func(p IndexProblem) {
		switch p.Kind {
		case MissingEntry:
			r.Missing++
		case OrphanEntry:
			r.Orphans++
		case StaleEntry:
			r.Stale++
		case Unfinished:
			r.Unfinished++
		case ForeignReserved:
			r.Foreign++
		}
		if p.Fixed {
			r.Fixed++
		}
		if opts.OnProblem != nil {
			opts.OnProblem(p)
		}
	}
	// Data without entries.
	for _, ix := range c.list {
		if ix.State == IndexDropping {
			continue
		}
		if err := s.checkData(ctx, ix, opts.Fix, &r, report); err != nil {
			return r, err
		}
	}
	// Entries without data, or wrong.
	if err := s.checkEntries(ctx, c, opts.Fix, &r, report); err != nil {
		return r, err
	}
	// Builds and drops left half done: the passes above did their
	// entries' work, so with Fix only the definitions are left to change.
	for _, ix := range c.list {
		if ix.State == IndexReady {
			continue
		}
		p := IndexProblem{Kind: Unfinished, Index: ix.Name}
		if opts.Fix {
			var err error
			if ix.State == IndexBuilding {
				err = s.markReady(ctx, ix)
			} else {
				_, err = s.changeCatalog(ctx, func(c *catalog) ([]*index, error) { return withState(c, ix.Name, -1), nil })
			}
			if err != nil {
				return r, err
			}
			p.Fixed = true
		}
		report(p)
	}
	if opts.Fix && r.Fixed > 0 {
		return r, s.Sync(ctx)
	}
	return r, nil
}

func (s *Store) checkData(ctx context.Context, ix *index, fix bool, r *IndexCheckResult, report func(IndexProblem)) error {
	lower := ix.lower
	if lower == nil {
		lower = seam.ReservedEnd
	}
	it, err := s.kv.NewIter(ctx, lower, ix.upper, false)
	if err != nil {
		return err
	}
	defer it.Close()
	var entry []byte
	for it.Next() {
		k := it.Key()
		t, err := s.codec.Decode(k)
		if err != nil {
			continue
		}
		v, ok := ix.value(t)
		if !ok {
			continue
		}
		r.Keys++
		if entry, err = s.appendEntry(entry[:0], ix, v, k); err != nil {
			return err
		}
		if found, err := s.present(ctx, entry); err != nil || found {
			if err != nil {
				return err
			}
			continue
		}
		// Read again: a delete may have raced the snapshot.
		if found, err := s.present(ctx, k); err != nil || !found {
			if err != nil {
				return err
			}
			continue
		}
		p := IndexProblem{Kind: MissingEntry, Index: ix.Name, Key: t, Raw: bytes.Clone(entry)}
		if fix {
			if p.Fixed, err = s.repair(ctx, entry, true, k, true); err != nil {
				return err
			}
		}
		report(p)
	}
	return it.Close()
}

func (s *Store) checkEntries(ctx context.Context, c *catalog, fix bool, r *IndexCheckResult, report func(IndexProblem)) error {
	it, err := s.kv.NewIter(ctx, []byte{seam.ReservedByte}, seam.ReservedEnd, false)
	if err != nil {
		return err
	}
	defer it.Close()
	catKey := s.catalogKey()
	var kb []byte
	for it.Next() {
		raw := it.Key()
		if bytes.Equal(raw, catKey) {
			continue
		}
		r.Entries++
		t, err := s.codec.Decode(raw[1:])
		if err != nil || !isEntry(t) {
			report(IndexProblem{Kind: ForeignReserved, Raw: bytes.Clone(raw)})
			continue
		}
		el := t.Elems()
		name, v, key := string(el[1].Bytes()), el[2], el[3]
		p := IndexProblem{Index: name, Key: key, Raw: bytes.Clone(raw)}
		if kb, err = s.codec.Append(kb[:0], key); err != nil {
			p.Kind = StaleEntry
		} else if ix := c.find(name); ix == nil || ix.State == IndexDropping {
			p.Kind = StaleEntry
		} else if want, ok := ix.value(key); !ok || !term.Equal(want, v) || !bytes.HasSuffix(raw, kb) {
			p.Kind = StaleEntry
		} else if found, err := s.present(ctx, kb); err != nil {
			return err
		} else if found {
			continue
		} else {
			p.Kind = OrphanEntry
		}
		// Read again: a write may have raced the snapshot.
		if found, err := s.present(ctx, p.Raw); err != nil || !found {
			if err != nil {
				return err
			}
			continue
		}
		if fix {
			// An orphan goes only if its key is still absent; a stale
			// entry is wrong whatever its key does.
			var cond []byte
			if p.Kind == OrphanEntry {
				cond = kb
			}
			if p.Fixed, err = s.repair(ctx, p.Raw, false, cond, false); err != nil {
				return err
			}
		}
		report(p)
	}
	return it.Close()
}

// present reports whether key is stored.
func (s *Store) present(ctx context.Context, key []byte) (bool, error) {
	_, err := s.kv.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// repair writes (set) or deletes one reserved key, if cond (a data key,
// when not nil) is still present (want) or absent (!want). It reports
// whether it wrote.
func (s *Store) repair(ctx context.Context, key []byte, set bool, cond []byte, want bool) (bool, error) {
	wb := s.kv.NewBatch()
	defer wb.Close()
	cb, shared := wb.(seam.CondBatch)
	if !shared {
		s.ix.mu.Lock()
		defer s.ix.mu.Unlock()
		if cond != nil {
			found, err := s.present(ctx, cond)
			if err != nil || found != want {
				return false, err
			}
		}
	} else if cond != nil {
		if want {
			cb.RequirePresent(cond)
		} else {
			cb.RequireAbsent(cond)
		}
	}
	var err error
	if set {
		err = wb.Set(key, nil)
	} else {
		err = wb.Delete(key)
	}
	if err == nil {
		err = wb.Commit(ctx, false)
	}
	if errors.Is(err, ErrPrecondition) {
		return false, nil // the key changed meanwhile: its writer was right
	}
	return err == nil, err
}

// isEntry reports whether t has the shape of an index entry,
// {index, <<Name>>, Value, Key}.
func isEntry(t term.Term) bool {
	if t.Kind() != term.KindTuple || t.Len() != 4 {
		return false
	}
	el := t.Elems()
	return term.Equal(el[0], atomIndex) && el[1].Kind() == term.KindBinary
}
