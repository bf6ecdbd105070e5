package store

// Classify exposes classify to the external tests.
var Classify = classify

// KV returns the store's backend, for tests that write raw bytes (a key
// that is not a sext encoding) under a Store.
func (s *Store) KV() KV { return s.kv }
