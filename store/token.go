package store

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// A continuation token is where a Select or an IndexScan stopped, as text:
// its format's prefix, then the unpadded URL-safe base64 of a version byte
// (1), a flags byte (1: reverse), the 8-byte identity of what made it (a
// match specification, an index scan), the key it resumes after, and a
// CRC-32 (IEEE) of everything before it, so that a mistyped token is
// refused rather than resumed at a wrong place. Each kind has its own
// prefix, so that one is never taken for the other.
type tokenFormat struct {
	prefix        string
	minKey        int    // the least key a token may hold
	bad, mismatch error  // the sentinels its errors wrap
	made          string // what made it, as "made by THAT %x, not this one (%x)" says
	direction     func(reverse bool) string
}

const (
	tokenVersion = 1
	maxTokenKey  = 1 << 16 // far beyond any real key; bounds the work on junk
)

// encode returns the token resuming after key for id in that direction.
func (f *tokenFormat) encode(id [8]byte, reverse bool, key []byte) string {
	b := make([]byte, 0, 2+8+len(key)+4)
	var flags byte
	if reverse {
		flags = 1
	}
	b = append(b, tokenVersion, flags)
	b = append(b, id[:]...)
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return f.prefix + base64.RawURLEncoding.EncodeToString(b)
}

// decode returns the key tok resumes after, checking that tok was made by
// id in that direction. Errors wrap f.bad or f.mismatch; none panics,
// whatever tok holds.
func (f *tokenFormat) decode(tok string, id [8]byte, reverse bool) ([]byte, error) {
	if len(tok) < len(f.prefix) || tok[:len(f.prefix)] != f.prefix {
		return nil, fmt.Errorf("%w: does not start with %q", f.bad, f.prefix)
	}
	body := tok[len(f.prefix):]
	if base64.RawURLEncoding.DecodedLen(len(body)) > 2+8+maxTokenKey+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", f.bad, len(tok))
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: not base64 at character %d", f.bad, len(f.prefix)+int(ce))
		}
		return nil, fmt.Errorf("%w: %v", f.bad, err)
	}
	if len(b) < 2+8+f.minKey+4 {
		return nil, fmt.Errorf("%w: too short", f.bad)
	}
	n := len(b) - 4
	if crc32.ChecksumIEEE(b[:n]) != binary.BigEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: checksum does not match (mistyped or cut?)", f.bad)
	}
	if b[0] != tokenVersion || b[1]&^1 != 0 {
		return nil, fmt.Errorf("%w: unknown version %d", f.bad, b[0])
	}
	if got := [8]byte(b[2:10]); got != id {
		return nil, fmt.Errorf("%w: it was made by %s %x, not this one (%x)", f.mismatch, f.made, got, id)
	}
	if rev := b[1]&1 == 1; rev != reverse {
		return nil, fmt.Errorf("%w: %s", f.mismatch, f.direction(rev))
	}
	return b[10:n], nil
}
