// Package etf reads and writes Erlang's External Term Format, the bytes of
// erlang:term_to_binary and erlang:binary_to_term, for every term the term
// package models.
//
// Encoding is byte-identical with term_to_binary on Erlang/OTP 25 by
// default (minor_version 1: NEW_FLOAT_EXT floats, Latin-1 atoms as
// ATOM_EXT, UTF-8 ones as SMALL_ATOM_UTF8_EXT), with options for what
// term_to_binary's options change: minor_version 0 and 2, compression, and
// OTP 26's defaults. A map of more than 32 keys is a hash trie (HAMT) in
// erts, which term_to_binary writes in the trie's order: this package
// computes erts's internal hash of keys made of integers, floats,
// binaries, bitstrings, and lists, tuples and maps of those, and writes
// such maps in that order, as Debian's 64-bit OTP 25 does. A key that
// holds an atom, pid, port or reference cannot be placed, since erts
// hashes an atom by its index in the running VM's atom table and a pid,
// port or reference by its node's entry in that VM; a map of more than 32
// keys with any such key is written in map key order, which erts reads as
// the same map. So is one whose keys hold more than three maps of more
// than 32 keys one inside another's key, whose hashing would cost twice as
// much with each. Compressed terms cannot match either: their deflate stream
// comes from Go's compress/zlib rather than zlib (erts reads them, and this
// package reads erts's).
//
// Decoding reads everything OTP 25 and 26 write, including the older tags
// (FLOAT_EXT, SMALL_ATOM_EXT, PID_EXT, PORT_EXT, REFERENCE_EXT,
// NEW_REFERENCE_EXT) and compressed terms. Funs, exports, indexes into
// the writing VM's atom table and the distribution-only tags are an error
// wrapping ErrUnsupported. Every error
// is a *DecodeError with the byte offset of the failing item; decoding
// keeps its own stack, so a deep term costs heap and not goroutine stack,
// within a depth limit; every size claim is checked against the bytes that
// are left (the claims of all open compounds together), and a compressed
// term may inflate to at most Options.MaxInflateRatio times its own length
// (64 by default, or InflateFloor, 1 MiB) and Options.MaxInflate bytes. A
// decode allocates at most 40 bytes for each byte of input, or of a
// compressed term's inflated bytes, and 128 KiB more.
package etf
