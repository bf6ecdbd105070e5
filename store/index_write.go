package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/erlsext/sext/store/seam"
)

// writeLog records a batch's writes so that Apply can add their index
// entries under the definitions current at commit time, and, on a shared
// backend, write the batch again if those changed meanwhile.
type writeLog struct {
	ws    []loggedWrite
	arena []byte // the writes' key bytes, and values when kept
}

type loggedWrite struct {
	k0, k1 int // key bytes: arena[k0:k1]
	v0, v1 int // value bytes when kept for a replay, else v0 = -1
	set    bool
}

// add logs a write. It keeps the key's bytes, not its term, which the
// caller may reuse (term.Tuple keeps its elements without copying).
func (l *writeLog) add(kb, value []byte, set, keepValue bool) {
	w := loggedWrite{k0: len(l.arena), set: set, v0: -1}
	l.arena = append(l.arena, kb...)
	w.k1 = len(l.arena)
	if set && keepValue {
		w.v0 = len(l.arena)
		l.arena = append(l.arena, value...)
		w.v1 = len(l.arena)
	}
	l.ws = append(l.ws, w)
}

func (l *writeLog) keyBytes(w *loggedWrite) []byte { return l.arena[w.k0:w.k1] }

// sharedBackend reports whether kv's batches carry conditions, which is
// how a backend says other processes may write it at once.
func sharedBackend(kv KV) bool {
	wb := kv.NewBatch()
	defer wb.Close()
	_, ok := wb.(seam.CondBatch)
	return ok
}

// addEntries adds to wb the index entries of the logged writes, under c.
func (s *Store) addEntries(wb WriteBatch, l *writeLog, c *catalog) error {
	if !c.maintained() {
		return nil
	}
	var buf []byte
	for i := range l.ws {
		w := &l.ws[i]
		key, err := s.codec.Decode(l.keyBytes(w))
		if err != nil {
			return fmt.Errorf("store: internal error: a key of the batch does not decode: %w", err)
		}
		for _, ix := range c.list {
			if ix.State == IndexDropping {
				continue
			}
			v, ok := ix.value(key)
			if !ok {
				continue
			}
			var err error
			if buf, err = s.appendEntry(buf[:0], ix, v, l.keyBytes(w)); err != nil {
				return fmt.Errorf("store: index %s: %w", ix.Name, err)
			}
			if w.set {
				err = wb.Set(buf, nil)
			} else {
				err = wb.Delete(buf)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// commitIndexed commits b's writes and their index entries in one
// atomic write. On a shared backend the commit is conditional on the
// definitions it used; if another process changed them meanwhile, it
// reloads them and writes the batch again.
func (s *Store) commitIndexed(ctx context.Context, b *Batch) error {
	for attempt := 0; ; attempt++ {
		c, unlock, err := s.readLocked(ctx)
		if err != nil {
			return err
		}
		err = s.addEntries(b.wb, &b.log, c)
		if err == nil {
			if cb, ok := b.wb.(seam.CondBatch); ok {
				cb.RequireValue(s.catalogKey(), c.raw)
			}
			err = b.wb.Commit(ctx, s.sync)
		}
		unlock()
		if !errors.Is(err, ErrPrecondition) || attempt >= maxCatalogRetries {
			return err
		}
		// Another process changed the definitions: write it all again.
		s.forget(c)
		b.wb.Close()
		b.wb = s.kv.NewBatch()
		if err := b.replay(); err != nil {
			return err
		}
	}
}

// replay writes the logged data writes into a fresh b.wb.
func (b *Batch) replay() error {
	l := &b.log
	for i := range l.ws {
		w := &l.ws[i]
		var err error
		switch {
		case !w.set:
			err = b.wb.Delete(l.keyBytes(w))
		case w.v0 < 0:
			return errors.New("store: internal error: a batch to write again lost its values")
		default:
			err = b.wb.Set(l.keyBytes(w), l.arena[w.v0:w.v1])
		}
		if err != nil {
			return err
		}
	}
	return nil
}
