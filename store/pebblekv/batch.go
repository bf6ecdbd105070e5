package pebblekv

import (
	"context"

	"github.com/cockroachdb/pebble/v2"

	"github.com/erlsext/sext/store/seam"
)

// NewBatch returns an empty write batch.
func (p *KV) NewBatch() seam.WriteBatch { return &batch{p: p, b: p.db.NewBatch()} }

// batch adapts pebble.Batch to seam.WriteBatch.
type batch struct {
	p *KV
	b *pebble.Batch
}

func (b *batch) Set(key, value []byte) error { return b.b.Set(key, value, nil) }
func (b *batch) Delete(key []byte) error     { return b.b.Delete(key, nil) }
func (b *batch) Count() int                  { return int(b.b.Count()) }

// Commit applies the batch. Without sync Pebble hands the log record to
// its writer goroutine and returns: until a later sync, the write is in
// this process's memory only, and a crash of the process loses it. With
// sync it returns once the log, with every earlier record in it, is on
// the disk; an empty batch with sync is how Store.Sync asks for that
// (with the log off, a sync flushes the memory tables instead).
//
// Commits are made one at a time (see KV.wmu); once the writes have
// stopped, every commit returns the error that stopped them.
func (b *batch) Commit(ctx context.Context, sync bool) (err error) {
	p := b.p
	defer p.faults.recover(&err)
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.faults.unwritable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.flushOut {
		if b.b.Count() > 0 {
			if err := b.b.Commit(pebble.NoSync); err != nil {
				return p.faults.convert(err)
			}
		}
		if sync {
			return p.flush(ctx)
		}
		return nil
	}
	wo := pebble.NoSync
	if sync {
		wo = pebble.Sync
	}
	if b.b.Empty() {
		if !sync {
			return nil
		}
		return p.faults.convert(p.db.LogData(nil, pebble.Sync))
	}
	return p.faults.convert(b.b.Commit(wo))
}

func (b *batch) Close() error { return b.b.Close() }
