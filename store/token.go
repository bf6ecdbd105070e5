package store

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// Continuation tokens: where a Select or an IndexScan stopped, as text.
// One format serves both: a prefix naming the kind ("s1." for a select,
// "i1." for an index scan), then the unpadded URL-safe base64 of a
// version byte (1), a flags byte (1: reverse), the 8-byte identity of
// what made it (a match specification, an index scan's byte range), the
// key it resumes after, and a CRC-32 (IEEE) of everything before it, so
// that a mistyped token is refused rather than resumed at a wrong place.

var (
	// ErrToken: a continuation token is not one (mistyped, cut short, or
	// from another program).
	ErrToken = errors.New("store: malformed continuation token")
	// ErrTokenMismatch: a continuation token is well formed but resumes
	// something else: another match specification, index or value
	// pattern, the other direction, or another kind of read (a select's
	// token given to an index scan).
	ErrTokenMismatch = errors.New("store: continuation token is for another read")
)

// tokenFormat is one kind of token.
type tokenFormat struct {
	prefix    string
	minKey    int    // the least key a token may hold
	made      string // what made it, as "made by THAT %x, not this one (%x)" says
	direction func(reverse bool) string
}

const (
	tokenVersion = 1
	maxTokenKey  = 1 << 16 // far beyond any real key; bounds the work on junk
)

// selectTokens are Select's, made by a match specification.
var selectTokens = &tokenFormat{
	prefix: "s1.", made: "the match specification",
	direction: func(rev bool) string {
		if rev {
			return "it resumes a reverse select"
		}
		return "it resumes a forward select"
	},
}

// indexTokens are IndexScan's, made by an index scan (its scanID); they
// always hold a key.
var indexTokens = &tokenFormat{
	prefix: "i1.", minKey: 1, made: "the index scan",
	direction: func(bool) string { return "it was made by a scan in the other direction" },
}

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
// id in that direction. Errors wrap ErrToken or ErrTokenMismatch; none
// panics, whatever tok holds.
func (f *tokenFormat) decode(tok string, id [8]byte, reverse bool) ([]byte, error) {
	if !strings.HasPrefix(tok, f.prefix) {
		// Another kind's prefix is a token given to the wrong read;
		// anything else is no token at all.
		if p, ok := tokenPrefix(tok); ok {
			return nil, fmt.Errorf("%w: it starts with %q, not %q", ErrTokenMismatch, p, f.prefix)
		}
		return nil, fmt.Errorf("%w: does not start with %q", ErrToken, f.prefix)
	}
	body := tok[len(f.prefix):]
	if base64.RawURLEncoding.DecodedLen(len(body)) > 2+8+maxTokenKey+4 {
		return nil, fmt.Errorf("%w: %d characters is too long", ErrToken, len(tok))
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%w: not base64 at character %d", ErrToken, len(f.prefix)+int(ce))
		}
		return nil, fmt.Errorf("%w: %v", ErrToken, err)
	}
	if len(b) < 2+8+f.minKey+4 {
		return nil, fmt.Errorf("%w: too short", ErrToken)
	}
	n := len(b) - 4
	if crc32.ChecksumIEEE(b[:n]) != binary.BigEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: checksum does not match (mistyped or cut?)", ErrToken)
	}
	if b[0] != tokenVersion || b[1]&^1 != 0 {
		return nil, fmt.Errorf("%w: unknown version %d", ErrToken, b[0])
	}
	if got := [8]byte(b[2:10]); got != id {
		return nil, fmt.Errorf("%w: it was made by %s %x, not this one (%x)", ErrTokenMismatch, f.made, got, id)
	}
	if rev := b[1]&1 == 1; rev != reverse {
		return nil, fmt.Errorf("%w: %s", ErrTokenMismatch, f.direction(rev))
	}
	return b[10:n], nil
}

// tokenPrefix returns tok's prefix if it has the shape of one: lower-case
// letters, a version number and a dot ("s1.").
func tokenPrefix(tok string) (string, bool) {
	i := 0
	for i < len(tok) && i < 8 && 'a' <= tok[i] && tok[i] <= 'z' {
		i++
	}
	j := i
	for j < len(tok) && j < 12 && '0' <= tok[j] && tok[j] <= '9' {
		j++
	}
	if i == 0 || j == i || j == len(tok) || tok[j] != '.' {
		return "", false
	}
	return tok[:j+1], true
}

func encodeToken(specID string, reverse bool, key []byte) string {
	return selectTokens.encode(specIDBytes(specID), reverse, key)
}

func decodeToken(tok, specID string, reverse bool) ([]byte, error) {
	return selectTokens.decode(tok, specIDBytes(specID), reverse)
}

func encodeIndexToken(id uint64, reverse bool, key []byte) string {
	return indexTokens.encode(scanIDBytes(id), reverse, key)
}

func decodeIndexToken(tok string, id uint64, reverse bool) ([]byte, error) {
	return indexTokens.decode(tok, scanIDBytes(id), reverse)
}

// specIDBytes is a specification's identity, always 16 hex digits, as
// bytes.
func specIDBytes(id string) (b [8]byte) {
	hex.Decode(b[:], []byte(id))
	return b
}

func scanIDBytes(id uint64) (b [8]byte) {
	binary.BigEndian.PutUint64(b[:], id)
	return b
}
