// Package sext encodes Erlang terms (package term) to bytes whose order is
// the terms' order, byte-compatible with Erlang's sext library, so that
// composite keys sort correctly in any ordered key-value store and can be
// shared with Erlang systems that use sext.
//
// A pattern whose wildcards ('_' and '$1', '$2', ...) lie to the right
// encodes to a byte prefix of the encoding of every term that matches it:
// PrefixRange turns the pattern into iterator bounds, and Match filters what
// the scan finds.
//
//	key := term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice")))
//	b, err := sext.Append(buf[:0], key) // appends; no allocation when buf has room
//	back, err := sext.Decode(b)         // {user,42,<<"alice">>}
//
//	pattern := term.Tuple(term.Atom("user"), term.Int(42), term.Atom("_"))
//	lower, upper, err := sext.PrefixRange(pattern)
//
// Two decoders read the format: DecodeRecursive, by direct recursion, and
// DecodeCPS, a loop over an explicit stack of continuation frames. They give
// the same answer on every input; Decode uses DecodeCPS. Options holds the
// settings every operation shares; the zero Options is the reference
// implementation's behaviour. docs/FORMAT.md describes the bytes.
//
// Marshal, AppendMarshal and Unmarshal convert Go values (structs, numbers,
// strings, times, ...) to and from keys directly, as encoding/json does for
// JSON; MarshalTerm and UnmarshalTerm convert them to and from terms.
package sext
