package store

// Continuation tokens: where a select stopped, as text.

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
)

var (
	// ErrToken: a continuation token is not one (mistyped, cut short, or
	// from another program).
	ErrToken = errors.New("store: malformed continuation token")
	// ErrTokenMismatch: a continuation token belongs to another match
	// specification, or to a select in the other direction.
	ErrTokenMismatch = errors.New("store: continuation token is for another select")
)

// A token is "s1." and the unpadded URL-safe base64 of: a version byte
// (1), a flags byte (1: reverse), the spec's 8-byte identity, the key
// bytes, and a CRC-32 (IEEE) of everything before it, so that a mistyped
// token is refused rather than resumed at a wrong place.
const (
	tokenPrefix  = "s1."
	tokenVersion = 1
	maxTokenKey  = 1 << 16 // far beyond any real key; bounds the work on junk
)

func encodeToken(specID string, reverse bool, key []byte) string {
	b := make([]byte, 0, 2+8+len(key)+4)
	var flags byte
	if reverse {
		flags = 1
	}
	b = append(b, tokenVersion, flags)
	b = appendSpecID(b, specID)
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func appendSpecID(b []byte, id string) []byte {
	raw, _ := hex.DecodeString(id) // an ID is always 16 hex digits
	return append(b, raw...)
}

func decodeToken(tok, specID string, reverse bool) ([]byte, error) {
	if len(tok) < len(tokenPrefix) || tok[:len(tokenPrefix)] != tokenPrefix {
		return nil, fmt.Errorf("%w: does not start with %q", ErrToken, tokenPrefix)
	}
	body := tok[len(tokenPrefix):]
	if base64.RawURLEncoding.DecodedLen(len(body)) > 2+8+maxTokenKey+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", ErrToken, len(tok))
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: not base64 at character %d", ErrToken, len(tokenPrefix)+int(ce))
		}
		return nil, fmt.Errorf("%w: %v", ErrToken, err)
	}
	if len(b) < 2+8+4 {
		return nil, fmt.Errorf("%w: too short", ErrToken)
	}
	n := len(b) - 4
	if crc32.ChecksumIEEE(b[:n]) != binary.BigEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: checksum does not match (mistyped or cut?)", ErrToken)
	}
	if b[0] != tokenVersion || b[1]&^1 != 0 {
		return nil, fmt.Errorf("%w: unknown version %d", ErrToken, b[0])
	}
	if want := appendSpecID(nil, specID); !bytes.Equal(b[2:10], want) {
		return nil, fmt.Errorf("%w: it was made by the match specification %x, not this one (%s)", ErrTokenMismatch, b[2:10], specID)
	}
	if rev := b[1]&1 == 1; rev != reverse {
		dir := "a forward"
		if rev {
			dir = "a reverse"
		}
		return nil, fmt.Errorf("%w: it resumes %s select", ErrTokenMismatch, dir)
	}
	return b[10:n], nil
}
