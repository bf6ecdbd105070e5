// Package pebblekv is the store's embedded backend: a Pebble database in a
// directory, behind the seam (package seam). pebblestore.Open puts a
// store.Store on it in one call; use this package directly, with
// store.New, to keep the backend's own handle (its raw byte keys, the
// Pebble database).
//
// It guards the caller's process from Pebble's own ways of giving up: a
// corrupt table is an error wrapping seam.ErrCorrupt from the call that
// read it, never an exit; a directory that holds store files but lost its
// manifest marker is refused rather than recreated empty; and a
// write-ahead log that ends in a torn record is reported (Warnings) and
// kept on record in the directory until a check clears it.
package pebblekv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/erlsext/sext/store/seam"
)

// Options configures Open. A nil *Options is the zero value, which is the
// safe default: the store is created if missing and the write-ahead log
// is on.
type Options struct {
	// MustExist makes Open fail with seam.ErrNoStore instead of creating
	// a new store, for commands that only read.
	MustExist bool

	// DisableWAL turns the write-ahead log off, for bulk loads that can be
	// redone: writes live in memory tables until those are flushed, and
	// a crash loses whatever was not. Close flushes first, and so does a
	// commit with sync.
	DisableWAL bool

	// MemTableSize is the size of each memory table in bytes; 0 means
	// Pebble's default (4 MB). Larger tables make bulk loads faster.
	MemTableSize uint64
}

// KV is the embedded backend: a Pebble database in a directory, behind
// the seam.
type KV struct {
	db       *pebble.DB
	lock     *pebble.Lock
	dir      string
	flushOut bool // flush memory tables on Close and sync (no WAL to replay them)
	readOnly bool // opened read-only: the disk had no room to replay the logs
	faults   *faults
	closed   sync.Once

	// wmu makes commits and flushes go into Pebble one at a time, so
	// that each sees the writes stopped by a failed write before it, and
	// never reaches Pebble's commit path, which panics on a log it could
	// not write. A synced commit waits for the disk outside it.
	wmu sync.Mutex

	mu       sync.Mutex
	warnings []error // on record: torn logs met at this or an earlier open
}

var (
	_ seam.KV         = (*KV)(nil)
	_ seam.StatsKV    = (*KV)(nil)
	_ seam.WarningsKV = (*KV)(nil)
)

// Open opens the Pebble database in dir, as OpenContext does with a
// context that is never done.
func Open(dir string, opts *Options) (*KV, error) {
	return OpenContext(context.Background(), dir, opts)
}

// OpenContext opens the Pebble database in dir, creating it (and dir,
// but not dir's parent) if needed. A missing directory is an error
// wrapping seam.ErrNoStore, one that another process has open an error
// wrapping seam.ErrLocked, one whose files are damaged (no manifest
// marker, a missing or cut manifest, a table of the wrong size) an error
// wrapping seam.ErrCorrupt; each is an *fs.PathError naming dir.
//
// Opening replays the write-ahead logs into tables, which takes room on
// the disk. A store whose disk has too little room for that opens
// read-only: reads work, and every write fails with an error wrapping
// ErrWritesStopped and syscall.ENOSPC. If the disk fills while the open
// is under way, or ctx is done first, OpenContext returns that error
// (ENOSPC, or ctx.Err()) without waiting for Pebble, whose open goes on
// in the background, retrying once a second, and closes the store when
// it ends; the directory stays locked until then.
func OpenContext(ctx context.Context, dir string, opts *Options) (*KV, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := prepareDir(dir, opts.MustExist); err != nil {
		return nil, err
	}
	// Taking the lock ourselves, before Open, is what lets a lock held by
	// another process be told apart from every other failure to open. It
	// also keeps another process from writing while we read the logs.
	lock, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the LOCK file could not be created
			return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		return nil, &fs.PathError{Op: "open", Path: dir, Err: seam.Mark(seam.ErrLocked, err)}
	}
	kv, abandoned, err := open(ctx, dir, lock, opts)
	if err != nil {
		if !abandoned {
			lock.Close()
		}
		return nil, err
	}
	return kv, nil
}

// open opens the database in dir under lock. abandoned reports that
// Pebble's open was left running, and owns the lock now.
func open(ctx context.Context, dir string, lock *pebble.Lock, opts *Options) (_ *KV, abandoned bool, _ error) {
	exists, err := refuseOrphans(dir, opts.MustExist)
	if err != nil {
		return nil, false, err
	}
	f := newFaults(dir)
	var vfsys vfs.FS = &diskFS{FS: vfs.Default, f: f}
	if testFS != nil {
		vfsys = &diskFS{FS: testFS(vfs.Default), f: f}
	}
	readOnly := false
	// A store that must exist and does not is ErrNoStore, from Pebble,
	// whatever the room.
	if need, free, err := roomToOpen(vfsys, dir); err == nil && free < need && (exists || !opts.MustExist) {
		if !exists {
			return nil, false, &fs.PathError{Op: "open", Path: dir, Err: &noRoomErr{dir: dir, need: need, free: free, create: true}}
		}
		readOnly = true
		f.stopWrites(&noRoomErr{dir: dir, need: need, free: free})
	}
	warnings, err := checkLogs(dir, !readOnly)
	if err != nil {
		return nil, false, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	popts := &pebble.Options{
		FS:               vfsys,
		Lock:             lock,
		Logger:           f,
		EventListener:    f.listener(),
		ErrorIfNotExists: opts.MustExist,
		ReadOnly:         readOnly,
		DisableWAL:       opts.DisableWAL,
		MemTableSize:     opts.MemTableSize,
	}
	db, abandoned, err := f.openDB(ctx, dir, popts)
	if abandoned {
		return nil, true, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	if err != nil {
		if errors.Is(err, pebble.ErrDBDoesNotExist) {
			return nil, false, &fs.PathError{Op: "open", Path: dir, Err: fmt.Errorf("%w (the directory holds no store)", seam.ErrNoStore)}
		}
		return nil, false, &fs.PathError{Op: "open", Path: dir, Err: f.damaged(exists, f.convert(err))}
	}
	return &KV{db: db, lock: lock, dir: dir, flushOut: opts.DisableWAL && !readOnly, readOnly: readOnly, faults: f, warnings: warnings}, false, nil
}

// openGrace is how long an open whose disk filled waits for Pebble's
// open to end by itself before it gives up on it.
const openGrace = 200 * time.Millisecond

// openDB runs pebble.Open on a goroutine of its own, and returns when it
// does, when ctx is done, or when the writes stop (the disk filled while
// Pebble replays the logs, which it would retry forever). In the last
// two cases the open is abandoned: it goes on in the background, and
// when it ends the goroutine closes the database and releases the lock.
func (f *faults) openDB(ctx context.Context, dir string, popts *pebble.Options) (*pebble.DB, bool, error) {
	type result struct {
		db  *pebble.DB
		err error
	}
	done := make(chan result, 1)
	go func() {
		var db *pebble.DB
		err := f.guard(func() (err error) {
			db, err = pebble.Open(dir, popts)
			return err
		})
		done <- result{db, err}
	}()
	stop := f.stop
	if popts.ReadOnly { // stopped from the start, and writes nothing
		stop = nil
	}
	var err error
	grace := time.Duration(0)
	select {
	case r := <-done:
		return r.db, false, r.err
	case <-ctx.Done():
		err = ctx.Err()
	case <-stop:
		err = fmt.Errorf("the disk filled while the store opened (%w); the open goes on in the background, trying again once a second, and the directory stays locked until it ends", f.stopCause())
		// Most failed writes end Pebble's open with an error of its
		// own; only a failed flush of the logs keeps it retrying.
		grace = openGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case r := <-done: // it ended as we gave up: take what it gave
		return r.db, false, r.err
	case <-t.C:
	}
	go func() {
		r := <-done
		if r.db != nil {
			f.guard(func() error { return r.db.Close() })
		}
		popts.Lock.Close()
	}()
	return nil, true, err
}

// prepareDir checks dir and, unless mustExist, creates it in an existing
// parent. Pebble would create every missing parent; a mistyped path should
// be an error instead.
func prepareDir(dir string, mustExist bool) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return &fs.PathError{Op: "open", Path: dir, Err: fmt.Errorf("%w (not a directory)", seam.ErrNoStore)}
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	case mustExist:
		return &fs.PathError{Op: "open", Path: dir, Err: seam.ErrNoStore}
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if _, err := os.Stat(parent); err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: fmt.Errorf("%w (parent directory %s: %w)", seam.ErrNoStore, parent, err)}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return nil
}

// refuseOrphans refuses a directory that holds a store's files but no
// manifest marker. Pebble finds its current manifest through the marker
// alone; without it Pebble sees no store, creates an empty one and then
// deletes the tables it does not know as obsolete. Whatever removed the
// marker, the data is still there, and only a person can bring it back.
func refuseOrphans(dir string, mustExist bool) (exists bool, err error) {
	desc, err := pebble.Peek(dir, vfs.Default)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	if desc.Exists {
		return true, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	var found []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "MANIFEST-") || strings.HasSuffix(n, ".sst") ||
			strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".blob") {
			found = append(found, n)
		}
	}
	if len(found) == 0 {
		return false, nil
	}
	return false, &fs.PathError{Op: "open", Path: dir, Err: &seam.CorruptError{Path: dir, Offset: -1, Err: fmt.Errorf(
		"%d store files (%s, ...) but no manifest marker (marker.manifest.*): refusing to open or create a store over them; restore the marker from a backup, or move the files away",
		len(found), found[0])}}
}

// DB returns the Pebble database, for tests and tools that need it.
func (p *KV) DB() *pebble.DB { return p.db }

// Dir returns the store's directory.
func (p *KV) Dir() string { return p.dir }

// Close flushes memory tables if the WAL is off, then closes the database
// and releases the directory lock. If the writes had stopped, Close
// still closes, and returns the error that stopped them: writes made
// after it were refused, and those before it that were not synced may
// be lost (a store that opened read-only took no writes, and its Close
// returns no such error). If a failed log write left Pebble's commit pipeline locked,
// Pebble cannot close: Close returns at once, with an error, and the
// directory stays locked until the process exits.
func (p *KV) Close() (err error) {
	defer p.faults.recover(&err)
	p.closed.Do(func() { close(p.faults.closing) })
	p.wmu.Lock()
	defer p.wmu.Unlock()
	stopped := p.faults.unwritable()
	if p.readOnly && errors.Is(stopped, ErrWritesStopped) {
		stopped = nil
	}
	if p.faults.isWedged() {
		return errors.Join(stopped, errWedged)
	}
	if p.flushOut && p.faults.unwritable() == nil {
		err = p.flush(context.Background())
	}
	cerr := p.faults.convert(p.db.Close())
	if stopped != nil && errors.Is(cerr, ErrWritesStopped) {
		cerr = nil // the log writer's own report of the same failure
	}
	return errors.Join(stopped, err, cerr, p.lock.Close())
}

// flush writes the memory tables to disk. Pebble's Flush waits until a
// flush succeeds, which on a full disk is never: this one returns when
// the writes stop, or ctx is done, instead.
func (p *KV) flush(ctx context.Context) error {
	done, err := p.db.AsyncFlush()
	if err != nil {
		return p.faults.convert(err)
	}
	select {
	case <-done:
		return nil
	case <-p.faults.stop:
		return p.faults.unwritable()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Warnings returns the torn write-ahead logs on record: met when this KV
// opened, or by an earlier open and not yet cleared. Each is a
// *seam.CorruptError wrapping seam.ErrTornLog.
func (p *KV) Warnings() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.warnings...)
}

// ClearWarnings removes the record of torn logs, once a person has seen
// it: the data they lost cannot come back, and a store should not warn
// forever.
func (p *KV) ClearWarnings() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := os.Remove(filepath.Join(p.dir, notesFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	p.warnings = nil
	return nil
}

// Stats reads Pebble's metrics and table properties.
func (p *KV) Stats(ctx context.Context) (st seam.Stats, err error) {
	defer p.faults.recover(&err)
	if err := p.faults.failed(); err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	m := p.db.Metrics()
	st = seam.Stats{
		// Table properties count a table's keys, and a table holds
		// reserved keys and data keys alike.
		ReservedCounted: true,
		Backend:         "pebble",
		Dir:             p.dir,
		DiskBytes:       m.DiskSpaceUsage(),
		Tables:          m.Total().TablesCount,
		MemTableSize:    m.MemTable.Size,
	}
	levels, err := p.db.SSTables(pebble.WithProperties())
	if err != nil {
		return st, p.faults.convert(err)
	}
	var entries, dels uint64
	for _, level := range levels {
		for _, t := range level {
			if t.Properties != nil {
				entries += t.Properties.NumEntries
				dels += t.Properties.NumDeletions
			}
		}
	}
	if entries > dels {
		st.KeysEstimate = entries - dels
	}
	return st, nil
}
