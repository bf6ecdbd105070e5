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
// Commits go into Pebble one at a time (see KV.wmu), and once the writes
// have stopped every commit returns the error that stopped them. A
// synced commit waits for the disk after it lets the next one in, so
// that concurrent synced commits still share one sync of the log.
func (b *batch) Commit(ctx context.Context, sync bool) (err error) {
	p := b.p
	defer p.faults.recover(&err)
	if p.flushOut {
		return b.commitNoLog(ctx, sync)
	}
	if b.b.Empty() {
		if !sync {
			return nil
		}
		b.b.LogData(nil, nil) // an empty record, synced with all before it
	}
	if err := b.apply(ctx, sync); err != nil {
		return err
	}
	if sync {
		return p.faults.convert(b.b.SyncWait())
	}
	return nil
}

// apply hands the batch to Pebble, not waiting for a sync.
func (b *batch) apply(ctx context.Context, sync bool) error {
	p := b.p
	if err := p.lockWritable(ctx); err != nil {
		return err
	}
	defer p.wmu.Unlock()
	if sync {
		return p.faults.convert(p.db.ApplyNoSyncWait(b.b, pebble.Sync))
	}
	return p.faults.convert(b.b.Commit(pebble.NoSync))
}

// commitNoLog commits with the log off, where a sync is a flush.
func (b *batch) commitNoLog(ctx context.Context, sync bool) error {
	p := b.p
	if err := p.lockWritable(ctx); err != nil {
		return err
	}
	defer p.wmu.Unlock()
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

func (b *batch) Close() error { return b.b.Close() }

// lockWritable takes wmu for a commit, unless writes have stopped or ctx
// is done, in which case it returns why and holds nothing.
func (p *KV) lockWritable(ctx context.Context) error {
	p.wmu.Lock()
	err := p.faults.unwritable()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		p.wmu.Unlock()
	}
	return err
}
