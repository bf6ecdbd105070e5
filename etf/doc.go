// Package etf reads and writes Erlang's External Term Format, the bytes of
// erlang:term_to_binary and erlang:binary_to_term, for every term the term
// package models.
//
// Encoding is byte-identical with term_to_binary on Erlang/OTP 25 by
// default (minor_version 1: NEW_FLOAT_EXT floats, Latin-1 atoms as
// ATOM_EXT, UTF-8 ones as SMALL_ATOM_UTF8_EXT), with options for what
// term_to_binary's options change: minor_version 0 and 2, compression, and
// OTP 26's defaults. Two things cannot match erts byte for byte: a map of
// more than 32 keys, which erts writes in its internal hash order and this
// package in map key order, and compressed terms, whose deflate stream
// comes from Go's compress/zlib rather than zlib (erts reads them, and
// this package reads erts's).
//
// Decoding reads everything OTP 25 and 26 write, including the older tags
// (FLOAT_EXT, SMALL_ATOM_EXT, PID_EXT, PORT_EXT, REFERENCE_EXT,
// NEW_REFERENCE_EXT) and compressed terms. Funs, exports and the
// distribution-only tags are an error wrapping ErrUnsupported. Every error
// is a *DecodeError with the byte offset of the failing item; decoding
// keeps its own stack, so a deep term costs heap and not goroutine stack,
// within a depth limit; every size claim is checked against the bytes that
// are left, and a compressed term may inflate to at most
// Options.MaxInflate bytes.
package etf
