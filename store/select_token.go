package store

import (
	"encoding/hex"
	"errors"
)

var (
	// ErrToken: a continuation token is not one (mistyped, cut short, or
	// from another program).
	ErrToken = errors.New("store: malformed continuation token")
	// ErrTokenMismatch: a continuation token belongs to another match
	// specification, or to a select in the other direction.
	ErrTokenMismatch = errors.New("store: continuation token is for another select")
)

// selectTokens are Select's continuation tokens, "s1.", made by a match
// specification.
var selectTokens = &tokenFormat{
	prefix: "s1.", bad: ErrToken, mismatch: ErrTokenMismatch, made: "the match specification",
	direction: func(rev bool) string {
		if rev {
			return "it resumes a reverse select"
		}
		return "it resumes a forward select"
	},
}

func encodeToken(specID string, reverse bool, key []byte) string {
	return selectTokens.encode(specIDBytes(specID), reverse, key)
}

func decodeToken(tok, specID string, reverse bool) ([]byte, error) {
	return selectTokens.decode(tok, specIDBytes(specID), reverse)
}

// specIDBytes is a specification's identity, always 16 hex digits, as
// bytes.
func specIDBytes(id string) (b [8]byte) {
	hex.Decode(b[:], []byte(id))
	return b
}
