package etf

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

// Append appends the external format of t under o, version byte first, to
// dst. On error dst is returned as it was.
func (o Options) Append(dst []byte, t term.Term) ([]byte, error) {
	if o.Compression < 0 || o.Compression > 9 {
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "compression level " + strconv.Itoa(o.Compression) + " is not 0..9"}
	}
	start := len(dst)
	dst = append(dst, Version)
	// The encoder recurses: no MaxDepth takes it past the ceiling a
	// goroutine stack survives, as sext's encoder.
	e := encoder{o: o, maxDepth: min(o.maxDepth(), term.MaxDepthCeiling)}
	out, err := e.term(dst, t, 0)
	if err != nil {
		return dst[:start], err
	}
	if o.Compression > 0 {
		out = compress(out, start+1, o.Compression)
	}
	return out, nil
}

// The largest values of the small forms that erts chooses.
const (
	maxSmallPortID = 1<<28 - 1 // ports above it take V4_PORT_EXT, as OTP 25 writes
	maxStringLen   = 65535     // STRING_EXT's length is 16 bits
)

type encoder struct {
	o        Options
	maxDepth int
}

func (e *encoder) term(dst []byte, t term.Term, depth int) ([]byte, error) {
	switch t.Kind() {
	case term.KindInt:
		return appendInt(dst, t), nil
	case term.KindFloat:
		return e.float(dst, t.Float())
	case term.KindAtom:
		return e.atom(dst, t.Atom())
	case term.KindBinary:
		if uint64(t.Len()) > math.MaxUint32 {
			return dst, &EncodeError{Err: ErrUnencodable, Detail: "a binary of " + strconv.Itoa(t.Len()) + " bytes; the format's limit is 2^32-1"}
		}
		return appendBinary(dst, t), nil
	case term.KindPid:
		p := t.Pid()
		dst = append(dst, tagNewPid)
		dst, err := e.atom(dst, p.Node)
		if err != nil {
			return dst, err
		}
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(dst, p.ID), p.Serial), p.Creation), nil
	case term.KindPort:
		p := t.Port()
		tag := byte(tagNewPort)
		if p.ID > maxSmallPortID {
			tag = tagV4Port
		}
		dst, err := e.atom(append(dst, tag), p.Node)
		if err != nil {
			return dst, err
		}
		if tag == tagV4Port {
			dst = binary.BigEndian.AppendUint64(dst, p.ID)
		} else {
			dst = binary.BigEndian.AppendUint32(dst, uint32(p.ID))
		}
		return binary.BigEndian.AppendUint32(dst, p.Creation), nil
	case term.KindRef:
		r := t.Ref()
		if len(r.IDs) > math.MaxUint16 {
			return dst, &EncodeError{Err: ErrUnencodable, Detail: "a reference of " + strconv.Itoa(len(r.IDs)) + " id words"}
		}
		dst = binary.BigEndian.AppendUint16(append(dst, tagNewerReference), uint16(len(r.IDs)))
		dst, err := e.atom(dst, r.Node)
		if err != nil {
			return dst, err
		}
		dst = binary.BigEndian.AppendUint32(dst, r.Creation)
		for _, w := range r.IDs {
			dst = binary.BigEndian.AppendUint32(dst, w)
		}
		return dst, nil
	case term.KindDesc:
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "a Desc term has no external format"}
	}
	// Compound terms.
	if n := t.Len(); uint64(n) > math.MaxUint32 {
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "a " + t.Kind().String() + " of " + strconv.Itoa(n) + " elements; the format's limit is 2^32-1"}
	}
	if depth >= e.maxDepth {
		return dst, &EncodeError{Err: ErrDepth, Detail: "the term nests deeper than " + strconv.Itoa(e.maxDepth)}
	}
	var err error
	switch t.Kind() {
	case term.KindTuple:
		elems := t.Elems()
		if len(elems) <= math.MaxUint8 {
			dst = append(dst, tagSmallTuple, byte(len(elems)))
		} else {
			dst = binary.BigEndian.AppendUint32(append(dst, tagLargeTuple), uint32(len(elems)))
		}
		for _, x := range elems {
			if dst, err = e.term(dst, x, depth+1); err != nil {
				return dst, err
			}
		}
		return dst, nil
	case term.KindMap:
		es := t.Entries()
		if len(es) > flatmapLimit && hashableKeys(es, e.maxDepth-depth-1) {
			es = hamtOrder(es)
		}
		dst = binary.BigEndian.AppendUint32(append(dst, tagMap), uint32(len(es)))
		for _, x := range es {
			if dst, err = e.term(dst, x.Key, depth+1); err != nil {
				return dst, err
			}
			if dst, err = e.term(dst, x.Value, depth+1); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	// A list.
	elems := t.Elems()
	if len(elems) == 0 {
		if t.IsProper() {
			return append(dst, tagNil), nil
		}
		return e.term(dst, t.Tail(), depth) // no list of no elements has a tail
	}
	if t.IsProper() && isString(elems) {
		dst = binary.BigEndian.AppendUint16(append(dst, tagString), uint16(len(elems)))
		for _, x := range elems {
			dst = append(dst, byte(x.Int64()))
		}
		return dst, nil
	}
	dst = binary.BigEndian.AppendUint32(append(dst, tagList), uint32(len(elems)))
	for _, x := range elems {
		if dst, err = e.term(dst, x, depth+1); err != nil {
			return dst, err
		}
	}
	return e.term(dst, t.Tail(), depth+1)
}

// isString reports whether erts writes the list as STRING_EXT: up to 65535
// integers, each 0..255.
func isString(elems []term.Term) bool {
	if len(elems) > maxStringLen {
		return false
	}
	for _, x := range elems {
		if !x.IsInt64() || x.Int64() < 0 || x.Int64() > 255 {
			return false
		}
	}
	return true
}

func appendInt(dst []byte, t term.Term) []byte {
	if t.IsInt64() {
		v := t.Int64()
		switch {
		case v >= 0 && v <= 255:
			return append(dst, tagSmallInteger, byte(v))
		case v >= math.MinInt32 && v <= math.MaxInt32:
			return binary.BigEndian.AppendUint32(append(dst, tagInteger), uint32(int32(v)))
		}
		sign, mag := byte(0), uint64(v)
		if v < 0 {
			sign, mag = 1, -mag
		}
		n := (bitsLen64(mag) + 7) / 8
		dst = append(dst, tagSmallBig, byte(n), sign)
		for range n {
			dst = append(dst, byte(mag))
			mag >>= 8
		}
		return dst
	}
	words, neg := t.BigBits() // the term's own words, read in place
	sign := byte(0)
	if neg {
		sign = 1
	}
	n := ((len(words)-1)*bitsPerWord + bits.Len(uint(words[len(words)-1])) + 7) / 8
	if n <= math.MaxUint8 {
		dst = append(dst, tagSmallBig, byte(n), sign)
	} else {
		dst = append(binary.BigEndian.AppendUint32(append(dst, tagLargeBig), uint32(n)), sign)
	}
	return appendLittleEndian(dst, words, n)
}

// appendLittleEndian appends the n-byte magnitude words, least
// significant byte first.
func appendLittleEndian(dst []byte, words []big.Word, n int) []byte {
	for _, w := range words {
		for range bitsPerWord / 8 {
			if n == 0 {
				return dst
			}
			dst = append(dst, byte(w))
			w >>= 8
			n--
		}
	}
	return dst
}

const bitsPerWord = 32 << (^big.Word(0) >> 63)

func bitsLen64(u uint64) int {
	n := 0
	for ; u != 0; u >>= 1 {
		n++
	}
	return n
}

func (e *encoder) float(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "Erlang has no " + strconv.FormatFloat(f, 'g', -1, 64)}
	}
	if !e.o.FloatText {
		return binary.BigEndian.AppendUint64(append(dst, tagNewFloat), math.Float64bits(f)), nil
	}
	// erts writes sprintf("%.20e") into 31 bytes, NUL-padded.
	dst = append(dst, tagFloat)
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', 20, 64)
	for len(dst)-start < 31 {
		dst = append(dst, 0)
	}
	return dst, nil
}

// atom writes name as erts does: ATOM_EXT when every character is Latin-1
// (unless UTF8Atoms), else SMALL_ATOM_UTF8_EXT, or ATOM_UTF8_EXT beyond
// 255 bytes.
func (e *encoder) atom(dst []byte, name string) ([]byte, error) {
	if !utf8.ValidString(name) {
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "atom " + strconv.Quote(name) + " is not valid UTF-8"}
	}
	chars, latin1 := 0, true
	for _, r := range name {
		chars++
		latin1 = latin1 && r <= 0xFF
	}
	if chars > maxAtomChars {
		return dst, &EncodeError{Err: ErrUnencodable, Detail: "an atom of " + strconv.Itoa(chars) + " characters; Erlang's limit is 255"}
	}
	if latin1 && !e.o.UTF8Atoms {
		dst = binary.BigEndian.AppendUint16(append(dst, tagAtom), uint16(chars))
		for _, r := range name {
			dst = append(dst, byte(r))
		}
		return dst, nil
	}
	if len(name) <= math.MaxUint8 {
		return append(append(dst, tagSmallAtomUTF8, byte(len(name))), name...), nil
	}
	return append(binary.BigEndian.AppendUint16(append(dst, tagAtomUTF8), uint16(len(name))), name...), nil
}

func appendBinary(dst []byte, t term.Term) []byte {
	b, bits := t.Bytes(), t.BitLen()
	if bits&7 == 0 {
		return append(binary.BigEndian.AppendUint32(append(dst, tagBinary), uint32(len(b))), b...)
	}
	dst = binary.BigEndian.AppendUint32(append(dst, tagBitBinary), uint32(len(b)))
	return append(append(dst, byte(bits&7)), b...)
}
