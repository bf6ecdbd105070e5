package store

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configures Open. A nil *Options is the zero value, which is the
// safe default: the store is created if missing, every write is synced,
// and the write-ahead log is on.
type Options struct {
	// MustExist makes Open fail with ErrNoStore instead of creating a new
	// store, for commands that only read.
	MustExist bool

	// NoSync commits writes without waiting for them to reach the disk.
	// They survive the process crashing but not the machine; Close makes
	// everything durable.
	NoSync bool

	// DisableWAL turns the write-ahead log off, for bulk loads that can be
	// redone: writes live in memory tables until those are flushed, and
	// a crash loses whatever was not. Close flushes first.
	DisableWAL bool

	// MemTableSize is the size of each memory table in bytes; 0 means
	// Pebble's default (4 MB). Larger tables make bulk loads faster.
	MemTableSize uint64
}

// Open opens the Pebble store in dir, creating it (and dir, but not dir's
// parent) if needed. A missing directory is an error wrapping ErrNoStore,
// one that another process has open an error wrapping ErrLocked; both
// name the path.
func Open(dir string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	kv, err := OpenPebble(dir, opts)
	if err != nil {
		return nil, err
	}
	return &Store{kv: kv, sync: !opts.NoSync}, nil
}

// PebbleKV is the embedded backend: a Pebble database in a directory,
// behind the KV seam.
type PebbleKV struct {
	db       *pebble.DB
	lock     *pebble.Lock
	dir      string
	flushOut bool // flush memory tables on Close (no WAL to replay them)
}

var (
	_ KV      = (*PebbleKV)(nil)
	_ StatsKV = (*PebbleKV)(nil)
)

// OpenPebble opens the Pebble database in dir as Open does, without a
// Store on top; opts.NoSync is the Store's business and is ignored here.
func OpenPebble(dir string, opts *Options) (*PebbleKV, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := prepareDir(dir, opts.MustExist); err != nil {
		return nil, err
	}
	// Taking the lock ourselves, before Open, is what lets a lock held by
	// another process be told apart from every other failure to open.
	lock, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the LOCK file could not be created
			return nil, &PathError{Path: dir, Err: err}
		}
		return nil, &PathError{Path: dir, Err: &wrapErr{ErrLocked, err}}
	}
	popts := &pebble.Options{
		Lock:             lock,
		Logger:           quietLogger{},
		ErrorIfNotExists: opts.MustExist,
		DisableWAL:       opts.DisableWAL,
		MemTableSize:     opts.MemTableSize,
	}
	db, err := pebble.Open(dir, popts)
	if err != nil {
		lock.Close()
		if errors.Is(err, pebble.ErrDBDoesNotExist) {
			return nil, &PathError{Path: dir, Err: fmt.Errorf("%w (the directory holds no store)", ErrNoStore)}
		}
		return nil, &PathError{Path: dir, Err: err}
	}
	return &PebbleKV{db: db, lock: lock, dir: dir, flushOut: opts.DisableWAL}, nil
}

// prepareDir checks dir and, unless mustExist, creates it in an existing
// parent. Pebble would create every missing parent; a mistyped path should
// be an error instead.
func prepareDir(dir string, mustExist bool) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return &PathError{Path: dir, Err: fmt.Errorf("%w (not a directory)", ErrNoStore)}
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return &PathError{Path: dir, Err: err}
	case mustExist:
		return &PathError{Path: dir, Err: ErrNoStore}
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if _, err := os.Stat(parent); err != nil {
		return &PathError{Path: dir, Err: fmt.Errorf("%w (parent directory %s: %w)", ErrNoStore, parent, err)}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return &PathError{Path: dir, Err: err}
	}
	return nil
}

// DB returns the Pebble database, for tests and tools that need it.
func (p *PebbleKV) DB() *pebble.DB { return p.db }

// Get returns a copy of the value under key.
func (p *PebbleKV) Get(key []byte) ([]byte, error) {
	v, closer, err := p.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, v...)
	return out, closer.Close()
}

// NewIter returns a cursor over [lower, upper).
func (p *PebbleKV) NewIter(lower, upper []byte, reverse bool) (Iter, error) {
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	return &pebbleIter{it: it, reverse: reverse}, nil
}

// NewBatch returns an empty write batch.
func (p *PebbleKV) NewBatch() WriteBatch { return &pebbleBatch{b: p.db.NewBatch()} }

// Close flushes memory tables if the WAL is off, then closes the database
// and releases the directory lock.
func (p *PebbleKV) Close() error {
	var err error
	if p.flushOut {
		err = p.db.Flush()
	}
	err = errors.Join(err, p.db.Close(), p.lock.Close())
	return err
}

// Stats reads Pebble's metrics and table properties.
func (p *PebbleKV) Stats() (Stats, error) {
	m := p.db.Metrics()
	st := Stats{
		Backend:      "pebble",
		Dir:          p.dir,
		DiskBytes:    m.DiskSpaceUsage(),
		Tables:       m.Total().TablesCount,
		MemTableSize: m.MemTable.Size,
	}
	levels, err := p.db.SSTables(pebble.WithProperties())
	if err != nil {
		return st, err
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

// pebbleIter adapts pebble.Iterator to the one-way Iter.
type pebbleIter struct {
	it      *pebble.Iterator
	reverse bool
	started bool
	err     error // an error reading a value
}

func (i *pebbleIter) Next() bool {
	if i.err != nil {
		return false
	}
	if !i.started {
		i.started = true
		if i.reverse {
			return i.it.Last()
		}
		return i.it.First()
	}
	if i.reverse {
		return i.it.Prev()
	}
	return i.it.Next()
}

func (i *pebbleIter) Key() []byte { return i.it.Key() }

func (i *pebbleIter) Value() []byte {
	v, err := i.it.ValueAndErr()
	if err != nil {
		i.err = err
		return nil
	}
	return v
}

func (i *pebbleIter) Err() error {
	if i.err != nil {
		return i.err
	}
	return i.it.Error()
}

func (i *pebbleIter) Close() error {
	err := i.it.Close()
	if i.err != nil {
		return i.err
	}
	return err
}

// pebbleBatch adapts pebble.Batch to WriteBatch.
type pebbleBatch struct {
	b *pebble.Batch
}

func (b *pebbleBatch) Set(key, value []byte) error { return b.b.Set(key, value, nil) }
func (b *pebbleBatch) Delete(key []byte) error     { return b.b.Delete(key, nil) }
func (b *pebbleBatch) Count() int                  { return int(b.b.Count()) }

func (b *pebbleBatch) Commit(sync bool) error {
	wo := pebble.NoSync
	if sync {
		wo = pebble.Sync
	}
	return b.b.Commit(wo)
}

func (b *pebbleBatch) Close() error { return b.b.Close() }

// quietLogger drops Pebble's informational messages, which would clutter
// a command's output, and keeps its errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)              {}
func (quietLogger) Errorf(format string, args ...any) { log.Printf("pebble: "+format, args...) }
func (quietLogger) Fatalf(format string, args ...any) { log.Fatalf("pebble: "+format, args...) }
