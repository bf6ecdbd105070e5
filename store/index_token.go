package store

import (
	"encoding/binary"
	"errors"
)

var (
	// ErrIndexToken: a continuation token for an index scan is not one
	// (mistyped, cut short, or from another program).
	ErrIndexToken = errors.New("store: malformed index continuation token")
	// ErrIndexTokenMismatch: the token belongs to another index scan (an
	// index, value pattern or range of its own) or to the other
	// direction.
	ErrIndexTokenMismatch = errors.New("store: continuation token is for another index scan")
)

// indexTokens are IndexScan's continuation tokens, "i1.", made by an
// index scan (its scanID); they always hold a key.
var indexTokens = &tokenFormat{
	prefix: "i1.", minKey: 1, bad: ErrIndexToken, mismatch: ErrIndexTokenMismatch, made: "scan",
	direction: func(bool) string { return "it was made by a scan in the other direction" },
}

func encodeIndexToken(id uint64, reverse bool, key []byte) string {
	return indexTokens.encode(scanIDBytes(id), reverse, key)
}

func decodeIndexToken(tok string, id uint64, reverse bool) ([]byte, error) {
	return indexTokens.decode(tok, scanIDBytes(id), reverse)
}

func scanIDBytes(id uint64) (b [8]byte) {
	binary.BigEndian.PutUint64(b[:], id)
	return b
}
