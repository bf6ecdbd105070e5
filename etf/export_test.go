package etf

import "github.com/erlsext/sext/term"

// InternalHash exposes OTP 25's make_internal_hash(T, 0) for the tests,
// and KeysHashable whether this package can compute the hash of every key
// of a map.
var (
	InternalHash = func(t term.Term) uint32 { return internalHash(hashSalt, t) }
	KeysHashable = func(m term.Term) bool { return hashableKeys(m.Entries(), 1000) }
)
