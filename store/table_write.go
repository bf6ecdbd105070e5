package store

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// ObjectError reports an object that does not fit its table, or a key
// that cannot be one. It wraps ErrObject, and the encoder's error when
// there is one.
type ObjectError struct {
	Table  string
	Write  int       // the write's place in its batch, from 0
	Object term.Term // the object, or the key of a delete or read
	Detail string
	Err    error // the encoder's error, if that was the cause
}

// Error returns "store: object does not fit the table: table T, write N: DETAIL".
func (e *ObjectError) Error() string {
	msg := fmt.Sprintf("%v: table %q, write %d: %s", ErrObject, e.Table, e.Write, e.Detail)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrObject and the cause.
func (e *ObjectError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrObject}
	}
	return []error{ErrObject, e.Err}
}

// UniqueError reports a write that a unique index refused: Key already
// holds Value in the field, and Other, another key, would too.
type UniqueError struct {
	Table, Attr string
	Value       term.Term
	Key, Other  term.Term
}

// Error returns "store: unique index conflict: table T, index A: ...".
func (e *UniqueError) Error() string {
	return fmt.Sprintf("%v: table %q, index %s: %v holds %v already; %v cannot", ErrUnique, e.Table, e.Attr, e.Key, e.Value, e.Other)
}

// Unwrap returns ErrUnique.
func (e *UniqueError) Unwrap() error { return ErrUnique }

// TableBatch collects writes and deletes of whole objects, in any
// tables, that ApplyTableBatch commits atomically together with their
// index entries and the tables' counts. Objects are checked against their
// tables when the batch is applied: one that does not fit fails the
// whole batch with an *ObjectError, and nothing is written.
//
// The batch keeps the terms it is given; they must not change until it
// is applied.
type TableBatch struct {
	s    *Store
	ops  []tableOp
	done bool
}

type tableOp struct {
	table string
	obj   term.Term // the object, or the key of a delete
	del   bool
}

// NewTableBatch returns an empty batch of table writes.
func (s *Store) NewTableBatch() *TableBatch {
	b := &TableBatch{s: s}
	if ops := s.tb.spareOps.Swap(nil); ops != nil {
		b.ops = *ops
	}
	return b
}

// Write records that the object will be stored in table, replacing the
// object with the same key if there is one.
func (b *TableBatch) Write(table string, obj term.Term) error {
	if b.done {
		return ErrBatchClosed
	}
	b.ops = append(b.ops, tableOp{table: table, obj: obj})
	return nil
}

// Delete records that the object with key will be removed from table.
// Deleting a key that is not there is not an error.
func (b *TableBatch) Delete(table string, key term.Term) error {
	if b.done {
		return ErrBatchClosed
	}
	b.ops = append(b.ops, tableOp{table: table, obj: key, del: true})
	return nil
}

// Len returns the number of writes and deletes recorded.
func (b *TableBatch) Len() int { return len(b.ops) }

// Close discards the batch if it has not been applied.
func (b *TableBatch) Close() error {
	b.done = true
	if b.s != nil && b.ops != nil && cap(b.ops) <= keepOps {
		// The next batch takes the list over, its terms dropped: a
		// loader's batches grow one list, not one each.
		clear(b.ops)
		ops := b.ops[:0]
		b.s.tb.spareOps.Store(&ops)
	}
	b.ops = nil
	return nil
}

// ApplyTableBatch commits every write and delete of b atomically, with
// the index entries they change and the new counts of their tables, and
// then releases b. With the store's default options it returns once they
// are durable. An object that does not fit its table (*ObjectError), a
// unique index refusing a value (*UniqueError) or a table that does not
// exist (ErrNoTable) fails the whole batch, and nothing is written.
func (s *Store) ApplyTableBatch(ctx context.Context, b *TableBatch) error {
	if b.done {
		return ErrBatchClosed
	}
	if b.s != s {
		return errors.New("store: batch belongs to another store")
	}
	defer b.Close()
	if s.closed.Load() {
		return ErrClosed
	}
	if len(b.ops) == 0 {
		return nil
	}
	for attempt := 0; ; attempt++ {
		err := s.applyTables(ctx, b.ops)
		if !errors.Is(err, ErrPrecondition) || attempt >= maxCatalogRetries {
			return err
		}
		// Another process wrote a key this batch read: read again.
	}
}

// WriteObject stores obj in table, as a batch of one write.
func (s *Store) WriteObject(ctx context.Context, table string, obj term.Term) error {
	b := s.NewTableBatch()
	b.Write(table, obj)
	return s.ApplyTableBatch(ctx, b)
}

// DeleteObject removes the object with key from table, as a batch of one
// delete.
func (s *Store) DeleteObject(ctx context.Context, table string, key term.Term) error {
	b := s.NewTableBatch()
	b.Delete(table, key)
	return s.ApplyTableBatch(ctx, b)
}

// ReadObject returns the object with key in table, or an error wrapping
// ErrNotFound.
func (s *Store) ReadObject(ctx context.Context, table string, key term.Term) (term.Term, error) {
	c, err := s.currentTables(ctx)
	if err != nil {
		return term.Term{}, err
	}
	d, err := c.live(table)
	if err != nil {
		return term.Term{}, err
	}
	kb, err := s.codec.Encode(key)
	if err != nil {
		return term.Term{}, &ObjectError{Table: table, Object: key, Detail: "the key cannot be encoded", Err: err}
	}
	v, err := s.kv.Get(ctx, slices.Concat(d.rows, kb))
	if errors.Is(err, ErrNotFound) {
		return term.Term{}, fmt.Errorf("%w: table %q, key %v", ErrNotFound, table, key)
	}
	if err != nil {
		return term.Term{}, err
	}
	return d.object(key, v)
}

// object puts a stored value and its key together again.
func (d *tableDef) object(key term.Term, v []byte) (term.Term, error) {
	t, err := etf.Decode(v)
	if err != nil {
		return term.Term{}, fmt.Errorf("%w: table %q, key %v: the object does not decode: %w", ErrCorrupt, d.Name, key, err)
	}
	if t.Kind() != term.KindTuple || t.Len() < d.KeyPos {
		return term.Term{}, fmt.Errorf("%w: table %q, key %v: the object %v is no tuple with a key position %d", ErrCorrupt, d.Name, key, t, d.KeyPos)
	}
	el := slices.Clone(t.Elems())
	el[d.KeyPos-1] = key
	return term.Tuple(el...), nil
}

// check checks obj's shape against d; the detail says what is wrong.
func (d *tableDef) check(obj term.Term) string {
	if obj.Kind() != term.KindTuple {
		return fmt.Sprintf("%v is not a tuple", obj)
	}
	n := d.arity()
	switch {
	case n > 0 && obj.Len() != n && d.Record != "":
		return fmt.Sprintf("%v has %d elements; a %s record has %d", obj, obj.Len(), d.Record, n)
	case n > 0 && obj.Len() != n:
		return fmt.Sprintf("%v has %d elements; the table's objects have %d", obj, obj.Len(), n)
	case obj.Len() < d.KeyPos:
		return fmt.Sprintf("%v has %d elements, none at the key position %d", obj, obj.Len(), d.KeyPos)
	case d.Record != "" && !term.Equal(obj.Elems()[0], term.Atom(d.Record)):
		return fmt.Sprintf("%v is not a %s record", obj, d.Record)
	}
	return ""
}

// storedValue returns what is stored for obj: term_to_binary of it with
// [] at its key position.
func (d *tableDef) storedValue(obj term.Term) ([]byte, error) {
	return d.appendStored(nil, nil, obj)
}

// appendStored appends storedValue(obj) to dst, using scratch (which it
// returns, grown) for the tuple it encodes: the object's elements are
// not copied for each write.
func (d *tableDef) appendStored(dst []byte, scratch *[]term.Term, obj term.Term) ([]byte, error) {
	var el []term.Term
	if scratch != nil {
		el = append((*scratch)[:0], obj.Elems()...)
		*scratch = el
	} else {
		el = slices.Clone(obj.Elems())
	}
	el[d.KeyPos-1] = term.List()
	return etf.Options{}.Append(dst, term.Tuple(el...))
}

// slot is a key as a batch sees it: its value before the batch (orig,
// for the conditions of a shared backend), and what the batch has made
// of it so far.
type slot struct {
	orig, now []byte
	present   bool // now is there
}

// tableWriter turns a batch's operations into one atomic write.
type tableWriter struct {
	s       *Store
	ctx     context.Context
	cat     *tableCatalog
	wb      WriteBatch
	pre     []keyed          // keys prefetched, ascending
	next    int              // the place in pre after the last key looked up
	slots   map[string]*slot // keys read one at a time
	order   []string         // slots' keys in the order read, for the conditions
	delta   map[*tableDef]int64
	tables  []*tableDef // those with a delta, in the order met
	rows    []pending   // writes of objects
	writes  []pending   // other writes
	nwrites int
	arena   []byte      // the batch's keys and values, carved from chunks
	scratch []term.Term // an object's elements, for its stored value

	// Kept from batch to batch (see keepWriter): the chunks the arena
	// was carved from, the next to reuse, and the operations' buffers.
	chunks [][]byte
	chunk  int
	ps     []prepared
	keys   [][]byte
	recs   []keyRec
	places []int32
}

// The most a kept writer holds on to: a batch larger than that leaves
// its buffers to the collector, rather than keep a large one's memory
// for good.
const (
	keepChunks = 64      // 4 MB of keys and values
	keepOps    = 1 << 15 // operations
)

// takeWriter returns the writer the last batch left, or a new one, set
// up for a batch of n operations. The caller holds s.tb.mu.
func (s *Store) takeWriter(ctx context.Context, cat *tableCatalog, wb WriteBatch, n int) *tableWriter {
	w := s.tb.writer
	s.tb.writer = nil
	if w == nil {
		w = &tableWriter{slots: map[string]*slot{}, delta: map[*tableDef]int64{}}
	}
	w.s, w.ctx, w.cat, w.wb = s, ctx, cat, wb
	w.rows, w.writes = slices.Grow(w.rows, n), slices.Grow(w.writes, n)
	w.ps = slices.Grow(w.ps, n)[:n]
	w.keys = slices.Grow(w.keys, n)[:n]
	return w
}

// keepWriter forgets what w's batch wrote, dropping every reference to
// its keys, values and objects, and keeps w for the next batch, unless
// it grew too large to keep: a loader's batches then allocate and
// collect the same buffers once, not once a batch. The caller holds
// s.tb.mu.
func (s *Store) keepWriter(w *tableWriter) {
	if len(w.chunks) > keepChunks || cap(w.ps) > keepOps || cap(w.writes) > 2*keepOps {
		return
	}
	clear(w.pre)
	clear(w.rows)
	clear(w.writes)
	clear(w.ps)
	clear(w.keys)
	clear(w.scratch)
	clear(w.tables)
	clear(w.order)
	clear(w.slots)
	clear(w.delta)
	*w = tableWriter{
		pre: w.pre[:0], slots: w.slots, order: w.order[:0], delta: w.delta, tables: w.tables[:0],
		rows: w.rows[:0], writes: w.writes[:0], scratch: w.scratch[:0],
		chunks: w.chunks, ps: w.ps[:0], keys: w.keys[:0], recs: w.recs[:0], places: w.places[:0],
	}
	s.tb.writer = w
}

// arenaChunk is the size of the chunks a batch's keys and values are
// carved from: one allocation for many small ones.
const arenaChunk = 64 << 10

// room returns an empty slice with at least n bytes of capacity, at the
// end of the arena's chunk, for an encoder to append to; took keeps what
// it appended.
func (w *tableWriter) room(n int) []byte {
	if cap(w.arena)-len(w.arena) < n {
		switch {
		case n > arenaChunk:
			w.arena = make([]byte, 0, n)
		case w.chunk < len(w.chunks):
			w.arena = w.chunks[w.chunk][:0]
			w.chunk++
		default:
			w.arena = make([]byte, 0, arenaChunk)
			w.chunks = append(w.chunks, w.arena)
			w.chunk++
		}
	}
	return w.arena[len(w.arena):]
}

// took returns out, appended to room's dst, as a slice no later append
// can overwrite, and moves the arena past it. An encoder that outgrew
// dst left its bytes in a new array of their own, and the arena as it
// was.
func (w *tableWriter) took(dst, out []byte) []byte {
	if cap(out) == cap(dst) { // appended in place
		w.arena = w.arena[:len(w.arena)+len(out)]
	}
	return out[:len(out):len(out)]
}

// concat returns the parts joined, in the arena.
func (w *tableWriter) concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst := w.room(n)
	out := dst
	for _, p := range parts {
		out = append(out, p...)
	}
	return w.took(dst, out)
}

// encode returns t's sext encoding, in the arena.
func (w *tableWriter) encode(t term.Term) ([]byte, error) {
	dst := w.room(64)
	out, err := w.s.codec.Append(dst, t)
	if err != nil {
		return nil, err
	}
	return w.took(dst, out), nil
}

// keyed is a prefetched key and its slot.
type keyed struct {
	key []byte
	sl  slot
}

// lookup returns the slot of key if it was read.
func (w *tableWriter) lookup(key []byte) *slot {
	// A batch in key order asks for the prefetched keys in order.
	if w.next < len(w.pre) && bytes.Equal(w.pre[w.next].key, key) {
		w.next++
		return &w.pre[w.next-1].sl
	}
	if i, ok := slices.BinarySearchFunc(w.pre, key, func(k keyed, key []byte) int { return bytes.Compare(k.key, key) }); ok {
		w.next = i + 1
		return &w.pre[i].sl
	}
	return w.slots[string(key)]
}

// read returns the slot of key, reading it once.
func (w *tableWriter) read(key []byte) (*slot, error) {
	if sl := w.lookup(key); sl != nil {
		return sl, nil
	}
	v, err := w.s.kv.Get(w.ctx, key)
	sl := &slot{}
	switch {
	case err == nil:
		sl.orig, sl.now, sl.present = v, v, true
	case !errors.Is(err, ErrNotFound):
		return nil, err
	}
	w.slots[string(key)] = sl
	w.order = append(w.order, string(key))
	return sl, nil
}

// set writes value to key, whose slot is sl if the batch read it; a key
// it never reads (a non-unique index entry) has none.
func (w *tableWriter) set(sl *slot, key, value []byte) {
	if sl != nil {
		sl.now, sl.present = value, true
	}
	w.add(pending{key: key, value: value})
}

// del deletes key, whose slot is sl as for set.
func (w *tableWriter) del(sl *slot, key []byte) {
	if sl != nil {
		sl.now, sl.present = nil, false
	}
	w.add(pending{key: key, del: true})
}

// pending is a write the batch will make, the seq-th.
type pending struct {
	key, value []byte
	seq        int
	del        bool
}

// add records a write: an object's in rows, where a batch of objects in
// key order stays in order, any other in writes.
func (w *tableWriter) add(p pending) {
	p.seq = w.nwrites
	w.nwrites++
	if len(p.key) > baseLen && p.key[baseLen] == partObject {
		w.rows = append(w.rows, p)
	} else {
		w.writes = append(w.writes, p)
	}
}

// flush puts the writes into the backend's batch in key order, the
// writes to one key in the order made (the last wins): an engine's
// memory table takes keys in order more cheaply (Pebble's by half, for
// a load with an index), and index entries come in the order of their
// values, not their keys. Objects and the rest are sorted apart, the
// objects often not at all: a key is always in the same one.
func (w *tableWriter) flush() error {
	for _, list := range [][]pending{w.rows, w.writes} {
		order := w.keyOrder(list)
		for k := range list {
			p := &list[k]
			if order != nil {
				p = &list[order[k]]
			}
			var err error
			if p.del {
				err = w.wb.Delete(p.key)
			} else {
				err = w.wb.Set(p.key, p.value)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// keyOrder returns the places of list's writes (made in the order of
// the list) in key order, the writes to one key in the order made, or
// nil when the list is in that order already. It sorts small records
// of a place and the first 8 bytes of its key past the prefix all keys
// share, rather than the writes: the comparisons are of integers but
// for ties, and the swaps move no pointers, which the garbage collector
// would have to be told of.
func (w *tableWriter) keyOrder(list []pending) []int32 {
	if slices.IsSortedFunc(list, func(a, b pending) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.seq - b.seq
	}) {
		return nil
	}
	lcp := len(list[0].key)
	for i := 1; i < len(list) && lcp > 0; i++ {
		k := list[i].key
		n := min(lcp, len(k))
		j := 0
		for j < n && k[j] == list[0].key[j] {
			j++
		}
		lcp = j
	}
	recs := w.recs[:0]
	for i := range list {
		var a [8]byte
		copy(a[:], list[i].key[lcp:])
		recs = append(recs, keyRec{binary.BigEndian.Uint64(a[:]), int32(i)})
	}
	w.recs = recs
	slices.SortFunc(recs, func(a, b keyRec) int {
		if a.abbr != b.abbr {
			return cmp.Compare(a.abbr, b.abbr)
		}
		if c := bytes.Compare(list[a.place].key[lcp:], list[b.place].key[lcp:]); c != 0 {
			return c
		}
		return cmp.Compare(a.place, b.place)
	})
	places := w.places[:0]
	for _, r := range recs {
		places = append(places, r.place)
	}
	w.places = places
	return places
}

// keyRec is a write's place in its list and the first bytes of its key
// that tell it from the others, for keyOrder.
type keyRec struct {
	abbr  uint64
	place int32
}

// applyTables makes and commits the batch's write. It holds s.tb.mu from
// its first read to its commit, which does not wait for the disk; the
// sync, for a store that syncs, comes after, outside it, so that
// concurrent writers share one sync of the log.
func (s *Store) applyTables(ctx context.Context, ops []tableOp) error {
	s.tb.mu.Lock()
	locked := true
	defer func() {
		if locked {
			s.tb.mu.Unlock()
		}
	}()
	cat, err := s.tablesLocked(ctx)
	if err != nil {
		return err
	}
	wb := s.kv.NewBatch()
	defer wb.Close()
	w := s.takeWriter(ctx, cat, wb, len(ops))
	defer func() {
		if locked { // not kept yet: an error
			s.keepWriter(w)
		}
	}()
	ps, keys := w.ps, w.keys
	for i, op := range ops {
		if ps[i], err = w.prepare(i, op); err != nil {
			return err
		}
		keys[i] = ps[i].rowKey
	}
	slices.SortFunc(keys, bytes.Compare)
	if err := w.prefetch(slices.CompactFunc(keys, bytes.Equal)); err != nil {
		return err
	}
	for i, p := range ps {
		if err := w.apply(i, p); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	cb, shared := wb.(seam.CondBatch)
	counts := make([]int64, len(w.tables))
	for i, d := range w.tables {
		old, raw, err := s.cachedCount(ctx, d)
		if err != nil {
			return err
		}
		counts[i] = old + w.delta[d]
		if shared {
			cb.RequireValue(d.count, raw)
		}
		if err := wb.Set(d.count, encodeCount(counts[i])); err != nil {
			return err
		}
	}
	if shared {
		cb.RequireValue(s.tableCatalogKey(), cat.raw)
		for _, k := range w.pre {
			cb.RequireValue(k.key, k.sl.orig)
		}
		for _, k := range w.order {
			cb.RequireValue([]byte(k), w.slots[k].orig)
		}
	}
	if err := wb.Commit(ctx, false); err != nil {
		s.forgetTables()
		return err
	}
	if !shared {
		for i, d := range w.tables {
			s.tb.counts[d.Name] = counts[i]
		}
	}
	s.keepWriter(w)
	s.tb.mu.Unlock()
	locked = false
	if s.sync && !shared {
		return s.Sync(ctx)
	}
	return nil
}

// cachedCount returns a table's count as the writer starts from: the
// cache of a backend only this process writes, else the store's.
func (s *Store) cachedCount(ctx context.Context, d *tableDef) (int64, []byte, error) {
	if s.ix.shared {
		return s.readCount(ctx, d)
	}
	if n, ok := s.tb.counts[d.Name]; ok {
		return n, nil, nil
	}
	n, _, err := s.readCount(ctx, d)
	if err != nil {
		return 0, nil, err
	}
	if s.tb.counts == nil {
		s.tb.counts = map[string]int64{}
	}
	s.tb.counts[d.Name] = n
	return n, nil, nil
}

func (w *tableWriter) bad(i int, op tableOp, detail string, err error) error {
	return &ObjectError{Table: op.table, Write: i, Object: op.obj, Detail: detail, Err: err}
}

// prepared is an operation checked and encoded: its table, key, the
// key's encoding and the object's key in the store, and the value to
// store (nil for a delete).
type prepared struct {
	op         tableOp
	d          *tableDef
	key        term.Term
	kb, rowKey []byte
	val        []byte
}

// prepare checks and encodes operation i.
func (w *tableWriter) prepare(i int, op tableOp) (prepared, error) {
	p := prepared{op: op, key: op.obj}
	var err error
	if p.d, err = w.cat.live(op.table); err != nil {
		return p, err
	}
	if !op.del {
		if why := p.d.check(op.obj); why != "" {
			return p, w.bad(i, op, why, nil)
		}
		p.key = op.obj.Elems()[p.d.KeyPos-1]
		dst := w.room(256)
		out, err := p.d.appendStored(dst, &w.scratch, op.obj)
		if err != nil {
			return p, w.bad(i, op, "the object cannot be written as term_to_binary", err)
		}
		p.val = w.took(dst, out)
	}
	dst := append(w.room(len(p.d.rows)+64), p.d.rows...)
	out, err := w.s.codec.Append(dst, p.key)
	if err != nil {
		return p, w.bad(i, op, "the key cannot be encoded", err)
	}
	p.rowKey = w.took(dst[:0], out)
	p.kb = p.rowKey[len(p.d.rows):]
	return p, nil
}

// prefetch reads the keys (ascending, none read yet) with one cursor
// over their span rather than a point read each, which costs a cursor
// of its own in Pebble and a round trip in etcd: a batch of new keys in
// order, as a load writes them, finds its span empty. The cursor gives
// up, leaving the rest to point reads, once it has passed more keys
// that are not asked for than a few times those that are.
func (w *tableWriter) prefetch(keys [][]byte) error {
	if len(keys) < 8 {
		return nil
	}
	it, err := w.s.openCursor(w.ctx, keys[0], append(bytes.Clone(keys[len(keys)-1]), 0), false)
	if err != nil {
		return err
	}
	defer it.Close() // an early return; the normal end reports its error
	i, extra, budget := 0, 0, 4*len(keys)+64
	w.pre = slices.Grow(w.pre[:0], len(keys))
	whole := true
	for it.Next() {
		k := it.Key()
		for i < len(keys) && bytes.Compare(keys[i], k) < 0 {
			w.pre = append(w.pre, keyed{key: keys[i]})
			i++
		}
		if i == len(keys) {
			break
		}
		if bytes.Equal(keys[i], k) {
			v := it.Value()
			if v == nil && it.Err() != nil {
				break
			}
			v = bytes.Clone(v)
			w.pre = append(w.pre, keyed{key: keys[i], sl: slot{orig: v, now: v, present: true}})
			i++
		} else if extra++; extra > budget {
			whole = false
			break
		}
	}
	if err := it.finish(nil); err != nil {
		return err
	}
	if whole {
		for ; i < len(keys); i++ {
			w.pre = append(w.pre, keyed{key: keys[i]})
		}
	}
	return nil
}

// apply adds one prepared operation to the write.
func (w *tableWriter) apply(i int, p prepared) error {
	op, d, key, kb, rowKey := p.op, p.d, p.key, p.kb, p.rowKey
	row, err := w.read(rowKey)
	if err != nil {
		return err
	}
	var old term.Term // the object there now, decoded when an index needs it
	hadOld := row.present
	if hadOld && w.maintained(d) {
		if old, err = d.object(key, row.now); err != nil {
			return err
		}
	}
	for _, ix := range d.indexes {
		if ix.State == IndexDropping {
			continue
		}
		var oldV, newV []byte
		if hadOld {
			if oldV, err = w.encode(old.Elems()[ix.Pos-1]); err != nil {
				return err
			}
		}
		if !op.del {
			if ix.Pos > op.obj.Len() {
				return w.bad(i, op, fmt.Sprintf("no element at the indexed position %d", ix.Pos), nil)
			}
			if newV, err = w.encode(op.obj.Elems()[ix.Pos-1]); err != nil {
				return w.bad(i, op, fmt.Sprintf("the value at the indexed position %d cannot be encoded", ix.Pos), err)
			}
		}
		if err := w.index(d, ix, kb, key, hadOld, oldV, !op.del, newV); err != nil {
			return err
		}
	}
	if op.del {
		if hadOld {
			w.count(d, -1)
		}
		w.del(row, rowKey)
		return nil
	}
	if !hadOld {
		w.count(d, +1)
	}
	w.set(row, rowKey, p.val)
	return nil
}

// maintained reports whether d has an index its writers keep.
func (w *tableWriter) maintained(d *tableDef) bool {
	return slices.ContainsFunc(d.indexes, func(ix *tableIndex) bool { return ix.State != IndexDropping })
}

func (w *tableWriter) count(d *tableDef, by int64) {
	if _, ok := w.delta[d]; !ok {
		w.tables = append(w.tables, d)
	}
	w.delta[d] += by
}

// index changes ix's entries for key kb from the old value (if hadOld)
// to the new one (if hasNew), values given as their encodings.
func (w *tableWriter) index(d *tableDef, ix *tableIndex, kb []byte, key term.Term, hadOld bool, oldV []byte, hasNew bool, newV []byte) error {
	if !ix.Unique {
		// A non-unique entry is never read by a writer: no slot.
		if hadOld && (!hasNew || !bytes.Equal(oldV, newV)) {
			w.del(nil, w.concat(ix.head, oldV, kb))
		}
		if hasNew {
			w.set(nil, w.concat(ix.head, newV, kb), nil)
		}
		return nil
	}
	if hadOld && hasNew && bytes.Equal(oldV, newV) {
		return nil
	}
	if hasNew {
		uk := w.concat(ix.head, newV)
		sl, err := w.read(uk)
		if err != nil {
			return err
		}
		if sl.present && !bytes.Equal(sl.now, kb) {
			other, _ := w.s.codec.Decode(sl.now)
			v, _ := w.s.codec.Decode(newV)
			return &UniqueError{Table: d.Name, Attr: ix.Attr, Value: v, Key: other, Other: key}
		}
		w.set(sl, uk, kb)
	}
	if hadOld {
		uk := w.concat(ix.head, oldV)
		sl, err := w.read(uk)
		if err != nil {
			return err
		}
		if sl.present && bytes.Equal(sl.now, kb) { // ours, as it should be
			w.del(sl, uk)
		}
	}
	return nil
}
