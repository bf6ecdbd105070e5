package sext

import "github.com/erlsext/sext/term"

// DefaultMaxDepth is the nesting limit when Options.MaxDepth is 0: tuples,
// lists, maps and descending terms inside one another. It is
// term.DefaultMaxDepth, the term model's limit.
const DefaultMaxDepth = term.DefaultMaxDepth

// MaxDepthCeiling is the most nesting the recursive paths take, whatever
// Options.MaxDepth says: Encode, Append, Prefix, Marshal, DecodeRecursive,
// PartialDecode, Unmarshal and the canonical check. A goroutine's stack
// survives it, race builds included (depth_test.go), as encoding/json's
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

// Append appends the encoding of t to dst and returns the extended
// buffer. It allocates nothing when dst has room. On error it returns dst
// unchanged.
func Append(dst []byte, t term.Term) ([]byte, error) { return Options{}.Append(dst, t) }

// Encode returns the encoding of t, or nil and an error.
func Encode(t term.Term) ([]byte, error) { return Options{}.Append(nil, t) }

// Encode returns the encoding of t under o.
func (o Options) Encode(t term.Term) ([]byte, error) { return o.Append(nil, t) }

// Append appends the encoding of t under o to dst. On error it returns
// dst unchanged (bytes past its length, within its capacity, may have been
// written), so that no half-written term reaches the caller.
func (o Options) Append(dst []byte, t term.Term) ([]byte, error) {
	return o.appendKey(dst, t, false)
}

// settle is where every append-style entry point that can fail (Append,
// AppendPrefix, AppendMarshal, and through them Encode, Prefix and Marshal;
// Encoding.AppendDecode) drops what it wrote when it fails: the encoders
// find some errors only halfway through a term.
func settle(dst, out []byte, err error) ([]byte, error) {
	if err != nil {
		return dst, err
	}
	return out, nil
}

// Decode decodes b, which must hold exactly one term. A small flat key
// takes a path of its own with one allocation; anything else goes to
// DecodeCPS, which never grows the goroutine stack. The decoders give the
// same answers and, on most workloads, take the same time.
func Decode(b []byte) (term.Term, error) { return Options{}.Decode(b) }

// DecodeRecursive decodes b with the recursive decoder.
func DecodeRecursive(b []byte) (term.Term, error) { return Options{}.DecodeRecursive(b) }

// DecodeCPS decodes b with the explicit-continuation-stack decoder.
func DecodeCPS(b []byte) (term.Term, error) { return Options{}.DecodeCPS(b) }

// DecodeNext decodes the term at the front of b and returns it with the
// bytes that follow it.
func DecodeNext(b []byte) (term.Term, []byte, error) { return Options{}.DecodeNext(b) }

// Decode decodes b under o. A small flat key, such as {user, 42,
// <<"alice">>}, takes a path of its own with one allocation; anything
// else goes to DecodeCPS.
func (o Options) Decode(b []byte) (term.Term, error) {
	if t, ok := o.decodeFlat(b); ok {
		return t, nil
	}
	return o.DecodeCPS(b)
}

// DecodeRecursive decodes b under o with the recursive decoder.
func (o Options) DecodeRecursive(b []byte) (term.Term, error) {
	return o.decodeWhole(b, false)
}

// DecodeCPS decodes b under o with the continuation-stack decoder.
func (o Options) DecodeCPS(b []byte) (term.Term, error) {
	return o.decodeWhole(b, true)
}

// DecodeNext decodes the term at the front of b under o and returns it
// with the bytes that follow it.
func (o Options) DecodeNext(b []byte) (term.Term, []byte, error) {
	s := scratchPool.Get().(*scratchSpace)
	t, end, err := o.decodeIn(s, b, true, false, true)
	s.release()
	if err != nil {
		return term.Term{}, b, err
	}
	return t, b[end:], nil
}

func (o Options) decodeWhole(b []byte, cps bool) (term.Term, error) {
	s := scratchPool.Get().(*scratchSpace)
	t, _, err := o.decodeIn(s, b, cps, true, true)
	s.release()
	return t, err
}

// decodeIn decodes the term at the front of b with the scratch space s,
// with the continuation-stack decoder or the recursive one, and returns
// the offset after it; whole asks that nothing follow the term. A plain
// decode copies the term out of s's arena into memory of its own; a
// Decoder's term stays in the arena, to be overwritten by the next decode.
func (o Options) decodeIn(s *scratchSpace, b []byte, cps, whole, plain bool) (term.Term, int, error) {
	// Field by field: a composite literal is built aside and copied in
	// 16-byte moves over its 8- and 1-byte stores, a store-forwarding
	// stall on every decode.
	var d decoder
	d.buf, d.utf8, d.maxDepth, d.intLimit, d.scratchSpace = b, o.UTF8Atoms, o.maxDepth(), max(1<<16, len(b)), s
	if plain {
		d.useArena()
	} else {
		s.a.reset()
		s.a.direct = false
	}
	var t term.Term
	var end int
	var err error
	if cps {
		d.maxDepth = o.maxDepthCPS()
		t, end, err = d.valueCPS(0)
	} else {
		t, end, err = d.valueRecursive(0)
	}
	if err == nil && whole && end != len(b) {
		err = errAt(end, ErrTrailing, "")
	}
	if plain {
		t, err = d.keep(t, err)
	}
	if err == nil && o.Canonical {
		s.enc, err = o.checkCanonical(s.enc[:0], b[:end], t)
	}
	if err != nil {
		return term.Term{}, 0, err
	}
	return t, end, nil
}

// checkCanonical compares b with the encoding of the term it decoded to,
// which it appends to buf and returns for reuse.
func (o Options) checkCanonical(buf, b []byte, t term.Term) ([]byte, error) {
	enc, err := Options{UTF8Atoms: o.UTF8Atoms, MaxDepth: o.MaxDepth}.Append(buf, t)
	if err != nil {
		return buf, errAt(0, ErrCanonical, err.Error())
	}
	for i := range min(len(b), len(enc)) {
		if b[i] != enc[i] {
			return enc, errAt(i, ErrCanonical, "the encoder writes this term differently")
		}
	}
	if len(b) != len(enc) {
		return enc, errAt(min(len(b), len(enc)), ErrCanonical, "the encoder writes this term differently")
	}
	return enc, nil
}
