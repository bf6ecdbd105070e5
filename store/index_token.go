package store

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Index scan tokens have the layout of Select's (branch select, store/
// select.go), with their own prefix so that one is never taken for the
// other: "i1." and the unpadded URL-safe base64 of a version byte (1), a
// flags byte (1: reverse), the scan's 8-byte identity (scanID), the
// index entry's key, and a CRC-32 (IEEE) of everything before it.
const (
	indexTokenPrefix  = "i1."
	indexTokenVersion = 1
	maxIndexTokenKey  = 1 << 16 // far beyond any real entry; bounds the work on junk
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

func encodeIndexToken(id uint64, reverse bool, key []byte) string {
	b := make([]byte, 0, 2+8+len(key)+4)
	var flags byte
	if reverse {
		flags = 1
	}
	b = append(b, indexTokenVersion, flags)
	b = binary.BigEndian.AppendUint64(b, id)
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return indexTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeIndexToken returns the entry key tok resumes after, checking it
// belongs to the scan id in that direction. Errors wrap ErrIndexToken or
// ErrIndexTokenMismatch; none panics, whatever tok holds.
func decodeIndexToken(tok string, id uint64, reverse bool) ([]byte, error) {
	body, ok := bytes.CutPrefix([]byte(tok), []byte(indexTokenPrefix))
	if !ok {
		return nil, fmt.Errorf("%w: does not start with %q", ErrIndexToken, indexTokenPrefix)
	}
	if base64.RawURLEncoding.DecodedLen(len(body)) > 2+8+maxIndexTokenKey+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", ErrIndexToken, len(tok))
	}
	b := make([]byte, base64.RawURLEncoding.DecodedLen(len(body)))
	n, err := base64.RawURLEncoding.Decode(b, body)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: not base64 at character %d", ErrIndexToken, len(indexTokenPrefix)+int(ce))
		}
		return nil, fmt.Errorf("%w: %v", ErrIndexToken, err)
	}
	b = b[:n]
	if len(b) < 2+8+1+4 {
		return nil, fmt.Errorf("%w: too short", ErrIndexToken)
	}
	n = len(b) - 4
	if crc32.ChecksumIEEE(b[:n]) != binary.BigEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: checksum does not match (mistyped or cut?)", ErrIndexToken)
	}
	if b[0] != indexTokenVersion || b[1]&^1 != 0 {
		return nil, fmt.Errorf("%w: unknown version %d", ErrIndexToken, b[0])
	}
	if got := binary.BigEndian.Uint64(b[2:10]); got != id {
		return nil, fmt.Errorf("%w: it was made by scan %016x, not this one (%016x)", ErrIndexTokenMismatch, got, id)
	}
	if rev := b[1]&1 == 1; rev != reverse {
		return nil, fmt.Errorf("%w: it was made by a scan in the other direction", ErrIndexTokenMismatch)
	}
	return b[10:n], nil
}
