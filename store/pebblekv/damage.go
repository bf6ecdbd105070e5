package pebblekv

import (
	"context"
	"errors"
	"io/fs"

	"github.com/erlsext/sext/store/seam"
)

// damaged returns err, the failure to open a store, as a
// *seam.CorruptError when it lies in the store's own files rather than
// in the machine. Pebble marks few of these as corruption: a missing
// MANIFEST, a marker naming a MANIFEST that is not there, a MANIFEST cut
// short before the edits that removed some tables, a table cut to half
// its size ("object size mismatch") all came back as plain errors. So,
// for a directory that holds a store (exists):
//
//   - a file the store names that is not there (fs.ErrNotExist) is
//     damage, and the error names that file;
//   - any other error that is not the operating system's (no errno:
//     ENOSPC, EACCES, EMFILE, EIO are the machine's) nor ours (a stopped
//     write, a cancelled open, a Fatalf) is Pebble finding its files
//     inconsistent, which is damage too.
func (f *faults) damaged(exists bool, err error) error {
	var ce *seam.CorruptError
	if !exists || errors.As(err, &ce) {
		return err
	}
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist) && errors.As(err, &pe):
		return &seam.CorruptError{Path: pe.Path, Offset: -1, Err: &engineErr{err}}
	case errors.Is(err, fs.ErrNotExist):
		return &seam.CorruptError{Path: f.dir, Offset: -1, Err: &engineErr{err}}
	case diskError(err), errors.Is(err, ErrWritesStopped), errors.Is(err, ErrEngineFailed),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &seam.CorruptError{Path: f.dir, Offset: -1, Err: &engineErr{err}}
}
