package pebblekv

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// diskFS is the file system Pebble writes through: the operating
// system's, watched for failed writes.
//
// A write that finds the disk full, or any failed write to a
// write-ahead log (after which Pebble's log writer takes no more
// records), stops the KV's writes at once, before Pebble's own reaction
// reaches anyone: the next commit is refused by the KV instead of
// reaching Pebble's commit path, which panics on a log that cannot be
// written. And once the writes have stopped, each new table Pebble
// creates waits retryPause first: Pebble retries a failed flush at once
// and forever, which on a full disk was a loop at full CPU.
type diskFS struct {
	vfs.FS
	f *faults
}

// retryPause is how long, once writes have stopped, each table Pebble
// creates waits: Pebble's retries of a failed flush come once a second
// instead of as fast as the CPU goes.
const retryPause = time.Second

func (d *diskFS) Unwrap() vfs.FS { return d.FS }

func (d *diskFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	if strings.HasSuffix(name, ".sst") || strings.HasSuffix(name, ".blob") {
		d.pause() // a flush or a compaction, which Pebble retries
	}
	file, err := d.FS.Create(name, cat)
	return d.file(name, file, err)
}

func (d *diskFS) ReuseForWrite(oldname, newname string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	file, err := d.FS.ReuseForWrite(oldname, newname, cat)
	return d.file(newname, file, err)
}

func (d *diskFS) OpenReadWrite(name string, cat vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	file, err := d.FS.OpenReadWrite(name, cat, opts...)
	return d.file(name, file, err)
}

func (d *diskFS) Link(oldname, newname string) error {
	return d.note(d.FS.Link(oldname, newname), false)
}

func (d *diskFS) Rename(oldname, newname string) error {
	return d.note(d.FS.Rename(oldname, newname), false)
}

// pause waits retryPause if the writes have stopped, or until the KV
// closes: see diskFS.
func (d *diskFS) pause() {
	select {
	case <-d.f.stop:
	default:
		return
	}
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-d.f.closing:
	}
}

func (d *diskFS) file(name string, file vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, d.note(err, false)
	}
	return &diskFile{File: file, d: d, log: strings.HasSuffix(name, ".log")}, nil
}

// note stops the writes if err says the disk is full, or is any error
// writing a log; it returns err.
func (d *diskFS) note(err error, log bool) error {
	if err != nil && (noSpace(err) || log && diskError(err)) {
		d.f.stopWrites(err)
	}
	return err
}

// diskFile is a file Pebble writes, watched as diskFS says. A failed
// Preallocate is not watched: Pebble asks for room ahead, ignores a
// refusal, and writes what fits.
type diskFile struct {
	vfs.File
	d   *diskFS
	log bool // a write-ahead log
}

func (f *diskFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.d.note(err, f.log)
}

func (f *diskFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.d.note(err, f.log)
}

func (f *diskFile) Sync() error { return f.d.note(f.File.Sync(), f.log) }

func (f *diskFile) SyncData() error { return f.d.note(f.File.SyncData(), f.log) }

func (f *diskFile) SyncTo(n int64) (bool, error) {
	full, err := f.File.SyncTo(n)
	return full, f.d.note(err, f.log)
}

// openRoom is the room on the disk, besides the logs, that opening a
// store for writing may take: an options file, a manifest, markers and
// the tables' first blocks.
const openRoom = 64 << 10

// roomToOpen returns the room opening the store in dir for writing needs
// and the room its disk has. Pebble's Open replays the write-ahead logs
// and writes what they hold into tables before it returns, and on a
// disk without room for that it retries the write forever; a store
// whose logs need more room than there is opens read-only instead. The
// logs' size bounds what their tables take: a table holds the logs'
// keys and values once each, compressed.
func roomToOpen(fs vfs.FS, dir string) (need, free uint64, err error) {
	du, err := fs.GetDiskUsage(dir)
	if err != nil {
		return 0, 0, err
	}
	names, err := fs.List(dir)
	if err != nil {
		return 0, 0, err
	}
	need = openRoom
	for _, n := range names {
		if strings.HasSuffix(n, ".log") {
			if fi, err := fs.Stat(fs.PathJoin(dir, n)); err == nil {
				need += uint64(fi.Size())
			}
		}
	}
	return need, du.AvailBytes, nil
}

// noRoomErr says why a store opened read-only (the disk had too little
// room to replay its logs) or could not be created. It wraps
// syscall.ENOSPC.
type noRoomErr struct {
	dir        string
	need, free uint64
	create     bool
}

func (e *noRoomErr) Error() string {
	if e.create {
		return fmt.Sprintf("%s: the disk is full: %d bytes free, %d needed to create a store (%v)", e.dir, e.free, e.need, syscall.ENOSPC)
	}
	return fmt.Sprintf("%s: the disk is full: %d bytes free, %d needed to replay the store's logs, so it opened read-only (%v)",
		e.dir, e.free, e.need, syscall.ENOSPC)
}

func (e *noRoomErr) Unwrap() error { return syscall.ENOSPC }

// errWedged says why Close left the directory locked.
var errWedged = errors.New("pebblekv: the engine's commit pipeline was left locked by a failed log write, so it cannot close; the directory stays locked until the process exits")

// testFS, set by tests, wraps the file system stores open on.
var testFS func(vfs.FS) vfs.FS
