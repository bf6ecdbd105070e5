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

// IndexProblemKind names what CheckIndexes found.
type IndexProblemKind uint8

// The problems CheckIndexes finds.
const (
	// ProblemMissingEntry: a stored key that matches an index has no
	// entry.
	ProblemMissingEntry IndexProblemKind = iota
	// ProblemOrphanEntry: an entry whose key is not stored.
	ProblemOrphanEntry
	// ProblemStaleEntry: an entry that its key, stored or not, does not
	// give: a wrong index value, a key that does not match the pattern,
	// or an index that is no longer defined.
	ProblemStaleEntry
	// ProblemUnfinished: an index left building or dropping by a process
	// that stopped; Fix finishes the build or the drop.
	ProblemUnfinished
	// ProblemForeignReserved: a key in the reserved range that is neither
	// the catalog nor an index entry; it is reported and left.
	ProblemForeignReserved
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
	// there, or still absent) and on the index definitions being those
	// the check read, so a check running beside writers, or beside an
	// index being created, does not undo their work. It cannot tell a
	// build or drop in progress from one a stopped process left, and
	// finishes both: run it while no index is being created or dropped.
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
// belong to a stored key that gives it. For each index it reads the data
// keys of the pattern's range and the index's entries, once each, and
// holds the entries the data give in memory, sorted (their own size and
// 8 bytes: some 60 bytes a key for the demo's orders), to merge them with
// the stored ones. Then it reads the rest of the reserved range but the
// tables' prefix, which CheckTables reads: entries of indexes no longer
// defined, keys that are no entry. Each difference
// is read again, at one moment, before it counts, so a write that raced
// the check's snapshot is not taken for a fault; on a quiet store the
// check is exact.
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
	var fix *catalog // with Fix, the definitions every repair depends on
	if opts.Fix {
		fix = c
	}
	report := func(p IndexProblem) {
		switch p.Kind {
		case ProblemMissingEntry:
			r.Missing++
		case ProblemOrphanEntry:
			r.Orphans++
		case ProblemStaleEntry:
			r.Stale++
		case ProblemUnfinished:
			r.Unfinished++
		case ProblemForeignReserved:
			r.Foreign++
		}
		if p.Fixed {
			r.Fixed++
		}
		if opts.OnProblem != nil {
			opts.OnProblem(p)
		}
	}
	for _, ix := range c.list {
		if ix.State == IndexDropping {
			continue
		}
		if err := s.checkIndex(ctx, ix, fix, &r, report); err != nil {
			return r, err
		}
	}
	if err := s.checkRest(ctx, c, fix, &r, report); err != nil {
		return r, err
	}
	// Builds and drops left half done: the passes above did their
	// entries' work, so with Fix only the definitions are left to change.
	for _, ix := range c.list {
		if ix.State == IndexReady {
			continue
		}
		p := IndexProblem{Kind: ProblemUnfinished, Index: ix.Name}
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

// checkIndex checks one live index: it computes the entry of every data
// key that matches (held in one arena, sorted), then reads the index's
// entries in order beside them, as a merge. Each difference is read
// again, key and entry, before it counts.
func (s *Store) checkIndex(ctx context.Context, ix *index, fix *catalog, r *IndexCheckResult, report func(IndexProblem)) error {
	want, err := s.expectedEntries(ctx, ix, r)
	if err != nil {
		return err
	}
	it, err := s.openCursor(ctx, ix.head, prefixEnd(ix.head), false)
	if err != nil {
		return err
	}
	defer it.Close() // an early return; the normal end reports its error
	i := 0
	for it.Next() {
		raw := it.Key()
		r.Entries++
		for i < want.len() && bytes.Compare(want.at(i), raw) < 0 {
			if err := s.missing(ctx, ix, want.at(i), fix, report); err != nil {
				return err
			}
			i++
		}
		if i < want.len() && bytes.Equal(want.at(i), raw) {
			i++
			continue
		}
		if err := s.extra(ctx, ix, raw, fix, report); err != nil {
			return err
		}
	}
	if err := it.finish(nil); err != nil {
		return err
	}
	for ; i < want.len(); i++ {
		if err := s.missing(ctx, ix, want.at(i), fix, report); err != nil {
			return err
		}
	}
	return nil
}

// entrySet is a sorted set of entry keys in one arena: the keys in the
// order they were met, and their order by bytes as a permutation of
// 32-bit offsets, so a key costs its bytes and 8 bytes more.
type entrySet struct {
	arena  []byte
	starts []uint32 // where each key starts; the next one's start ends it
	order  []uint32 // the keys' indexes, by bytes
}

func (e *entrySet) len() int { return len(e.order) }

// at returns the i-th key by bytes.
func (e *entrySet) at(i int) []byte { return e.raw(int(e.order[i])) }

func (e *entrySet) raw(j int) []byte {
	end := len(e.arena)
	if j+1 < len(e.starts) {
		end = int(e.starts[j+1])
	}
	return e.arena[e.starts[j]:end]
}

// maxCheckArena bounds the arena of one index's expected entries, which
// 32-bit offsets address.
const maxCheckArena = 1<<32 - 1

// expectedEntries returns the entries ix's data keys give, sorted.
func (s *Store) expectedEntries(ctx context.Context, ix *index, r *IndexCheckResult) (*entrySet, error) {
	lower := ix.lower
	if lower == nil {
		lower = seam.ReservedEnd
	}
	it, err := s.openCursor(ctx, lower, ix.upper, false)
	if err != nil {
		return nil, err
	}
	defer it.Close() // an early return; the normal end reports its error
	e := &entrySet{}
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
		e.starts = append(e.starts, uint32(len(e.arena)))
		if e.arena, err = s.appendEntry(e.arena, ix, v, k); err != nil {
			return nil, err
		}
		if len(e.arena) > maxCheckArena {
			return nil, fmt.Errorf("store: index %s: more than 4 GB of entries to check at once", ix.Name)
		}
	}
	if err := it.finish(nil); err != nil {
		return nil, err
	}
	// Data order is not index order.
	e.order = make([]uint32, len(e.starts))
	for i := range e.order {
		e.order[i] = uint32(i)
	}
	slices.SortFunc(e.order, func(a, b uint32) int { return bytes.Compare(e.raw(int(a)), e.raw(int(b))) })
	return e, nil
}

// entryKey returns the data key an entry of ix names, decoded and
// encoded, or ok false if raw is not an entry of ix.
func (s *Store) entryKey(ix *index, raw []byte) (t term.Term, kb []byte, ok bool) {
	e, err := s.codec.Decode(raw[1:])
	if err != nil || !isEntry(e) || string(e.Elems()[1].Bytes()) != ix.Name {
		return t, nil, false
	}
	t = e.Elems()[3]
	if kb, err = s.codec.Encode(t); err != nil {
		return t, nil, false
	}
	return t, kb, true
}

// missing handles an expected entry that is not stored.
func (s *Store) missing(ctx context.Context, ix *index, entry []byte, fix *catalog, report func(IndexProblem)) error {
	t, kb, _ := s.entryKey(ix, entry)
	// Read again: a delete may have raced the snapshot.
	if ok, err := s.holds(ctx, kb, entry); err != nil || !ok {
		return err
	}
	p := IndexProblem{Kind: ProblemMissingEntry, Index: ix.Name, Key: t, Raw: bytes.Clone(entry)}
	if fix != nil {
		var err error
		if p.Fixed, err = s.repair(ctx, fix, entry, true, kb, true); err != nil {
			return err
		}
	}
	report(p)
	return nil
}

// extra handles a stored entry of ix that the data does not give.
func (s *Store) extra(ctx context.Context, ix *index, raw []byte, fix *catalog, report func(IndexProblem)) error {
	p := IndexProblem{Kind: ProblemStaleEntry, Index: ix.Name, Raw: bytes.Clone(raw)}
	t, kb, ok := s.entryKey(ix, raw)
	if !ok {
		p.Kind = ProblemForeignReserved
		report(p)
		return nil
	}
	p.Key = t
	var cond []byte // an orphan goes only if its key is still absent
	if v, match := ix.value(t); match {
		if right, err := s.appendEntry(nil, ix, v, kb); err == nil && bytes.Equal(right, raw) {
			// The entry its key would give: the key must be absent,
			// unless a write raced the snapshot.
			p.Kind, cond = ProblemOrphanEntry, kb
		}
	}
	// Read again: the entry still there (and an orphan's key absent).
	var still bool
	var err error
	if cond != nil {
		still, err = s.holds(ctx, p.Raw, cond)
	} else {
		still, err = s.present(ctx, p.Raw)
	}
	if err != nil || !still {
		return err
	}
	if fix != nil {
		if p.Fixed, err = s.repair(ctx, fix, p.Raw, false, cond, false); err != nil {
			return err
		}
	}
	report(p)
	return nil
}

// checkRest reads the reserved range outside the catalog key and the
// live indexes' ranges: entries of indexes that are no longer defined
// (stale) or being dropped, and keys that are no entry (foreign).
func (s *Store) checkRest(ctx context.Context, c *catalog, fix *catalog, r *IndexCheckResult, report func(IndexProblem)) error {
	type span struct{ lo, hi []byte }
	cat := s.catalogKey()
	skip := []span{{cat, append(bytes.Clone(cat), 0)}, span(s.tableSpan())} // tables: CheckTables
	for _, ix := range c.list {
		if ix.State != IndexDropping {
			skip = append(skip, span{ix.head, prefixEnd(ix.head)})
		}
	}
	slices.SortFunc(skip, func(a, b span) int { return bytes.Compare(a.lo, b.lo) })
	lo := []byte{seam.ReservedByte}
	for i := 0; i <= len(skip); i++ {
		hi := seam.ReservedEnd
		if i < len(skip) {
			hi = skip[i].lo
		}
		if bytes.Compare(lo, hi) < 0 {
			if err := s.checkGap(ctx, lo, hi, fix, r, report); err != nil {
				return err
			}
		}
		if i < len(skip) {
			lo = skip[i].hi
		}
	}
	return nil
}

func (s *Store) checkGap(ctx context.Context, lo, hi []byte, fix *catalog, r *IndexCheckResult, report func(IndexProblem)) error {
	it, err := s.openCursor(ctx, lo, hi, false)
	if err != nil {
		return err
	}
	defer it.Close() // an early return; the normal end reports its error
	for it.Next() {
		raw := it.Key()
		r.Entries++
		t, err := s.codec.Decode(raw[1:])
		if err != nil || !isEntry(t) {
			report(IndexProblem{Kind: ProblemForeignReserved, Raw: bytes.Clone(raw)})
			continue
		}
		p := IndexProblem{Kind: ProblemStaleEntry, Index: string(t.Elems()[1].Bytes()), Key: t.Elems()[3], Raw: bytes.Clone(raw)}
		if fix != nil {
			if p.Fixed, err = s.repair(ctx, fix, p.Raw, false, nil, false); err != nil {
				return err
			}
		}
		report(p)
	}
	return it.finish(nil)
}

// holds reports whether present is stored and absent is not, both at
// one moment: the second reading of a difference. Two Gets would not do
// beside writers: a key put back between them, with its entry, would
// look like a key without its entry. On a shared backend it commits the
// two conditions alone, which writes nothing; otherwise it reads under
// the store's lock, which the store's writers hold while they commit.
func (s *Store) holds(ctx context.Context, present, absent []byte) (bool, error) {
	if s.ix.shared {
		wb := s.kv.NewBatch()
		defer wb.Close()
		cb := wb.(seam.CondBatch)
		cb.RequirePresent(present)
		cb.RequireAbsent(absent)
		err := cb.Commit(ctx, false)
		if errors.Is(err, ErrPrecondition) {
			return false, nil
		}
		return err == nil, err
	}
	s.ix.mu.Lock()
	defer s.ix.mu.Unlock()
	if found, err := s.present(ctx, absent); err != nil || found {
		return false, err
	}
	return s.present(ctx, present)
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
// when not nil) is still present (want) or absent (!want), and the
// definitions are still c: an index created since the check read them
// has entries the check took for stale, and one dropped since must not
// get an entry back. It reports whether it wrote.
func (s *Store) repair(ctx context.Context, c *catalog, key []byte, set bool, cond []byte, want bool) (bool, error) {
	wb := s.kv.NewBatch()
	defer wb.Close()
	cb, shared := wb.(seam.CondBatch)
	if !shared {
		s.ix.mu.Lock()
		defer s.ix.mu.Unlock()
		now, err := s.readCatalog(ctx)
		if err != nil || !bytes.Equal(now.raw, c.raw) {
			return false, err
		}
		if cond != nil {
			found, err := s.present(ctx, cond)
			if err != nil || found != want {
				return false, err
			}
		}
	} else {
		cb.RequireValue(s.catalogKey(), c.raw)
		if cond != nil {
			if want {
				cb.RequirePresent(cond)
			} else {
				cb.RequireAbsent(cond)
			}
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
