package sext

import (
	"encoding/binary"
	"errors"

	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// Type tags, the first byte of every encoded term. Their order is the
// order of the types.
const (
	tagDesc   = 4
	tagNegBig = 8
	tagNeg4   = 9
	tagPos4   = 10
	tagPosBig = 11
	tagAtom   = 12
	tagRef    = 13
	tagPort   = 14
	tagPid    = 15
	tagTuple  = 16
	tagList   = 17
	tagBinary = 18

	// Markers inside a list, after its elements. A map is a list tag
	// followed by markMap, which no list can start with.
	markImproper = 1
	markMap      = 1
	markEnd      = 2
	markBitTail  = 19

	// portLong marks a port id of 2^28 or more, written in 64 bits.
	portLong = 16
)

// encoder keeps of Options only what encoding reads, field by field:
// copying the whole struct in cost more than the rest of a short key.
type encodeState struct {
	utf8Atoms bool // Options.UTF8Atoms
	legacy    bool // Options.Legacy
	maxDepth  int
	depth     int    // compounds open
	words     uint32 // the word count of the last negative bignum written
	framed    int    // bytes descending terms' framing added so far (frameDesc)

	// prefix makes the walk stop at the first wildcard, returning
	// errWildcard, for Prefix: what was written up to it is the prefix.
	prefix bool
	// partial and partialBits: a binary prefix that ended the walk left
	// its last unit's first partialBits bits in the top of partial, bits
	// that every match's next byte starts with (PrefixRange).
	partial     byte
	partialBits int
}

// encodeState reads o's fields one by one through a pointer. Options is too
// big for the compiler to keep in registers: passed by value, it was
// spilled a byte at a time and copied in wide words, a store-forwarding
// stall that cost a short key a third of its encoding time.
func (o *Options) encodeState() encodeState {
	return encodeState{utf8Atoms: o.UTF8Atoms, legacy: o.Legacy, maxDepth: encodeDepth(o.MaxDepth)}
}

// encodeDepth is Options.maxDepth of an Options whose MaxDepth is n.
func encodeDepth(n int) int {
	if n <= 0 {
		n = DefaultMaxDepth
	}
	return min(n, MaxDepthCeiling)
}

// errEncodeDepth: the decoders would refuse what the encoder wrote, and
// the encoder's recursion is bounded too.
var errEncodeDepth = &EncodeError{Err: ErrDepth, Detail: "term nested deeper than MaxDepth"}

// errWildcard ends a prefix walk at its first wildcard. It travels up as
// an error does, so the walk needs no test of its own after each element,
// and AppendPrefix turns it into success.
var errWildcard = errors.New("sext: wildcard (internal)")

func isCompound(k term.Kind) bool {
	return k == term.KindTuple || k == term.KindList || k == term.KindMap || k == term.KindDesc
}

// appendTerm writes t, the commonest leaf first.
func (e *encodeState) appendTerm(dst []byte, t term.Term) ([]byte, error) {
	if t.IsInt64() {
		if v := t.Int64(); v >= 0 && v <= max31 {
			return binary.BigEndian.AppendUint32(append(dst, tagPos4), uint32(v)<<1), nil
		}
	}
	k := t.Kind() // once: it is a computation
	if isCompound(k) {
		return e.appendCompound(dst, t, k)
	}
	return e.appendLeaf(dst, t, k)
}

// appendCompound writes a tuple, list, map or Desc. Every way out passes
// its end, where the depth it counted is given back. Tuples' and lists'
// elements are written as appendTerm would, in their loops, so that a
// nested compound costs one call a level, not two: deep terms pay every
// frame.
func (e *encodeState) appendCompound(dst []byte, t term.Term, k term.Kind) (_ []byte, err error) {
	if e.depth >= e.maxDepth {
		return dst, errEncodeDepth
	}
	e.depth++
walk:
	switch k {
	case term.KindTuple:
		elems := t.Elems()
		dst = binary.BigEndian.AppendUint32(append(dst, tagTuple), uint32(len(elems)))
		for _, x := range elems {
			// appendTerm's fast path, again in each loop: as a function
			// it does not inline.
			if x.IsInt64() {
				if v := x.Int64(); v >= 0 && v <= max31 {
					dst = binary.BigEndian.AppendUint32(append(dst, tagPos4), uint32(v)<<1)
					continue
				}
			}
			if k := x.Kind(); isCompound(k) {
				dst, err = e.appendCompound(dst, x, k)
			} else {
				dst, err = e.appendLeaf(dst, x, k)
			}
			if err != nil {
				break walk
			}
		}
	case term.KindList:
		dst = append(dst, tagList)
		for _, x := range t.Elems() {
			if x.IsInt64() {
				if v := x.Int64(); v >= 0 && v <= max31 {
					dst = binary.BigEndian.AppendUint32(append(dst, tagPos4), uint32(v)<<1)
					continue
				}
			}
			if k := x.Kind(); isCompound(k) {
				dst, err = e.appendCompound(dst, x, k)
			} else {
				dst, err = e.appendLeaf(dst, x, k)
			}
			if err != nil {
				break walk
			}
		}
		if t.IsProper() {
			dst = append(dst, markEnd)
			break
		}
		switch tail := t.Tail(); {
		case tail.Kind() == term.KindBinary, tail.Kind() == term.KindBinaryPrefix:
			// A binary prefix stands for binaries: their marker.
			dst, err = e.appendTerm(append(dst, markBitTail), tail)
		case e.prefix && IsWildcard(tail):
			// A wildcard tail matches proper lists too: no marker is
			// common to every match.
			err = errWildcard
		default:
			dst, err = e.appendTerm(append(dst, markImproper), tail)
		}
	case term.KindMap:
		// In key order, as term.Map keeps them; a prefix runs to the first
		// wildcard key or value (the reference takes no maps in patterns).
		entries := t.Entries()
		dst = binary.BigEndian.AppendUint32(append(dst, tagList, markMap), uint32(len(entries)))
		for _, x := range entries {
			if dst, err = e.appendTerm(dst, x.Key); err != nil {
				break walk
			}
			if dst, err = e.appendTerm(dst, x.Value); err != nil {
				break walk
			}
		}
	default: // term.KindDesc
		dst, err = e.appendDesc(dst, t)
	}
	e.depth--
	return dst, err
}

// appendDesc writes a descending term, apart from appendCompound to keep
// that recursive function's frame small.
func (e *encodeState) appendDesc(dst []byte, t term.Term) ([]byte, error) {
	dst = append(dst, tagDesc)
	start, framed := len(dst), e.framed
	dst, err := e.appendTerm(dst, t.Inner())
	if err != nil && err != errWildcard {
		return dst, err
	}
	n := len(dst) - start
	dst, ferr := e.frameDesc(dst, start, framed)
	if ferr != nil {
		return dst, ferr
	}
	if err != nil {
		// A prefix ends inside: only the whole bytes of the units are
		// common to every match, the rest of the last one mixes with
		// what follows, and so do a binary prefix's bits left over.
		dst = dst[:start+n+n/8]
		e.partialBits = 0
	}
	return dst, err
}

// maxDescFraming is the framing descending terms may add beyond
// descGrowth times what they frame, whatever the term.
const (
	descGrowth     = 16
	maxDescFraming = 1 << 20
)

// errDescFraming: each descending term frames its inner bytes in 9-bit
// units, an eighth more, so terms nested in one another grow the encoding
// by (9/8)^n: 170 levels of a one-byte term would take gigabytes.
var errDescFraming = &EncodeError{Err: ErrUnencodable, Detail: "descending terms nested so deep that their framing would grow the encoding past 16 times its content and 1 MiB"}

// frameDesc frames dst[start:], a descending term's inner bytes written
// when e.framed was framed, unless the framing of all descending terms in
// them would then exceed descGrowth times their content plus
// maxDescFraming: the bound that keeps nested descending terms' cost in
// proportion to the term, checked before the memory is taken.
func (e *encodeState) frameDesc(dst []byte, start, framed int) ([]byte, error) {
	n := len(dst) - start
	content := n - (e.framed - framed) // the inner bytes without their descending terms' framing
	add := frameLen(n) - n
	if n+add > descGrowth*content+maxDescFraming {
		return dst, errDescFraming
	}
	e.framed += add
	return frameTail(dst, start, 8*n, true), nil
}

func (e *encodeState) appendLeaf(dst []byte, t term.Term, k term.Kind) ([]byte, error) {
	switch k {
	case term.KindInt:
		m, neg := intMagnitude(t)
		return e.appendInt(dst, m, neg)
	case term.KindAtom:
		name := t.Atom()
		if e.prefix && isWildName(name) {
			return dst, errWildcard
		}
		if len(name) < 8 && isASCII(name) { // the same bytes in Latin-1 and UTF-8
			return appendShortFrame(append(dst, tagAtom), name), nil
		}
		return e.appendAtom(append(dst, tagAtom), name)
	case term.KindBinary:
		if shortWhole(t) {
			return appendShortFrame(append(dst, tagBinary), t.Bytes()), nil
		}
		return appendFrame(append(dst, tagBinary), t.Bytes(), t.BitLen(), false), nil
	case term.KindFloat:
		return e.appendFloat(dst, t.Float())
	case term.KindBinaryPrefix:
		if !e.prefix {
			return dst, &EncodeError{Err: ErrUnencodable, Detail: "a binary prefix is a pattern, not a term: Prefix, PrefixRange and the matchers take it"}
		}
		return e.appendBinaryPrefix(dst, t.BinaryPrefix())
	case term.KindPid:
		p := t.Pid()
		dst, err := appendNode(append(dst, tagPid), p.Node)
		if err != nil {
			return dst, err
		}
		dst = binary.BigEndian.AppendUint32(dst, p.ID)
		dst = binary.BigEndian.AppendUint32(dst, p.Serial)
		return appendCreation(dst, p.Creation), nil
	case term.KindPort:
		p := t.Port()
		dst, err := appendNode(append(dst, tagPort), p.Node)
		if err != nil {
			return dst, err
		}
		if p.ID < 1<<28 {
			return appendCreation(binary.BigEndian.AppendUint32(dst, uint32(p.ID)), p.Creation), nil
		}
		// The reference's decoder reads this long form (its encoder
		// writes the creation without its 255 marker, and cannot read
		// that back).
		dst = binary.BigEndian.AppendUint64(append(dst, portLong), p.ID)
		return binary.BigEndian.AppendUint32(append(dst, 0xFF), p.Creation), nil
	case term.KindRef:
		r := t.Ref()
		if len(r.IDs) == 0 {
			return dst, &EncodeError{Err: ErrUnencodable, Detail: "reference without ids"}
		}
		dst, err := appendNode(append(dst, tagRef), r.Node)
		if err != nil {
			return dst, err
		}
		start := len(dst)
		dst = appendCreation(dst, r.Creation)
		for _, id := range r.IDs {
			dst = binary.BigEndian.AppendUint32(dst, id)
		}
		return frameTail(dst, start, 8*(len(dst)-start), false), nil
	}
	return dst, &EncodeError{Err: ErrUnencodable, Detail: "unknown kind " + t.Kind().String()}
}

// appendBinaryPrefix ends a prefix walk at <<p, _/binary>>: every binary
// that starts with p begins with the 9 bits of each of p's units, so the
// prefix is their whole bytes, and the bits left over go to partial.
func (e *encodeState) appendBinaryPrefix(dst []byte, p []byte) ([]byte, error) {
	start := len(dst) + 1
	dst = appendFrame(append(dst, tagBinary), p, 8*len(p), false)
	whole, k := 9*len(p)/8, 9*len(p)%8
	e.partial, e.partialBits = dst[start+whole]&^(0xFF>>k), k
	return dst[:start+whole], errWildcard
}

// appendAtom frames the atom's name in the atom encoding: Latin-1 (one
// byte a character, as the reference writes) or UTF-8.
func (e *encodeState) appendAtom(dst []byte, name string) ([]byte, error) {
	start := len(dst)
	if e.utf8Atoms {
		if !utf8.ValidString(name) {
			return dst, &EncodeError{Err: ErrUnencodable, Detail: "atom is not valid UTF-8"}
		}
		dst = append(dst, name...)
	} else {
		var ok bool
		if dst, ok = appendLatin1(dst, name); !ok {
			return dst[:start], &EncodeError{Err: ErrUnencodable,
				Detail: "atom " + quote(name) + " has a character beyond Latin-1 (use UTF8Atoms)"}
		}
	}
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}

// appendLatin1 appends the UTF-8 text s in Latin-1, a byte a character,
// or reports false for a character beyond Latin-1 or bytes not UTF-8.
func appendLatin1(dst []byte, s string) ([]byte, bool) {
	if isASCII(s) { // the same bytes
		return append(dst, s...), true
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r > 0xFF || r == utf8.RuneError && n == 1 {
			return dst, false
		}
		dst = append(dst, byte(r))
		i += n
	}
	return dst, true
}

// appendShortFrame frames fewer than eight whole bytes, the names and
// short binaries of most keys, without frameTail's general case: the n
// units fill 9n bits of n+1 bytes, the padding the rest, and an end byte
// of 8 follows.
func appendShortFrame[S string | []byte](dst []byte, s S) []byte {
	n := len(s)
	if n == 0 {
		return append(dst, emptyFrame)
	}
	units, _ := shortUnits(s)
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, units<<(64-9*n))
	return append(dst[:start+n+1], 8)
}

// shortUnits returns the units of s, fewer than eight bytes, in the low
// 9·len(s) bits, and the bytes ORed together, which say whether s is
// ASCII without a second pass.
func shortUnits[S string | []byte](s S) (units uint64, or byte) {
	for i := range len(s) {
		or |= s[i]
		units = units<<9 | 0x100 | uint64(s[i])
	}
	return units, or
}

// shortWhole reports whether appendShortFrame may write the binary t:
// fewer than eight whole bytes.
func shortWhole(t term.Term) bool { n := t.BitLen(); return n < 64 && n&7 == 0 }

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendNode frames a node name in Latin-1, whatever the atom encoding:
// the reference takes the name from term_to_binary, which OTP 25 writes in
// Latin-1 wherever Latin-1 holds it, and its decoder reads the bytes back
// as Latin-1. A name beyond Latin-1 it would read back as other
// characters, so it is refused.
func appendNode(dst []byte, node string) ([]byte, error) {
	start := len(dst)
	dst, ok := appendLatin1(dst, node)
	if !ok {
		return dst[:start], &EncodeError{Err: ErrUnencodable,
			Detail: "node name " + quote(node) + " has a character beyond Latin-1"}
	}
	return frameTail(dst, start, 8*(len(dst)-start), false), nil
}

// appendCreation writes a creation: one byte up to 3, else 255 and 32 bits.
func appendCreation(dst []byte, c uint32) []byte {
	if c <= 3 {
		return append(dst, byte(c))
	}
	return binary.BigEndian.AppendUint32(append(dst, 0xFF), c)
}

// quote returns an atom's name as Erlang text for an error message, its
// first 64 bytes or fewer and "…" if longer: atoms built in code may be of
// any length, and an error message should not be.
func quote(s string) string {
	if len(s) > 64 {
		n := 64
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return term.Atom(s).String()
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
