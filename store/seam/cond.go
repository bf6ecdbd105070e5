package seam

import "errors"

// ReservedByte is the first byte of the keys a term store keeps for
// itself (its index definitions and index entries). No sext encoding
// starts with it (the format's tags are 4 and 8 to 18), and it sorts
// below every one, so the reserved keys form one range at the very start
// of the keyspace, [ReservedByte, ReservedByte+1), which a scan of all
// data steps over by starting at ReservedEnd.
const ReservedByte = 0x00

// ReservedEnd is the least key past the reserved range: the lower bound
// of every scan of data.
var ReservedEnd = []byte{ReservedByte + 1}

// ErrPrecondition: a conditional commit (CondBatch) found that one of its
// conditions no longer held, and wrote nothing.
var ErrPrecondition = errors.New("store: a condition of the write no longer holds; nothing was written")

// CondBatch is implemented by the write batches of backends that several
// processes may write at once (etcd): conditions that the commit checks
// atomically with its writes, as an etcd transaction's comparisons do. A
// backend that only one process can open (Pebble, which locks its
// directory) does not need it: the store serialises its own writers.
//
// When a condition fails, Commit writes nothing and returns an error
// wrapping ErrPrecondition.
type CondBatch interface {
	WriteBatch
	// RequireValue makes the commit depend on key holding exactly value;
	// a nil value means key must be absent.
	RequireValue(key, value []byte)
	// RequirePresent makes the commit depend on key being present, with
	// any value.
	RequirePresent(key []byte)
	// RequireAbsent makes the commit depend on key being absent.
	RequireAbsent(key []byte)
}
