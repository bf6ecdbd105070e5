package pebblekv

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/wal"

	"github.com/erlsext/sext/store/seam"
)

// notesFile keeps, in the store's directory, a line for every torn log an
// open met: "FILE<TAB>OFFSET<TAB>DETAIL". Pebble replays a log when it
// opens and then deletes or recycles it, so the evidence of a torn one is
// gone after the first open; the note is what lets a later check find
// it. Pebble ignores files whose names it does not know.
const notesFile = "SEXT-TORN-LOGS"

// checkLogs reads every write-ahead log in dir to its end, before Pebble
// replays them, and returns the torn ones on record (new and old). It
// records the new ones in the notes file if write is set; a store that
// opens read-only (its disk is full) leaves its logs in place, and the
// next open finds them again.
//
// Pebble accepts a last log that ends inside a record without a word: it
// is what a crash mid-write leaves, and the writes after it were never
// acknowledged as synced. But a log cut short on disk (a torn sector, a
// truncating copy, a full disk) looks the same, and then it silently
// drops writes that were synced. The two cannot be told apart from the
// file, so both are reported.
func checkLogs(dir string, write bool) ([]error, error) {
	notes, err := readNotes(dir)
	if err != nil {
		return nil, err
	}
	logs, err := wal.Scan(wal.Dir{FS: vfs.Default, Dirname: dir})
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, n := range notes {
		known[n.Error()] = true
	}
	var fresh []*seam.CorruptError
	for _, ll := range logs {
		ce := readLog(dir, ll)
		if ce != nil && !known[ce.Error()] {
			fresh = append(fresh, ce)
			notes = append(notes, ce)
		}
	}
	if len(fresh) > 0 && write {
		if err := appendNotes(dir, fresh); err != nil {
			return nil, err
		}
	}
	return notes, nil
}

// readLog reads one logical log and returns how it is torn, or nil if it
// ends cleanly.
func readLog(dir string, ll wal.LogicalLog) *seam.CorruptError {
	r := ll.OpenForRead()
	defer r.Close()
	name := filepath.Join(dir, fmt.Sprintf("%06d.log", uint64(ll.Num)))
	var last int64
	for records := 0; ; records++ {
		rec, off, err := r.NextRecord()
		if err == nil {
			_, err = io.Copy(io.Discard, rec)
		}
		if off.PhysicalFile != "" {
			name = off.PhysicalFile
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && records == 0 && unwritten(name, uint32(ll.Num)) {
			return nil
		}
		if err != nil {
			if off.Physical > 0 || last == 0 {
				last = off.Physical
			}
			return &seam.CorruptError{Path: name, Offset: last, Err: fmt.Errorf("%w (%v)", seam.ErrTornLog, err)}
		}
		last = off.Physical
	}
}

// unwritten reports whether the log in file num holds no record of its
// own: its first chunk is zeroes (room set aside) or belongs to another
// log (a log file Pebble recycled, renamed and not yet written over,
// as a kill leaves it right after a new log was started). Pebble's
// reader calls that an unexpected end at offset 0, as it would a first
// record cut short; but nothing was written to this log, so nothing was
// lost.
//
// A chunk's header is a checksum (4 bytes), a length (2), an encoding
// (1) and, in the encodings 5 to 12 Pebble writes, the number of its
// log (4, little-endian).
func unwritten(file string, num uint32) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [11]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	if h == [11]byte{} {
		return true
	}
	enc := h[6]
	return enc >= 5 && enc <= 12 && binary.LittleEndian.Uint32(h[7:]) != num
}

func readNotes(dir string) ([]error, error) {
	f, err := os.Open(filepath.Join(dir, notesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var notes []error
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		path, rest, _ := strings.Cut(sc.Text(), "\t")
		offText, detail, _ := strings.Cut(rest, "\t")
		off, err := strconv.ParseInt(offText, 10, 64)
		if err != nil {
			off = -1
		}
		notes = append(notes, &seam.CorruptError{Path: path, Offset: off, Err: &noteErr{detail}})
	}
	return notes, sc.Err()
}

// noteErr is a torn log read back from the notes file: its text as
// recorded, and ErrTornLog to errors.Is.
type noteErr struct{ text string }

func (e *noteErr) Error() string { return e.text }
func (e *noteErr) Unwrap() error { return seam.ErrTornLog }

func appendNotes(dir string, notes []*seam.CorruptError) error {
	var text []byte
	for _, n := range notes {
		text = fmt.Appendf(text, "%s\t%d\t%s\n", n.Path, n.Offset, strings.ReplaceAll(n.Err.Error(), "\n", " "))
	}
	f, err := os.OpenFile(filepath.Join(dir, notesFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	// One write, checked: a full disk once left the file empty and the
	// open went on as if the note were kept.
	_, err = f.Write(text)
	return errors.Join(err, f.Sync(), f.Close())
}
