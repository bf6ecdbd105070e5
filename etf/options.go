package etf

import (
	"github.com/erlsext/sext/term"
)

// DefaultMaxDepth is the nesting limit when Options.MaxDepth is 0: tuples,
// lists and maps inside one another. It is term.DefaultMaxDepth, the term
// model's limit.
const DefaultMaxDepth = term.DefaultMaxDepth

// DefaultMaxInflate is the most a compressed term may inflate to when
// Options.MaxInflate is 0: 64 MiB.
const DefaultMaxInflate = 64 << 20

// DefaultMaxInflateRatio is the most a compressed term may inflate to, as
// a multiple of its own length in bytes, when Options.MaxInflateRatio is
// 0. Deflate reaches 1,032 times on a run of one byte, and decoding
// allocates up to 42 bytes for each byte inflated, so without a ratio
// 66 KB of input could claim 64 MiB and cost gigabytes (8.1 GB, before
// this limit and the decoder's rework); real terms compress far less than
// 64 times.
const DefaultMaxInflateRatio = 64

// InflateFloor is what a compressed term may always inflate to, within
// MaxInflate, whatever its length and ratio: 1 MiB, so that a small term
// of long runs of one value (a string of one character, a binary of
// zeros), which deflate shrinks a thousandfold, still decodes.
const InflateFloor = 1 << 20

// DefaultCompression is the zlib level of term_to_binary's plain
// compressed option, {compressed, 6}.
const DefaultCompression = 6

// Options configures encoding and decoding. The zero value writes what
// term_to_binary(T) writes on OTP 25 and reads what OTP 25 and 26 write;
// the package-level functions use it.
//
//	b, err := etf.Options{Compression: etf.DefaultCompression}.Append(nil, t)
//	b, err = etf.OTP26.Append(nil, t)
//	t, err = etf.Options{MaxDepth: 100}.Decode(b)
type Options struct {
	// FloatText writes floats as FLOAT_EXT text, term_to_binary's
	// {minor_version, 0}. Encoding only.
	FloatText bool

	// UTF8Atoms writes every atom as UTF-8 (SMALL_ATOM_UTF8_EXT, or
	// ATOM_UTF8_EXT beyond 255 bytes), term_to_binary's
	// {minor_version, 2} and OTP 26's default. Without it an atom whose
	// characters are all Latin-1 is written as ATOM_EXT, as OTP 25 does.
	// Encoding only.
	UTF8Atoms bool

	// Compression is term_to_binary's {compressed, Level}: 0 writes no
	// compression; 1 to 9 is the zlib level (DefaultCompression is plain
	// compressed). As erts does, the compressed form is written only when
	// it is shorter. Encoding only.
	Compression int

	// MaxDepth limits nesting; 0 means DefaultMaxDepth. Encoding and
	// decoding. Encoding, which recurses, never goes past
	// term.MaxDepthCeiling whatever MaxDepth says; decoding, on an explicit
	// stack, follows MaxDepth.
	MaxDepth int

	// MaxInflate bounds what a compressed term may inflate to, in bytes;
	// 0 means DefaultMaxInflate. A larger size claim fails with ErrSize
	// before anything is inflated. Decoding only.
	MaxInflate int

	// MaxInflateRatio bounds what a compressed term may inflate to, as a
	// multiple of its length in bytes (the tag, size and zlib stream);
	// 0 means DefaultMaxInflateRatio, and a negative value leaves only
	// MaxInflate. A term may always inflate to InflateFloor bytes, up to
	// MaxInflate. The claim is checked against the whole input before
	// anything is inflated, and against the term's own bytes, once its
	// stream has ended, before what it inflated to is decoded, so that
	// what follows the term (DecodeNext) cannot raise the limit; either
	// failure is ErrSize. Decoding only.
	MaxInflateRatio int
}

// OTP26 writes what term_to_binary(T) writes on OTP 26 and later: every
// atom as UTF-8 (minor_version 2).
var OTP26 = Options{UTF8Atoms: true}

// WithMinorVersion returns o set for term_to_binary's {minor_version, v}:
// 0 for FLOAT_EXT floats, 1 (OTP 25's default) or 2 (OTP 26's) for
// NEW_FLOAT_EXT floats, with UTF-8 atoms for 2. It returns o unchanged and
// false for any other v.
func (o Options) WithMinorVersion(v int) (Options, bool) {
	switch v {
	case 0:
		o.FloatText, o.UTF8Atoms = true, false
	case 1:
		o.FloatText, o.UTF8Atoms = false, false
	case 2:
		o.FloatText, o.UTF8Atoms = false, true
	default:
		return o, false
	}
	return o, true
}

func (o Options) maxDepth() int {
	if o.MaxDepth > 0 {
		return o.MaxDepth
	}
	return DefaultMaxDepth
}

func (o Options) maxInflate() int {
	if o.MaxInflate > 0 {
		return o.MaxInflate
	}
	return DefaultMaxInflate
}

// inflateLimit is the most a compressed term of n bytes may inflate to.
func (o Options) inflateLimit(n int) int {
	limit := o.maxInflate()
	r := o.MaxInflateRatio
	switch {
	case r < 0:
		return limit
	case r == 0:
		r = DefaultMaxInflateRatio
	}
	if n > limit/r { // r*n is over the limit, or would overflow
		return limit
	}
	return min(limit, max(InflateFloor, r*n))
}

// Append appends the external format of t, version byte first, to dst and
// returns the extended buffer, as term_to_binary(t) on OTP 25.
func Append(dst []byte, t term.Term) ([]byte, error) { return Options{}.Append(dst, t) }

// Encode returns the external format of t, as term_to_binary(t) on OTP 25.
func Encode(t term.Term) ([]byte, error) { return Options{}.Append(nil, t) }

// Encode returns the external format of t under o.
func (o Options) Encode(t term.Term) ([]byte, error) { return o.Append(nil, t) }

// Decode reads the one term b holds, as binary_to_term(b).
func Decode(b []byte) (term.Term, error) { return Options{}.Decode(b) }

// DecodeNext reads the term at the front of b and returns it with the
// bytes that follow it.
func DecodeNext(b []byte) (term.Term, []byte, error) { return Options{}.DecodeNext(b) }
