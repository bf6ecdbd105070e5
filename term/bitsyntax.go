package term

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxSegmentBits is the most bits one integer segment of a binary may
// have in Parse (Size times Unit): 256, room for a SHA-256 digest as
// one integer, so that a few characters of text (<<0:256>>) cannot ask
// for more than 32 bytes each.
const MaxSegmentBits = 256

// segType is a binary segment's type.
type segType uint8

const (
	segInteger segType = iota
	segFloat
	segUTF8
	segUTF16
	segUTF32
)

// segSpec is what follows a segment's value: :Size and /Types.
type segSpec struct {
	typ    segType
	size   int // -1 when not given
	unit   int // 0 when not given
	signed bool
	little bool
	typed  bool // a type was named: a second one conflicts
}

// bitsOf returns the bits an integer or float segment takes.
func (sp *segSpec) bitsOf() int {
	size, unit := sp.size, max(sp.unit, 1)
	if size < 0 {
		size = 8
		if sp.typ == segFloat {
			size = 64
		}
	}
	return size * unit
}

// plain reports whether sp is the default, an unsigned byte.
func (sp *segSpec) plain() bool {
	return sp.typ == segInteger && sp.bitsOf() == 8 && !sp.signed
}

// bitBuf is a bitstring being written: n bits of b, the bits of a partial
// last byte at its high end.
type bitBuf struct {
	b []byte
	n int
}

// put writes the low k bits of v (k at most 64), the highest first.
func (w *bitBuf) put(v uint64, k int) {
	if k == 8 && w.n&7 == 0 {
		w.b = append(grow(w.b), byte(v))
		w.n += 8
		return
	}
	for k > 0 {
		used := w.n & 7
		if used == 0 {
			w.b = append(grow(w.b), 0)
		}
		take := min(8-used, k)
		chunk := byte(v>>(k-take)) & (1<<take - 1)
		w.b[len(w.b)-1] |= chunk << (8 - used - take)
		k -= take
		w.n += take
	}
}

// putBytes writes the last k bits of the big-endian bytes be, or, if
// little, its bytes from the last one up followed by the high k%8 bits:
// Erlang's little-endian order, in which <<16#123:12/little>> is
// <<16#23,1:4>>.
func (w *bitBuf) putBytes(be []byte, k int, little bool) {
	if little {
		for i := range k / 8 {
			w.put(uint64(be[len(be)-1-i]), 8)
		}
		if r := k % 8; r != 0 {
			w.put(uint64(be[0]), r)
		}
		return
	}
	if r := k % 8; r != 0 {
		w.put(uint64(be[0]), r)
		be = be[1:]
	}
	for _, c := range be {
		w.put(uint64(c), 8)
	}
}

// maxScratchBinary is the largest buffer a parser keeps for the next
// binary; a binary built in a larger one keeps it.
const maxScratchBinary = 256

// binary parses <<...>>: segments in Erlang's bit syntax, with literal
// values, and at the end perhaps _/binary, which makes the result a
// BinaryPrefix pattern. A segment of size 0 adds nothing, wherever it
// stands, as in Erlang.
func (p *parser) binary(depth int) (Term, error) {
	if err := p.enter(depth); err != nil {
		return Term{}, err
	}
	if err := p.next(); err != nil {
		return Term{}, err
	}
	w := bitBuf{b: p.bytes[:0]}
	kept := false // the term keeps w.b: the next binary starts afresh
	defer func() {
		if !kept {
			p.bytes = w.b[:0]
		}
	}()
	prefix := false
	for p.s.tok != tGreater { // each pass reads a segment and what follows
		if p.s.tok == tVar && p.s.lit == "_" {
			if err := p.binaryRest(&w); err != nil {
				return Term{}, err
			}
			prefix = true
			break
		}
		if err := p.segment(&w); err != nil {
			return Term{}, err
		}
		if p.s.tok != tComma {
			break
		}
		if err := p.next(); err != nil {
			return Term{}, err
		}
		if p.s.tok == tGreater {
			return Term{}, p.unexpected("in binary, expected segment")
		}
	}
	// The closing >> is two '>' tokens, so that #Desc<<<1>>> reads.
	if p.s.tok != tGreater {
		if prefix {
			return Term{}, p.unexpected("after _/binary, expected '>>'")
		}
		return Term{}, p.unexpected("in binary")
	}
	first := p.s.pos
	if err := p.next(); err != nil {
		return Term{}, err
	}
	if p.s.tok != tGreater || p.s.pos != first+1 {
		return Term{}, p.errorf(first, "expected '>>' to close binary")
	}
	if err := p.next(); err != nil {
		return Term{}, err
	}
	// A small binary is copied out of the scratch buffer; a large one
	// keeps the buffer it was built in, so that its bytes are allocated
	// once, not twice.
	var data []byte
	if cap(w.b) > maxScratchBinary {
		data, kept, p.bytes = slices.Clip(w.b), true, nil
	} else {
		data = slices.Clone(w.b)
	}
	if prefix {
		return BinaryPrefix(data), nil
	}
	if data == nil {
		data = []byte{}
	}
	return Bitstring(data, w.n), nil
}

// binaryRest parses _/binary, the rest of a binary prefix pattern, after
// segments of whole bytes.
func (p *parser) binaryRest(w *bitBuf) error {
	pos := p.s.pos
	if err := p.next(); err != nil {
		return err
	}
	if p.s.tok != tSlash {
		return p.errorf(pos, "_ in a binary must be _/binary, the rest of a binary pattern")
	}
	if err := p.next(); err != nil {
		return err
	}
	if p.s.tok != tAtom {
		return p.unexpected("after _/, expected binary")
	}
	switch p.s.lit {
	case "binary", "bytes":
	case "bitstring", "bits":
		return p.errorf(p.s.pos, "_/%s is not supported: a binary pattern ends in _/binary", p.s.lit)
	default:
		return p.unexpected("after _/, expected binary")
	}
	if w.n&7 != 0 {
		return p.errorf(pos, "the segments before _/binary must be whole bytes, not %d bits", w.n)
	}
	return p.next()
}

// segment parses one segment, Value[:Size][/Types], and writes it to w.
func (p *parser) segment(w *bitBuf) error {
	pos := p.s.pos
	var (
		num   Term
		chars []rune // a string's characters, each a segment
		str   bool
	)
	switch p.s.tok {
	case tString:
		// Adjacent literals join, as everywhere in Erlang. The characters
		// stay in the scanner's runes: the size and types hold no string.
		for p.s.tok == tString {
			if err := p.nextJoined(); err != nil {
				return err
			}
		}
		chars, str = p.s.runes, true
	case tInt, tChar, tFloat, tMinus, tPlus:
		var err error
		if num, err = p.number(); err != nil {
			return err
		}
	default:
		return p.unexpected("in binary")
	}
	sp, err := p.segSpec(pos)
	if err != nil {
		return err
	}
	if !str {
		return p.putSegment(w, &sp, num, pos, false)
	}
	w.b = growBy(w.b, len(chars)*(sp.bitsOf()+7)/8)
	for _, c := range chars {
		if err := p.putSegment(w, &sp, Int(int64(c)), pos, true); err != nil {
			return err
		}
	}
	return nil
}

// segSpec parses a segment's :Size and /Types, if any, and checks that
// they go together; pos is where the segment begins.
func (p *parser) segSpec(pos int) (segSpec, error) {
	sp := segSpec{size: -1}
	if p.s.tok == tColon {
		if err := p.next(); err != nil {
			return sp, err
		}
		if p.s.tok != tInt || p.s.ibig != nil || p.s.ival > MaxSegmentBits {
			return sp, p.errorf(p.s.pos, "segment size must be an integer from 0 to %d", MaxSegmentBits)
		}
		sp.size = int(p.s.ival)
		if err := p.next(); err != nil {
			return sp, err
		}
	}
	if p.s.tok == tSlash {
		if err := p.next(); err != nil {
			return sp, err
		}
		for {
			if err := p.segType(&sp); err != nil {
				return sp, err
			}
			if p.s.tok != tMinus {
				break
			}
			if err := p.next(); err != nil {
				return sp, err
			}
		}
	}
	switch sp.typ {
	case segUTF8, segUTF16, segUTF32:
		if sp.size >= 0 || sp.unit != 0 {
			return sp, p.errorf(pos, "a utf segment takes no size or unit")
		}
	case segFloat:
		if n := sp.bitsOf(); n != 32 && n != 64 {
			return sp, p.errorf(pos, "a float segment is 32 or 64 bits, not %d", n)
		}
	default:
		if n := sp.bitsOf(); n > MaxSegmentBits {
			return sp, p.errorf(pos, "segment of %d bits, more than %d", n, MaxSegmentBits)
		}
	}
	return sp, nil
}

// segType parses one name of a segment's type list into sp.
func (p *parser) segType(sp *segSpec) error {
	if p.s.tok != tAtom {
		return p.unexpected("in binary segment, expected a type")
	}
	pos, name := p.s.pos, p.s.lit
	if err := p.next(); err != nil {
		return err
	}
	typ := segInteger
	switch name {
	case "integer":
	case "float":
		typ = segFloat
	case "utf8":
		typ = segUTF8
	case "utf16":
		typ = segUTF16
	case "utf32":
		typ = segUTF32
	case "signed", "unsigned":
		sp.signed = name == "signed"
		return nil
	case "big", "little":
		sp.little = name == "little"
		return nil
	case "native":
		return p.errorf(pos, "native byte order is not supported: it depends on the machine; write big or little")
	case "unit":
		if err := p.expect(tColon, "after unit"); err != nil {
			return err
		}
		if p.s.tok != tInt || p.s.ibig != nil || p.s.ival < 1 || p.s.ival > 256 {
			return p.errorf(p.s.pos, "unit must be an integer from 1 to 256")
		}
		sp.unit = int(p.s.ival)
		return p.next()
	case "binary", "bytes", "bitstring", "bits":
		return p.errorf(pos, "a %s segment needs a binary value, which Parse does not take; write its bytes", name)
	default:
		return p.errorf(pos, "unknown type %s in binary segment", clip(name))
	}
	if sp.typed && sp.typ != typ {
		return p.errorf(pos, "conflicting types in binary segment")
	}
	sp.typ, sp.typed = typ, true
	return nil
}

// putSegment writes the value v as the segment sp says. pos is where the
// segment begins; inString says v is a character of a string.
func (p *parser) putSegment(w *bitBuf, sp *segSpec, v Term, pos int, inString bool) error {
	if sp.typ == segFloat {
		return p.putFloat(w, sp, v, pos)
	}
	if v.Kind() != KindInt {
		return p.errorf(pos, "binary segment must be an integer")
	}
	switch sp.typ {
	case segUTF8, segUTF16, segUTF32:
		c := v.r.Num
		if !v.IsInt64() || c > utf8.MaxRune || c >= 0xD800 && c <= 0xDFFF {
			return p.errorf(pos, "value %s is no Unicode code point", clip(v.String()))
		}
		putUTF(w, sp, rune(c))
		return nil
	}
	n := sp.bitsOf()
	if !fitsBits(v, n, sp.signed) {
		switch {
		case inString && sp.plain():
			return p.errorf(pos, "character %#x in binary string is not a byte", v.Int64())
		case inString:
			return p.errorf(pos, "character %#x out of range %s", v.Int64(), bitsRange(n, sp.signed))
		}
		return p.errorf(pos, "segment value out of range %s", bitsRange(n, sp.signed))
	}
	if v.IsInt64() && n <= 64 {
		u := uint64(v.Int64())
		if !sp.little {
			w.put(u, n)
			return nil
		}
		var be [8]byte
		for i := range be {
			be[7-i] = byte(u >> (8 * i))
		}
		w.putBytes(be[8-(n+7)/8:], n, true)
		return nil
	}
	if v.IsInt64() {
		// Sign-extended to n bits, at most MaxSegmentBits: its bytes on
		// the stack, the low eight from the value.
		var buf [MaxSegmentBits / 8]byte
		be := buf[len(buf)-(n+7)/8:]
		fill := byte(0)
		if v.Int64() < 0 {
			fill = 0xFF
		}
		for i := range be {
			be[i] = fill
		}
		binary.BigEndian.PutUint64(buf[len(buf)-8:], uint64(v.Int64()))
		w.putBytes(be, n, sp.little)
		return nil
	}
	// Two's complement in n bits, through big.Int: a value beyond int64.
	z := v.BigInt()
	if z.Sign() < 0 {
		z.Add(z, new(big.Int).Lsh(big.NewInt(1), uint(n)))
	}
	w.putBytes(z.FillBytes(make([]byte, (n+7)/8)), n, sp.little)
	return nil
}

// putFloat writes a float segment of 32 or 64 bits; an integer value is
// converted, as in Erlang.
func (p *parser) putFloat(w *bitBuf, sp *segSpec, v Term, pos int) error {
	var f float64
	switch v.Kind() {
	case KindFloat:
		f = v.Float()
	case KindInt:
		f, _ = new(big.Float).SetInt(v.BigInt()).Float64()
	}
	if math.IsInf(f, 0) {
		return p.errorf(pos, "segment value out of range of a float")
	}
	var be [8]byte
	n := sp.bitsOf()
	if n == 32 {
		g := float32(f)
		if math.IsInf(float64(g), 0) {
			return p.errorf(pos, "segment value out of range of a 32-bit float")
		}
		u := math.Float32bits(g)
		be = [8]byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)}
	} else {
		u := math.Float64bits(f)
		for i := range be {
			be[7-i] = byte(u >> (8 * i))
		}
	}
	w.putBytes(be[:n/8], n, sp.little)
	return nil
}

// putUTF writes the code point c in the encoding sp names.
func putUTF(w *bitBuf, sp *segSpec, c rune) {
	var buf [4]byte
	switch sp.typ {
	case segUTF8:
		for _, x := range utf8.AppendRune(buf[:0], c) {
			w.put(uint64(x), 8)
		}
	case segUTF16:
		units := []rune{c}
		if c >= 0x10000 {
			c -= 0x10000
			units = []rune{0xD800 + c>>10, 0xDC00 + c&0x3FF}
		}
		for _, u := range units {
			w.putBytes([]byte{byte(u >> 8), byte(u)}, 16, sp.little)
		}
	default:
		w.putBytes([]byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)}, 32, sp.little)
	}
}

// fitsBits reports whether the integer v fits in n bits, signed or not.
func fitsBits(v Term, n int, signed bool) bool {
	if v.IsInt64() {
		x := v.Int64()
		switch {
		case n == 0:
			return x == 0
		case signed && n >= 64, !signed && x >= 0 && n >= 63:
			return true
		case signed:
			lim := int64(1) << (n - 1)
			return x >= -lim && x < lim
		}
		return x >= 0 && x < 1<<n
	}
	w, neg := v.BigBits()
	l := (len(w)-1)*bits.UintSize + bits.Len(uint(w[len(w)-1]))
	switch {
	case !signed:
		return !neg && l <= n
	case !neg:
		return l <= n-1
	}
	// -2^(n-1) is the least: a magnitude of n-1 bits, or exactly 2^(n-1).
	if l <= n-1 {
		return true
	}
	if l != n {
		return false
	}
	for _, x := range w[:len(w)-1] {
		if x != 0 {
			return false
		}
	}
	return bits.OnesCount(uint(w[len(w)-1])) == 1
}

// bitsRange describes the integers of n bits, for an error message.
func bitsRange(n int, signed bool) string {
	switch {
	case n == 0:
		return "0..0"
	case !signed && n <= 64:
		return "0.." + strconv.FormatUint(math.MaxUint64>>(64-n), 10)
	case !signed:
		return "0..2^" + strconv.Itoa(n) + "-1"
	case n <= 64:
		lim := uint64(1) << (n - 1)
		return "-" + strconv.FormatUint(lim, 10) + ".." + strconv.FormatUint(lim-1, 10)
	}
	return "-2^" + strconv.Itoa(n-1) + "..2^" + strconv.Itoa(n-1) + "-1"
}
