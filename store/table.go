package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// Tables of records. A table holds whole objects, tuples such as the
// record {person, Name, Age, Email}, one object a key, the key being the
// element at the table's key position (2, as in mnesia). Everything a
// table keeps lives in the store's reserved range (seam.ReservedByte),
// under the prefix 0x00 'T', which no sext encoding starts with:
//
//	00 54 00                           the definitions (sext, see encodeTableCatalog)
//	00 54 ID 01                        the object count, 8 bytes big-endian
//	00 54 ID 02 ++ sext(Key)           an object: term_to_binary of it with [] at its key position
//	00 54 ID 03 POS ++ sext(V)         a unique index's entry: value sext(Key)
//	00 54 ID 04 POS ++ sext(V) ++ sext(Key)  an index's entry: value empty
//
// ID is the table's number, 4 bytes big-endian, given when it is made
// and never given again (so a table made under the name of one dropped
// shares no key with it); POS a field's position, 2 bytes. An object's
// key is its table's prefix and then sext(Key), so objects sort in key
// order inside their table, and a pattern on the key is a byte range
// there, as on the plain keys of the store. The prefixes are a few bytes
// rather than sext terms, because every object and entry repeats them:
// with {table, <<Name>>, {o, Key}} a million-object load wrote half as
// many bytes again. The value is what mnesia_rocksdb stores, the object
// as term_to_binary writes it with its key replaced by [], so that
// nothing is stored twice and Erlang reads it with binary_to_term.
//
// The count is kept in the same atomic write as the objects. A writer
// must know whether each key it writes was there before, and what index
// values it held, so a table write reads before it writes: one process
// writes a Pebble store, and the store's table writers take turns (a
// mutex held from those reads to the commit, which does not wait for the
// disk), so no two of them count from the same old value; on a backend
// that several processes write (etcd) the commit is conditional on every
// key it read being as read (seam.CondBatch), and is retried when one is
// not.

// Table errors.
var (
	// ErrNoTable: no table has the name asked for, or it is being
	// dropped.
	ErrNoTable = errors.New("store: no such table")
	// ErrTableExists: CreateTable was given a name already in use.
	ErrTableExists = errors.New("store: a table of that name exists")
	// ErrTableDef: a table definition that cannot be (a bad name, key
	// position or attribute), or an index that cannot be made on it.
	ErrTableDef = errors.New("store: bad table definition")
	// ErrObject: an object that does not fit its table: not a tuple, a
	// record of another name or arity, or a key or value that cannot be
	// encoded. Nothing of its batch is written.
	ErrObject = errors.New("store: object does not fit the table")
	// ErrUnique: a write would give a unique index two objects with one
	// value. Nothing of its batch is written.
	ErrUnique = errors.New("store: unique index conflict")
	// ErrTableSpec: a match specification with a clause that can never
	// match an object of the table (a head of another record name or
	// arity, or not a tuple), which is more likely a mistake than a query
	// meant to find nothing.
	ErrTableSpec = errors.New("store: the specification cannot match the table's objects")
)

// TableType is a table's kind. Both kinds hold one object a key and keep
// their objects in key order; they differ only in the name mnesia and ets
// give them. Bags (several objects a key) are not offered: see the
// package's design notes.
type TableType uint8

// The table types.
const (
	OrderedSet TableType = iota // ordered_set: the zero value
	Set                         // set
)

var typeNames = [...]string{"ordered_set", "set"}

func (t TableType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// ParseTableType returns the type named name: "ordered_set" or "set".
// "bag" and anything else are errors wrapping ErrTableDef.
func ParseTableType(name string) (TableType, error) {
	if i := slices.Index(typeNames[:], name); i >= 0 {
		return TableType(i), nil
	}
	if name == "bag" || name == "duplicate_bag" {
		return 0, fmt.Errorf("%w: %s tables are not supported (one object a key)", ErrTableDef, name)
	}
	return 0, fmt.Errorf("%w: unknown table type %q (ordered_set or set)", ErrTableDef, name)
}

// TableDef defines a table.
type TableDef struct {
	// Name names the table: 1 to 200 bytes of UTF-8 without control
	// characters.
	Name string
	// Record is the record's name, the atom every object starts with,
	// as in {person, Name, Age}. Empty means any tuple (long enough to
	// have a key), as in ets.
	Record string
	// Attributes name the fields: for a record those after its name
	// (the key's first, at the default key position), so the objects
	// have 1+len(Attributes) elements; for any tuple, if given, every
	// element, which fixes the arity. Indexes name fields by these.
	Attributes []string
	// KeyPos is the key's position in the tuple, counted from 1; 0
	// means 2 for a record (the first attribute, as in mnesia) and 1 for
	// any tuple (as in ets).
	KeyPos int
	// Type is OrderedSet or Set.
	Type TableType
}

// TableIndex describes an index of a table on one field.
type TableIndex struct {
	Attr   string // the attribute's name, or its position in decimal for an unnamed field
	Pos    int    // the field's position in the tuple, counted from 1
	Unique bool   // at most one object a value
	State  IndexState
}

// TableInfo describes a table.
type TableInfo struct {
	TableDef
	Dropping bool // DropTable began and has not finished; DropTable again finishes it
	Indexes  []TableIndex
	// Count is the number of objects, exact: it is kept in the same
	// atomic write as the objects. Tables leaves it 0; DescribeTable
	// fills it in.
	Count int64
}

// maxTableName bounds a table's name, which every key of the table
// repeats.
const maxTableName = 200

// The tables' part of the reserved range, and the parts of a table.
const (
	tablesByte  = 'T'
	partCount   = 0x01
	partObject  = 0x02
	partUnique  = 0x03
	partEntry   = 0x04
	maxTableID  = 1<<32 - 1
	baseLen     = 6 // every table's prefix, 00 54 ID
	maxPosition = 1<<16 - 1
)

// errBadTableCatalog: the definitions do not decode; table calls then
// fail rather than guess.
var errBadTableCatalog = fmt.Errorf("%w: the table catalog (the key 00 54 00) does not decode", ErrCorrupt)

// tableDef is a definition ready for use: its keys' prefixes computed.
type tableDef struct {
	TableDef
	id       uint32
	dropping bool
	indexes  []*tableIndex
	base     []byte // every key of the table: 00 54 ID
	end      []byte // prefixEnd(base)
	rows     []byte // the objects' prefix: 00 54 ID 02
	rowsEnd  []byte
	count    []byte // the count's key: 00 54 ID 01
}

type tableIndex struct {
	TableIndex
	head []byte // its entries' prefix: 00 54 ID 04 POS, or 03 for a unique one
}

// arity returns the objects' fixed arity, or 0 when it is free.
func (d *tableDef) arity() int {
	switch {
	case d.Record != "":
		return 1 + len(d.Attributes)
	case len(d.Attributes) > 0:
		return len(d.Attributes)
	}
	return 0
}

// attrPos returns the position of the named field: an attribute's name,
// or a position in decimal.
func (d *tableDef) attrPos(attr string) (int, bool) {
	off := 1
	if d.Record != "" {
		off = 2
	}
	if i := slices.Index(d.Attributes, attr); i >= 0 {
		return i + off, true
	}
	n, err := strconv.Atoi(attr)
	if err != nil || n < 1 || d.arity() > 0 && n > d.arity() || d.Record != "" && n == 1 {
		return 0, false
	}
	return n, true
}

// attrName names the field at pos.
func (d *tableDef) attrName(pos int) string {
	off := 1
	if d.Record != "" {
		off = 2
	}
	if i := pos - off; i >= 0 && i < len(d.Attributes) {
		return d.Attributes[i]
	}
	return strconv.Itoa(pos)
}

func (d *tableDef) index(pos int) *tableIndex {
	for _, ix := range d.indexes {
		if ix.Pos == pos {
			return ix
		}
	}
	return nil
}

func (d *tableDef) info() TableInfo {
	in := TableInfo{TableDef: d.TableDef, Dropping: d.dropping}
	in.Attributes = slices.Clone(d.Attributes)
	for _, ix := range d.indexes {
		in.Indexes = append(in.Indexes, ix.TableIndex)
	}
	return in
}

// tableCatalog is the definitions as one version of the catalog key
// holds them.
type tableCatalog struct {
	raw    []byte // the catalog key's value; nil when there is none
	gen    int64
	nextID uint32 // the number the next table gets
	list   []*tableDef
}

func (c *tableCatalog) find(name string) *tableDef {
	for _, d := range c.list {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// live returns the table name, unless it is missing or being dropped.
func (c *tableCatalog) live(name string) (*tableDef, error) {
	d := c.find(name)
	if d == nil || d.dropping {
		return nil, fmt.Errorf("%w: %q", ErrNoTable, name)
	}
	return d, nil
}

// tables is the Store's part for tables. mu makes the store's table
// writers, definition changes and index build steps take turns; cat
// caches the definitions (loaded and replaced only under mu, so a reader
// that loads them outside it cannot put back an older version), counts
// the objects counts of a backend only this process writes.
type tables struct {
	mu     sync.Mutex
	cat    atomic.Pointer[tableCatalog]
	counts map[string]int64 // under mu; nil or missing: read from the store
	writer *tableWriter     // under mu: the last batch's, kept for its buffers

	// spareOps is a closed batch's list of operations, for the next
	// NewTableBatch to take.
	spareOps atomic.Pointer[[]tableOp]
}

func (s *Store) tableCatalogKey() []byte { return []byte{seam.ReservedByte, tablesByte, 0} }

// tableSpan is the part of the reserved range that tables use: the
// index checker (CheckIndexes) leaves it to CheckTables.
func (s *Store) tableSpan() struct{ lo, hi []byte } {
	return struct{ lo, hi []byte }{[]byte{seam.ReservedByte, tablesByte}, []byte{seam.ReservedByte, tablesByte + 1}}
}

// checkDef checks a definition and fills in its defaults.
func checkDef(def TableDef) (TableDef, error) {
	bad := func(format string, a ...any) (TableDef, error) {
		return def, fmt.Errorf("%w: table %q: %s", ErrTableDef, def.Name, fmt.Sprintf(format, a...))
	}
	if err := checkName("a table's name", def.Name); err != nil {
		return bad("%v", err)
	}
	if def.Record != "" {
		if err := checkName("a record's name", def.Record); err != nil {
			return bad("%v", err)
		}
		if len(def.Attributes) == 0 {
			return bad("a record needs at least one attribute, its key")
		}
	}
	if len(def.Attributes) >= maxPosition {
		return bad("%d attributes: at most %d", len(def.Attributes), maxPosition-1)
	}
	seen := map[string]bool{}
	for _, a := range def.Attributes {
		if err := checkName("an attribute's name", a); err != nil {
			return bad("%v", err)
		}
		if _, err := strconv.Atoi(a); err == nil {
			return bad("attribute %q: a number names a position", a)
		}
		if seen[a] {
			return bad("attribute %q appears twice", a)
		}
		seen[a] = true
	}
	if def.KeyPos == 0 {
		def.KeyPos = 1
		if def.Record != "" {
			def.KeyPos = 2
		}
	}
	d := tableDef{TableDef: def}
	switch n := d.arity(); {
	case def.KeyPos < 1:
		return bad("key position %d: positions count from 1", def.KeyPos)
	case def.Record != "" && def.KeyPos == 1:
		return bad("key position 1 is the record's name")
	case n > 0 && def.KeyPos > n:
		return bad("key position %d is past the %d elements of an object", def.KeyPos, n)
	case def.KeyPos > maxPosition:
		return bad("key position %d: at most %d", def.KeyPos, maxPosition)
	}
	if int(def.Type) >= len(typeNames) {
		return bad("unknown type %d", def.Type)
	}
	def.Attributes = slices.Clone(def.Attributes)
	return def, nil
}

// checkName checks a name of 1 to 200 bytes of UTF-8 without control
// characters, which every layer can print.
func checkName(what, name string) error {
	if name == "" || len(name) > maxTableName {
		return fmt.Errorf("%s must have 1 to %d bytes", what, maxTableName)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("%s must be UTF-8", what)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7F {
			return fmt.Errorf("%s must not hold control characters", what)
		}
	}
	return nil
}

// prepare computes a definition's key prefixes.
func (s *Store) prepare(def TableDef, id uint32, dropping bool, idx []TableIndex) (*tableDef, error) {
	d := &tableDef{TableDef: def, id: id, dropping: dropping}
	d.base = binary.BigEndian.AppendUint32([]byte{seam.ReservedByte, tablesByte}, id)
	d.end = prefixEnd(d.base)
	d.rows = append(bytes.Clone(d.base), partObject)
	d.rowsEnd = prefixEnd(d.rows)
	d.count = append(bytes.Clone(d.base), partCount)
	for _, ti := range idx {
		if ti.Pos < 1 || ti.Pos > maxPosition {
			return nil, fmt.Errorf("an index at position %d", ti.Pos)
		}
		ix := &tableIndex{TableIndex: ti}
		ix.Attr = d.attrName(ti.Pos)
		part := byte(partEntry)
		if ti.Unique {
			part = partUnique
		}
		ix.head = binary.BigEndian.AppendUint16(append(bytes.Clone(d.base), part), uint16(ti.Pos))
		d.indexes = append(d.indexes, ix)
	}
	return d, nil
}

// The catalog's value, sext-encoded: {Gen, NextID, [Table]}, Table being
//
//	{<<Name>>, ID, <<Record>>, [<<Attr>>], KeyPos, Type, State, [{Pos, Unique, IndexState}]}
//
// with the record's name <<>> for any tuple, Type ordered_set or set,
// State ready or dropping.
var (
	atomReady    = term.Atom("ready")
	atomDropping = term.Atom("dropping")
)

func (s *Store) encodeTableCatalog(gen int64, nextID uint32, list []*tableDef) ([]byte, error) {
	defs := make([]term.Term, len(list))
	for i, d := range list {
		attrs := make([]term.Term, len(d.Attributes))
		for j, a := range d.Attributes {
			attrs[j] = term.Binary([]byte(a))
		}
		ixs := make([]term.Term, len(d.indexes))
		for j, ix := range d.indexes {
			ixs[j] = term.Tuple(term.Int(int64(ix.Pos)), term.Bool(ix.Unique), stateAtoms[ix.State])
		}
		st := atomReady
		if d.dropping {
			st = atomDropping
		}
		defs[i] = term.Tuple(term.Binary([]byte(d.Name)), term.Int(int64(d.id)), term.Binary([]byte(d.Record)), term.List(attrs...),
			term.Int(int64(d.KeyPos)), term.Atom(d.Type.String()), st, term.List(ixs...))
	}
	return s.codec.Encode(term.Tuple(term.Int(gen), term.Int(int64(nextID)), term.List(defs...)))
}

func (s *Store) decodeTableCatalog(raw []byte) (*tableCatalog, error) {
	t, err := s.codec.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadTableCatalog, err)
	}
	bad := func(what string) error { return fmt.Errorf("%w: %s in %v", errBadTableCatalog, what, t) }
	isID := func(x term.Term) bool { return x.IsInt64() && x.Int64() >= 1 && x.Int64() <= maxTableID }
	if t.Kind() != term.KindTuple || t.Len() != 3 || !t.Elems()[0].IsInt64() || !isID(t.Elems()[1]) || !t.Elems()[2].IsProper() {
		return nil, bad("not {Gen, NextID, [Table]}")
	}
	c := &tableCatalog{raw: raw, gen: t.Elems()[0].Int64(), nextID: uint32(t.Elems()[1].Int64())}
	for _, e := range t.Elems()[2].Elems() {
		if e.Kind() != term.KindTuple || e.Len() != 8 {
			return nil, bad("a table not {Name, ID, Record, Attributes, KeyPos, Type, State, Indexes}")
		}
		id := e.Elems()[1]
		el := slices.Delete(slices.Clone(e.Elems()), 1, 2)
		if el[0].Kind() != term.KindBinary || !isID(id) || el[1].Kind() != term.KindBinary ||
			!el[2].IsProper() || !el[3].IsInt64() || el[4].Kind() != term.KindAtom || el[5].Kind() != term.KindAtom || !el[6].IsProper() {
			return nil, bad("a table not {Name, ID, Record, Attributes, KeyPos, Type, State, Indexes}")
		}
		def := TableDef{Name: string(el[0].Bytes()), Record: string(el[1].Bytes()), KeyPos: int(el[3].Int64())}
		for _, a := range el[2].Elems() {
			if a.Kind() != term.KindBinary {
				return nil, bad("an attribute not a binary")
			}
			def.Attributes = append(def.Attributes, string(a.Bytes()))
		}
		typ, err := ParseTableType(el[4].Atom())
		if err != nil {
			return nil, bad(err.Error())
		}
		def.Type = typ
		if def, err = checkDef(def); err != nil {
			return nil, bad(err.Error())
		}
		var idx []TableIndex
		for _, x := range el[6].Elems() {
			xe := x.Elems()
			if x.Kind() != term.KindTuple || len(xe) != 3 || !xe[0].IsInt64() || xe[1].Kind() != term.KindAtom {
				return nil, bad("an index not {Pos, Unique, State}")
			}
			st := slices.IndexFunc(stateAtoms[:], func(a term.Term) bool { return term.Equal(a, xe[2]) })
			if st < 0 {
				return nil, bad("an index's state")
			}
			idx = append(idx, TableIndex{Pos: int(xe[0].Int64()), Unique: xe[1].Atom() == "true", State: IndexState(st)})
		}
		d, err := s.prepare(def, uint32(id.Int64()), term.Equal(el[5], atomDropping), idx)
		if err != nil {
			return nil, bad(err.Error())
		}
		c.list = append(c.list, d)
	}
	return c, nil
}

// readTableCatalog reads the definitions from the backend.
func (s *Store) readTableCatalog(ctx context.Context) (*tableCatalog, error) {
	raw, err := s.kv.Get(ctx, s.tableCatalogKey())
	if errors.Is(err, ErrNotFound) {
		return &tableCatalog{nextID: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	return s.decodeTableCatalog(raw)
}

// tablesLocked returns the definitions a writer uses, with s.tb.mu held:
// the cache, loaded if need be.
func (s *Store) tablesLocked(ctx context.Context) (*tableCatalog, error) {
	if c := s.tb.cat.Load(); c != nil {
		return c, nil
	}
	c, err := s.readTableCatalog(ctx)
	if err != nil {
		return nil, err
	}
	s.tb.cat.Store(c)
	return c, nil
}

// currentTables returns the definitions for a reader: the cache, or on
// a shared backend a fresh read, since another process may have changed
// them.
func (s *Store) currentTables(ctx context.Context) (*tableCatalog, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if s.ix.shared {
		return s.readTableCatalog(ctx)
	}
	if c := s.tb.cat.Load(); c != nil {
		return c, nil
	}
	s.tb.mu.Lock()
	defer s.tb.mu.Unlock()
	return s.tablesLocked(ctx)
}

// forgetTables drops what the table writers cache: after a failed or
// refused commit, the store is read again.
func (s *Store) forgetTables() {
	s.tb.cat.Store(nil)
	s.tb.counts = nil
}

// changeTables applies f to fresh definitions and writes the result,
// conditional on them not having changed since they were read. It holds
// s.tb.mu, so the store's table writers wait for it.
func (s *Store) changeTables(ctx context.Context, f func(c *tableCatalog) ([]*tableDef, error)) (*tableCatalog, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	s.tb.mu.Lock()
	defer s.tb.mu.Unlock()
	for attempt := 0; ; attempt++ {
		old, err := s.readTableCatalog(ctx)
		if err != nil {
			return nil, err
		}
		list, err := f(old)
		if err != nil {
			s.tb.cat.Store(old)
			return nil, err
		}
		next := old.nextID
		for _, d := range list {
			if d.id >= next {
				next = d.id + 1 // a table made by f
			}
		}
		if next == 0 || next > maxTableID {
			return nil, fmt.Errorf("%w: every table number has been used", ErrTableDef)
		}
		raw, err := s.encodeTableCatalog(old.gen+1, next, list)
		if err != nil {
			return nil, err
		}
		wb := s.kv.NewBatch()
		if cb, ok := wb.(seam.CondBatch); ok {
			cb.RequireValue(s.tableCatalogKey(), old.raw)
		}
		err = wb.Set(s.tableCatalogKey(), raw)
		if err == nil {
			err = wb.Commit(ctx, true)
		}
		wb.Close()
		if err == nil {
			c := &tableCatalog{raw: raw, gen: old.gen + 1, nextID: next, list: list}
			s.tb.cat.Store(c)
			s.tb.counts = nil // a table dropped and made again starts from its key
			return c, nil
		}
		s.forgetTables()
		if !errors.Is(err, ErrPrecondition) || attempt >= maxCatalogRetries {
			return nil, err
		}
	}
}

// replaceDef returns c's list with d in place of the table of d's name
// (added when there is none), or without it when d is nil and name is
// given.
func replaceDef(c *tableCatalog, name string, d *tableDef) []*tableDef {
	var out []*tableDef
	done := false
	for _, x := range c.list {
		if x.Name != name {
			out = append(out, x)
		} else if d != nil {
			out, done = append(out, d), true
		}
	}
	if d != nil && !done {
		out = append(out, d)
	}
	return out
}

// withIndexes returns a copy of d with the given indexes.
func (s *Store) withIndexes(d *tableDef, dropping bool, idx []TableIndex) (*tableDef, error) {
	return s.prepare(d.TableDef, d.id, dropping, idx)
}

func indexList(d *tableDef) []TableIndex {
	out := make([]TableIndex, len(d.indexes))
	for i, ix := range d.indexes {
		out[i] = ix.TableIndex
	}
	return out
}

// CreateTable defines a table. The definition is stored in the store,
// so every process that opens it sees the table. A name in use, even by
// a table being dropped, is an error wrapping ErrTableExists; a bad
// definition one wrapping ErrTableDef.
func (s *Store) CreateTable(ctx context.Context, def TableDef) error {
	def, err := checkDef(def)
	if err != nil {
		return err
	}
	_, err = s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		if old := c.find(def.Name); old != nil {
			if old.dropping {
				return nil, fmt.Errorf("%w: %q is being dropped (DropTable finishes it)", ErrTableExists, def.Name)
			}
			return nil, fmt.Errorf("%w: %q", ErrTableExists, def.Name)
		}
		if c.nextID == 0 || c.nextID > maxTableID {
			return nil, fmt.Errorf("%w: every table number has been used", ErrTableDef)
		}
		d, err := s.prepare(def, c.nextID, false, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTableDef, err)
		}
		return append(slices.Clone(c.list), d), nil
	})
	return err
}

// Tables lists the tables, in the order they were created, without
// their counts (DescribeTable reads one).
func (s *Store) Tables(ctx context.Context) ([]TableInfo, error) {
	c, err := s.currentTables(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]TableInfo, len(c.list))
	for i, d := range c.list {
		out[i] = d.info()
	}
	return out, nil
}

// DescribeTable returns a table's definition, its indexes and its exact
// object count, in time that does not grow with the table: the count is
// one key, kept with the objects. A table being dropped is described
// too, with Dropping set.
func (s *Store) DescribeTable(ctx context.Context, name string) (TableInfo, error) {
	c, err := s.currentTables(ctx)
	if err != nil {
		return TableInfo{}, err
	}
	d := c.find(name)
	if d == nil {
		return TableInfo{}, fmt.Errorf("%w: %q", ErrNoTable, name)
	}
	in := d.info()
	if !d.dropping {
		if in.Count, _, err = s.readCount(ctx, d); err != nil {
			return TableInfo{}, err
		}
	}
	return in, nil
}

// TableCount returns the number of objects in a table, exactly, from
// the one key that holds it.
func (s *Store) TableCount(ctx context.Context, name string) (int64, error) {
	c, err := s.currentTables(ctx)
	if err != nil {
		return 0, err
	}
	d, err := c.live(name)
	if err != nil {
		return 0, err
	}
	n, _, err := s.readCount(ctx, d)
	return n, err
}

// readCount reads a table's count and the bytes it is stored as (nil
// when the key is absent, for an empty table).
func (s *Store) readCount(ctx context.Context, d *tableDef) (int64, []byte, error) {
	raw, err := s.kv.Get(ctx, d.count)
	if errors.Is(err, ErrNotFound) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	n, ok := decodeCount(raw)
	if !ok {
		return 0, nil, fmt.Errorf("%w: table %q: its count is %d bytes, not 8", ErrCorrupt, d.Name, len(raw))
	}
	return n, raw, nil
}

func encodeCount(n int64) []byte {
	var b [8]byte
	for i := range b {
		b[i] = byte(uint64(n) >> (56 - 8*i))
	}
	return b[:]
}

func decodeCount(b []byte) (int64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return int64(n), true
}

// DropTable removes a table: its objects, its indexes, its count and
// its definition. It first marks the table dropping (writers then refuse
// it, as if it were gone), deletes its keys in steps of opts.Step, each
// one atomic write, and then the definition. A drop that stops midway
// (a kill) leaves the table dropping; DropTable again, or CheckTables
// with Fix, finishes it.
func (s *Store) DropTable(ctx context.Context, name string, opts *BuildOptions) error {
	c, err := s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		d := c.find(name)
		if d == nil {
			return nil, fmt.Errorf("%w: %q", ErrNoTable, name)
		}
		if d.dropping {
			return c.list, nil
		}
		nd, err := s.withIndexes(d, true, indexList(d))
		if err != nil {
			return nil, err
		}
		return replaceDef(c, name, nd), nil
	})
	if err != nil {
		return err
	}
	d := c.find(name)
	if err := s.deleteSpan(ctx, d.base, d.end, opts); err != nil {
		return fmt.Errorf("store: dropping table %s: %w", name, err)
	}
	_, err = s.changeTables(ctx, func(c *tableCatalog) ([]*tableDef, error) {
		if cur := c.find(name); cur == nil || !cur.dropping {
			return c.list, nil // finished by another caller
		}
		return replaceDef(c, name, nil), nil
	})
	return err
}

// deleteSpan deletes every key in [lo, hi), in steps of opts.Step keys,
// each one atomic write. Nothing writes there meanwhile: the callers have
// made the span's owner refuse writers first.
func (s *Store) deleteSpan(ctx context.Context, lo, hi []byte, opts *BuildOptions) error {
	step := opts.step(s.ix.shared)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		it, err := s.openCursor(ctx, lo, hi, false)
		if err != nil {
			return err
		}
		wb := s.kv.NewBatch()
		n := 0
		var last []byte
		for n < step && it.Next() {
			last = append(last[:0], it.Key()...)
			if err = wb.Delete(last); err != nil {
				break
			}
			n++
		}
		if err = it.finish(err); err == nil && n > 0 {
			err = wb.Commit(ctx, false)
		}
		wb.Close()
		if err != nil {
			return err
		}
		done += int64(n)
		opts.progress(done)
		if n < step {
			return s.Sync(ctx)
		}
		lo = append(bytes.Clone(last), 0)
	}
}
