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

// TableProblemKind names what CheckTables found.
type TableProblemKind uint8

// The problems CheckTables finds.
const (
	// CountWrong: a table's stored count is not the number of its
	// objects. Fix writes the right one.
	CountWrong TableProblemKind = iota
	// TableMissingEntry: an object without its entry in an index; Fix
	// writes it.
	TableMissingEntry
	// TableStaleEntry: an index entry that no object gives (its object
	// is gone or holds another value, or the unique entry names another
	// key); Fix deletes it.
	TableStaleEntry
	// BadObject: an object whose key or value does not decode, or that
	// does not fit the table; reported and left.
	BadObject
	// UniqueBroken: two objects hold one value of a unique index;
	// reported and left (one of them must go). Its entry can name only
	// one of them: naming either is no further problem, and Fix writes
	// a missing one for the object whose key sorts first.
	UniqueBroken
	// TableUnfinished: a table being dropped, or an index being built or
	// dropped, by a process that stopped; Fix finishes it.
	TableUnfinished
	// TableForeign: a key among a table's keys, or under the tables'
	// prefix, that belongs to no table; reported and left.
	TableForeign
)

var tableProblemNames = [...]string{"count wrong", "missing entry", "stale entry", "bad object", "unique index broken", "unfinished", "foreign key"}

func (k TableProblemKind) String() string {
	if int(k) < len(tableProblemNames) {
		return tableProblemNames[k]
	}
	return fmt.Sprintf("problem(%d)", k)
}

// TableProblem is one finding of CheckTables.
type TableProblem struct {
	Kind   TableProblemKind
	Table  string
	Index  string    // the index's attribute, if one is concerned
	Key    term.Term // the object's key, if one is concerned
	Raw    []byte    // the store's key concerned, if any
	Detail string
	Fixed  bool
}

// TableCheckOptions adjusts CheckTables.
type TableCheckOptions struct {
	// Fix repairs counts and index entries, and finishes drops and
	// builds left unfinished. On a backend that only this process
	// writes (Pebble) the table's writers wait while its check runs; on
	// a shared one (etcd) each repair is conditional on what the check
	// read being unchanged, so a racing writer's work is not undone. Run
	// it while no table or index is being created or dropped: it cannot
	// tell one in progress from one a stopped process left.
	Fix bool
	// OnProblem, when set, is called with each problem found.
	OnProblem func(TableProblem)
}

// TableCheckResult counts what CheckTables found.
type TableCheckResult struct {
	Tables     int
	Objects    int64 // objects read
	Entries    int64 // index entries read
	Counts     int64 // counts that were wrong
	Missing    int64
	Stale      int64
	Bad        int64 // objects that do not decode or fit
	Broken     int64 // unique values held twice
	Unfinished int64
	Foreign    int64
	Fixed      int64
}

// Clean reports whether the check found nothing.
func (r TableCheckResult) Clean() bool {
	return r.Counts+r.Missing+r.Stale+r.Bad+r.Broken+r.Unfinished+r.Foreign == 0
}

// CheckTables compares every table's count and index entries with its
// objects. Each table is read with one cursor over all its keys, a
// consistent snapshot in which the count comes first, then the objects,
// then the index entries; the entries the objects give are held in
// memory, sorted, and merged with the stored ones. Then the rest of the
// tables' prefix is read for keys of no table.
func (s *Store) CheckTables(ctx context.Context, opts TableCheckOptions) (TableCheckResult, error) {
	var r TableCheckResult
	c, err := s.currentTables(ctx)
	if err != nil {
		return r, err
	}
	r.Tables = len(c.list)
	report := func(p TableProblem) {
		switch p.Kind {
		case CountWrong:
			r.Counts++
		case TableMissingEntry:
			r.Missing++
		case TableStaleEntry:
			r.Stale++
		case BadObject:
			r.Bad++
		case UniqueBroken:
			r.Broken++
		case TableUnfinished:
			r.Unfinished++
		case TableForeign:
			r.Foreign++
		}
		if p.Fixed {
			r.Fixed++
		}
		if opts.OnProblem != nil {
			opts.OnProblem(p)
		}
	}
	for _, d := range c.list {
		if d.dropping {
			p := TableProblem{Kind: TableUnfinished, Table: d.Name, Detail: "drop unfinished"}
			if opts.Fix {
				if err := s.DropTable(ctx, d.Name, nil); err != nil {
					return r, err
				}
				p.Fixed = true
			}
			report(p)
			continue
		}
		if err := s.checkTable(ctx, d, opts.Fix, &r, report); err != nil {
			return r, err
		}
		for _, ix := range d.indexes {
			if ix.State == IndexReady {
				continue
			}
			p := TableProblem{Kind: TableUnfinished, Table: d.Name, Index: ix.Attr, Detail: "index " + ix.State.String()}
			if opts.Fix {
				var err error
				if ix.State == IndexBuilding {
					err = s.CreateTableIndex(ctx, d.Name, ix.Attr, ix.Unique, nil)
					if errors.Is(err, ErrUnique) {
						// The build takes a unique index the objects
						// break away again, as CreateTableIndex does.
						p.Detail += "; the objects break it, so it was removed: " + err.Error()
						err = nil
					}
				} else {
					err = s.dropTableIndex(ctx, d.Name, ix.Pos, nil)
				}
				if err != nil {
					return r, err
				}
				p.Fixed = true
			}
			report(p)
		}
	}
	return r, s.checkTableGaps(ctx, c, &r, report)
}

// wanted is an index entry the objects give: its key and value.
type wanted struct {
	key, val []byte
	ix       *tableIndex
	kb       []byte // the object's key bytes
}

// checkTable checks one table that is not being dropped.
func (s *Store) checkTable(ctx context.Context, d *tableDef, fix bool, r *TableCheckResult, report func(TableProblem)) error {
	if fix && !s.ix.shared {
		s.tb.mu.Lock()
		defer s.tb.mu.Unlock()
	}
	it, err := s.openCursor(ctx, d.base, d.end, false)
	if err != nil {
		return err
	}
	defer it.Close() // an early return; the normal end reports its error
	var (
		countRaw []byte
		objects  int64
		want     []wanted
		i        int // the next of want to meet, once the entries begin
		sorted   bool
	)
	live := slices.DeleteFunc(slices.Clone(d.indexes), func(ix *tableIndex) bool { return ix.State != IndexReady })
	for it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := it.Key()
		switch {
		case bytes.Equal(k, d.count):
			countRaw = bytes.Clone(it.Value())
			continue
		case bytes.HasPrefix(k, d.rows):
			r.Objects++
			objects++
			v := it.Value()
			if v == nil && it.Err() != nil {
				return it.finish(nil)
			}
			w, p := s.objectEntries(d, live, k, v)
			if p != nil {
				report(*p)
				continue
			}
			want = append(want, w...)
			continue
		case bytes.Compare(k, d.rows) < 0:
			// Beside the count, before the objects: no entry, and the
			// entries' merge must not begin before the objects are read.
			report(TableProblem{Kind: TableForeign, Table: d.Name, Raw: bytes.Clone(k), Detail: "no part of the table has this key"})
			continue
		}
		if !sorted {
			sortWanted(want)
			s.reportBroken(d, want, report)
			sorted = true
		}
		r.Entries++
		for i < len(want) && bytes.Compare(want[i].key, k) < 0 {
			if err := s.tableMissing(ctx, d, want[i], fix, report); err != nil {
				return err
			}
			i = sameEntry(want, i)
		}
		if i < len(want) && bytes.Equal(want[i].key, k) {
			// Objects that share a unique value (reported as broken) all
			// give its entry, and it can name only one of them.
			j := sameEntry(want, i)
			if !slices.ContainsFunc(want[i:j], func(w wanted) bool { return bytes.Equal(w.val, it.Value()) }) {
				// A unique entry naming another key: the right one replaces it.
				if err := s.tableMissing(ctx, d, want[i], fix, report); err != nil {
					return err
				}
			}
			i = j
			continue
		}
		if err := s.tableExtra(ctx, d, k, it.Value(), fix, report); err != nil {
			return err
		}
	}
	if err := it.finish(nil); err != nil {
		return err
	}
	if !sorted {
		sortWanted(want)
		s.reportBroken(d, want, report)
	}
	for ; i < len(want); i = sameEntry(want, i) {
		if err := s.tableMissing(ctx, d, want[i], fix, report); err != nil {
			return err
		}
	}
	stored, ok := decodeCount(countRaw)
	if countRaw == nil {
		stored, ok = 0, true
	}
	if !ok || stored != objects {
		p := TableProblem{Kind: CountWrong, Table: d.Name, Raw: bytes.Clone(d.count),
			Detail: fmt.Sprintf("the count says %d, the table holds %d objects", stored, objects)}
		if !ok {
			p.Detail = fmt.Sprintf("the count is %d bytes, not 8; the table holds %d objects", len(countRaw), objects)
		}
		if fix {
			var err error
			if p.Fixed, err = s.repairTable(ctx, d.count, encodeCount(objects), false, nil, nil, countRaw); err != nil {
				return err
			}
			if p.Fixed && !s.ix.shared {
				s.tb.counts = nil
			}
		}
		report(p)
	}
	return nil
}

// objectEntries returns the entries of ready indexes that the object
// under k, holding v, gives; or a problem if it is damaged.
func (s *Store) objectEntries(d *tableDef, live []*tableIndex, k, v []byte) ([]wanted, *TableProblem) {
	kb := k[len(d.rows):]
	key, err := s.codec.Decode(kb)
	if err != nil {
		return nil, &TableProblem{Kind: BadObject, Table: d.Name, Raw: bytes.Clone(k), Detail: "the key does not decode: " + err.Error()}
	}
	obj, err := d.object(key, v)
	if err == nil {
		if why := d.check(obj); why != "" {
			err = errors.New(why)
		}
	}
	if err != nil {
		return nil, &TableProblem{Kind: BadObject, Table: d.Name, Key: key, Raw: bytes.Clone(k), Detail: err.Error()}
	}
	var out []wanted
	for _, ix := range live {
		vb, err := s.codec.Encode(obj.Elems()[ix.Pos-1])
		if err != nil {
			return nil, &TableProblem{Kind: BadObject, Table: d.Name, Key: key, Raw: bytes.Clone(k), Detail: "its indexed value cannot be encoded: " + err.Error()}
		}
		w := wanted{ix: ix, kb: bytes.Clone(kb)}
		if ix.Unique {
			w.key, w.val = slices.Concat(ix.head, vb), w.kb
		} else {
			w.key = slices.Concat(ix.head, vb, kb)
		}
		out = append(out, w)
	}
	return out, nil
}

// reportBroken reports unique values that two objects hold, and leaves
// the first of them in want (sorted) to be checked.
func (s *Store) reportBroken(d *tableDef, want []wanted, report func(TableProblem)) {
	for j := 1; j < len(want); j++ {
		if bytes.Equal(want[j].key, want[j-1].key) {
			key, _ := s.codec.Decode(want[j].kb)
			report(TableProblem{Kind: UniqueBroken, Table: d.Name, Index: want[j].ix.Attr, Key: key, Raw: bytes.Clone(want[j].key),
				Detail: "another object holds this value of a unique index"})
		}
	}
}

// sortWanted sorts entries by key, and those of one key (a unique value
// that several objects hold) by the object's key, so that Fix always
// writes the same one.
func sortWanted(want []wanted) {
	slices.SortFunc(want, func(a, b wanted) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return bytes.Compare(a.kb, b.kb)
	})
}

// sameEntry returns the index after the entries from i on that have
// want[i]'s key.
func sameEntry(want []wanted, i int) int {
	j := i + 1
	for j < len(want) && bytes.Equal(want[j].key, want[i].key) {
		j++
	}
	return j
}

// tableMissing handles an entry the objects give that is not stored as
// they give it.
func (s *Store) tableMissing(ctx context.Context, d *tableDef, w wanted, fix bool, report func(TableProblem)) error {
	key, _ := s.codec.Decode(w.kb)
	p := TableProblem{Kind: TableMissingEntry, Table: d.Name, Index: w.ix.Attr, Key: key, Raw: bytes.Clone(w.key)}
	if fix {
		// Only while the object is still what gave the entry.
		obj, err := s.kv.Get(ctx, slices.Concat(d.rows, w.kb))
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		cur, _ := s.kv.Get(ctx, w.key)
		if p.Fixed, err = s.repairTable(ctx, w.key, w.val, false, slices.Concat(d.rows, w.kb), obj, cur); err != nil {
			return err
		}
	}
	report(p)
	return nil
}

// tableExtra handles a stored key after the objects that no object
// gives: a stale entry, or a key of no index.
func (s *Store) tableExtra(ctx context.Context, d *tableDef, k, v []byte, fix bool, report func(TableProblem)) error {
	var ix *tableIndex
	for _, x := range d.indexes {
		if bytes.HasPrefix(k, x.head) {
			ix = x
		}
	}
	if ix == nil {
		report(TableProblem{Kind: TableForeign, Table: d.Name, Raw: bytes.Clone(k), Detail: "no index of the table has this key"})
		return nil
	}
	if ix.State != IndexReady {
		return nil // a build or drop in progress: reported as unfinished
	}
	p := TableProblem{Kind: TableStaleEntry, Table: d.Name, Index: ix.Attr, Raw: bytes.Clone(k)}
	if fix {
		var err error
		if p.Fixed, err = s.repairTable(ctx, k, nil, true, nil, nil, v); err != nil {
			return err
		}
	}
	report(p)
	return nil
}

// repairTable sets key to val (deletes it when del), if it still
// holds cur and, when cond is given, cond still holds condVal. Under the
// writers' turn on a backend only this process writes (the caller holds
// it), as conditions of the commit on a shared one. It reports whether
// it wrote.
func (s *Store) repairTable(ctx context.Context, key, val []byte, del bool, cond, condVal []byte, cur ...[]byte) (bool, error) {
	wb := s.kv.NewBatch()
	defer wb.Close()
	if cb, ok := wb.(seam.CondBatch); ok {
		if cond != nil {
			cb.RequireValue(cond, condVal)
		}
		if len(cur) > 0 {
			cb.RequireValue(key, cur[0])
		}
	}
	var err error
	if del {
		err = wb.Delete(key)
	} else {
		err = wb.Set(key, val)
	}
	if err == nil {
		err = wb.Commit(ctx, s.sync)
	}
	if errors.Is(err, ErrPrecondition) {
		return false, nil // changed meanwhile: its writer was right
	}
	return err == nil, err
}

// checkTableGaps reads the tables' prefix outside the catalog and the
// live tables' ranges: keys of no table.
func (s *Store) checkTableGaps(ctx context.Context, c *tableCatalog, r *TableCheckResult, report func(TableProblem)) error {
	span := s.tableSpan()
	type gap struct{ lo, hi []byte }
	cat := s.tableCatalogKey()
	skip := []gap{{cat, append(bytes.Clone(cat), 0)}}
	for _, d := range c.list {
		skip = append(skip, gap{d.base, d.end})
	}
	slices.SortFunc(skip, func(a, b gap) int { return bytes.Compare(a.lo, b.lo) })
	lo := span.lo
	for i := 0; i <= len(skip); i++ {
		hi := span.hi
		if i < len(skip) {
			hi = skip[i].lo
		}
		if bytes.Compare(lo, hi) < 0 {
			it, err := s.openCursor(ctx, lo, hi, false)
			if err != nil {
				return err
			}
			for it.Next() {
				report(TableProblem{Kind: TableForeign, Raw: bytes.Clone(it.Key()), Detail: "a key under the tables' prefix of no table"})
			}
			if err := it.finish(nil); err != nil {
				return err
			}
		}
		if i < len(skip) && bytes.Compare(skip[i].hi, lo) > 0 {
			lo = skip[i].hi
		}
	}
	return nil
}
