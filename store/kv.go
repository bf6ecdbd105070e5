package store

import "github.com/erlsext/sext/store/seam"

// The seam between the term store and the engine that keeps its bytes
// lives in package seam, which backends import without importing this
// package. Its names are re-exported here, so that callers of the store
// need only this package: store.KV is seam.KV, store.ErrNotFound is
// seam.ErrNotFound, and errors.Is sees no difference.

// KV is an ordered byte-key store: see seam.KV.
type KV = seam.KV

// Iter is a one-directional cursor: see seam.Iter.
type Iter = seam.Iter

// WriteBatch collects writes that commit atomically: see seam.WriteBatch.
type WriteBatch = seam.WriteBatch

// StatsKV is implemented by backends that can describe themselves.
type StatsKV = seam.StatsKV

// WarningsKV is implemented by backends that keep warnings met at open.
type WarningsKV = seam.WarningsKV

// Stats describes a store for people: see seam.Stats.
type Stats = seam.Stats

// CorruptError reports corrupt data in one file of a store.
type CorruptError = seam.CorruptError
