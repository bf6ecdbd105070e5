package pebblekv

import "github.com/cockroachdb/pebble/v2/vfs"

// SetTestFS makes the stores opened from now on write through wrap(the
// OS's file system), for tests that make a disk fail; nil undoes it.
func SetTestFS(wrap func(vfs.FS) vfs.FS) { testFS = wrap }
