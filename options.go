package sext

import "github.com/erlsext/sext/term"

// DefaultMaxDepth is the nesting limit when Options.MaxDepth is 0: tuples,
// lists, maps and descending terms inside one another. It is
// term.DefaultMaxDepth, the term model's limit.
const DefaultMaxDepth = term.DefaultMaxDepth

// MaxDepthCeiling is the most nesting the recursive paths take, whatever
// Options.MaxDepth says: Encode, Append, Prefix, Marshal, DecodeRecursive,
// PartialDecode, Unmarshal and the canonical check. A goroutine's stack
// survives it, race builds included (the depth tests hold it), as encoding/json's
// maxNestingDepth does for json. Only DecodeCPS, Decode and DecodeNext,
// which keep their continuations on the heap, go past it when MaxDepth
// asks; what they return deeper than this cannot be encoded again.
const MaxDepthCeiling = term.MaxDepthCeiling

// Options configures encoding, decoding and prefixes. The zero value
// writes and reads exactly what the reference implementation does; the
// package-level functions use it. Each field says which operations it
// affects.
//
//	b, err := sext.Options{UTF8Atoms: true}.Encode(t)
//	t, err := sext.Options{Canonical: true, MaxDepth: 100}.Decode(b)
type Options struct {
	// Legacy writes bignums in the pre-2013 layout, without a size prefix,
	// as the reference's encode/2 does with Legacy = true. Encoding only;
	// decoding always reads both layouts. Legacy bignums do not sort
	// correctly against each other: use it only to talk to old readers.
	Legacy bool

	// UTF8Atoms writes and reads atom names as UTF-8 instead of Latin-1.
	// The reference writes Latin-1, and in that mode an atom with a
	// character above U+00FF cannot be encoded. Encoding, decoding and
	// prefixes.
	UTF8Atoms bool

	// Canonical makes decoding accept only input that is exactly the
	// encoding of the term it returns, so that Encode(Decode(b)) == b:
	// no legacy bignums, no unsorted or repeated map keys, no alternative
	// forms of numbers, creations or sizes. Decoding only.
	Canonical bool

	// MaxDepth limits nesting when encoding, writing prefixes and
	// decoding; 0 means DefaultMaxDepth. The recursive paths never go past
	// MaxDepthCeiling.
	MaxDepth int
}

// maxDepth is the nesting limit of the recursive paths.
func (o Options) maxDepth() int { return min(o.maxDepthCPS(), MaxDepthCeiling) }

// maxDepthCPS is the nesting limit of the continuation decoder, which
// needs no ceiling: its stack is a slice, in proportion to the input.
func (o Options) maxDepthCPS() int {
	if o.MaxDepth > 0 {
		return o.MaxDepth
	}
	return DefaultMaxDepth
}
