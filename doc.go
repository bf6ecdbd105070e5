// Package sext encodes Erlang terms (package term) to bytes whose order is
// the terms' order, byte-compatible with Erlang's sext library, so that
// composite keys sort correctly in any ordered key-value store and can be
// shared with Erlang systems that use sext. A pattern whose wildcards ('_'
// and '$1', '$2', ...) lie to the right encodes to a byte prefix of every
// term that matches it, so a range scan finds exactly the candidates.
//
// # Start here
//
// Five calls cover most uses:
//
//   - [Encode] and [Append] write a term's bytes; Append appends to the
//     caller's buffer and allocates nothing when it has room.
//   - [Decode] reads the bytes back into a term that owns its memory.
//   - A [Decoder] (from [NewDecoder]) decodes in a loop with memory it
//     reuses: its term is valid until its next call, and [Decoder.Keep]
//     copies one out.
//   - [Marshal] and [Unmarshal] convert Go values (structs, integers,
//     strings, times, ...) to and from the same bytes, as encoding/json does
//     for JSON.
//   - [PrefixRange] turns a pattern into the half-open byte range
//     [lower, upper) of the keys that can match it: an iterator's bounds.
//
// Together:
//
//	key := term.Tuple(term.Atom("user"), term.Int(42), term.Binary([]byte("alice")))
//	buf, err := sext.Append(buf[:0], key) // 0 allocations into a reused buffer
//	t, err := sext.Decode(buf)            // {user,42,<<"alice">>}
//
//	dec := sext.NewDecoder(sext.Options{})
//	t, err = dec.Decode(buf) // 0 allocations once warm; valid until dec's next call
//
//	type User struct {
//		_    sext.Record `sext:"user"` // the tuple's first element, the atom user
//		ID   int64
//		Name string // a binary
//	}
//	b, err := sext.Marshal(User{ID: 42, Name: "alice"}) // the same bytes as buf
//	var u User
//	err = sext.Unmarshal(b, &u)
//
//	pattern := term.Tuple(term.Atom("user"), term.Int(42), term.Atom("_"))
//	lower, upper, err := sext.PrefixRange(pattern) // every key {user,42,...}
//
// # Patterns and keys read in place
//
// [Prefix], [AppendPrefix] and [PrefixEnd] give a pattern's bytes and the
// end of their range; [PartialDecode] turns a prefix back into a pattern;
// [Match] filters terms against a pattern and returns what its '$N' bound.
// Scans that read many keys need not decode them: [CompileMatch] gives a
// [Matcher] that answers on the encoded bytes, and a [View] reads one part
// of a key (an id, a name) in place; neither allocates to read or refuse a
// key.
//
// # Decoders
//
// Two decoders read the format: [DecodeRecursive], by direct recursion, and
// [DecodeCPS], a loop over an explicit stack of continuation frames, which
// never grows the goroutine stack. They give the same answer on every input.
// [Decode] reads small flat keys its own way and hands everything else to
// DecodeCPS. [DecodeNext] reads one term from the front of a stream of them.
//
// # Settings, text forms and errors
//
// [Options] holds every setting of every operation, each with a method of
// the package function's name; the zero Options is the reference
// implementation's behaviour and is what the package functions use.
// [Hex], [SB32] and [OrderedSB32] are the text forms of encoded bytes.
// Decoding errors are *[DecodeError], with the offset and a sentinel such as
// [ErrTruncated] for errors.Is; encoding errors are *[EncodeError];
// Marshal and Unmarshal name the Go field in theirs.
//
// # Go values
//
// Beside Marshal and Unmarshal, [AppendMarshal] appends to a buffer,
// [MarshalTerm] and [UnmarshalTerm] convert to and from a term, and a type
// takes over its own conversion with [Marshaler] and [Unmarshaler]. Struct
// tags choose the Erlang shape: a [Record] field names a record, "desc"
// makes a field sort descending, "atom", "charlist" and "tuple" pick the
// term a string or slice becomes.
//
// The byte format, and where this package departs from the reference, is
// described in docs/FORMAT.md. Package store keeps values under term keys in
// Pebble or etcd; package matchspec runs Erlang match specifications.
package sext
