package sext

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Binary framing, the format's way of writing a bitstring so that framed
// strings sort like the raw ones: every data byte becomes a 9-bit unit, a 1
// followed by the byte (a partial last byte is zero-filled to 8 bits); the
// stream is zero-padded to a byte boundary (always at least one bit, so a
// 0 where a unit's 1 would be ends the data), and a final byte says how
// many bits of the last unit count, 8 for all of them. The empty bitstring
// is the lone byte 8. Descending framing is the same with every bit
// inverted, except that a whole last byte is marked 255.
//
// Eight units fill exactly nine bytes, so both directions work on groups
// of eight bytes at a time with one 64-bit load and store.

const (
	emptyFrame    = 8
	emptyNegFrame = 0xFF - 8

	// unitMarks has the marker bit of each of the eight units that share
	// the first eight bytes of a nine-byte group.
	unitMarks = 0x8040201008040201
)

// frameLen returns the framed size of a bitstring of units data bytes.
func frameLen(units int) int {
	if units == 0 {
		return 1
	}
	return units/8*9 + units%8 + 2
}

// frameTail frames, in place, the bitstring of nbits bits that occupies
// dst[start:], and returns dst grown to hold the frame. Working from the
// last group to the first lets the output overwrite input already read.
func frameTail(dst []byte, start, nbits int, neg bool) []byte {
	units := len(dst) - start
	flen := frameLen(units)
	dst = grow(dst, flen-units)
	out := dst[start:]
	if units == 0 {
		out[0] = emptyFrame
		if neg {
			out[0] = emptyNegFrame
		}
		return dst
	}
	groups, rest := units/8, units%8

	// The last, partial group: rest units, the padding and the end byte.
	var acc uint64
	for i := range rest {
		acc = acc<<9 | 0x100 | uint64(out[groups*8+i])
	}
	acc <<= 8 - rest // the padding
	o := groups * 9
	for i := rest; i >= 0; i-- {
		out[o+i] = byte(acc)
		acc >>= 8
	}
	end := byte(nbits & 7)
	if end == 0 {
		end = 8
	}
	out[o+rest+1] = end

	for g := groups - 1; g >= 0; g-- {
		x := binary.BigEndian.Uint64(out[g*8:])
		binary.BigEndian.PutUint64(out[g*9:], spread(x))
		out[g*9+8] = byte(x)
	}
	if neg {
		for i := range out {
			out[i] = ^out[i]
		}
		if end == 8 {
			out[flen-1] = 0xFF
		}
	}
	return dst
}

// spread places the first seven bytes of x, each after a 1 bit, into the
// first 64 bits of a group; the last byte, shifted out whole, is stored
// apart. Byte i moves i+1 bits down, done as three shifts of 4, 2 and 1
// bits applied to the bytes whose distance has that bit set: bytes never
// come closer than eight bits, so the moves cannot collide.
func spread(x uint64) uint64 {
	x &^= 0xFF
	x = x&^0x000000ffffffff00 | x&0x000000ffffffff00>>4
	x = x&^0x00ffff00000ffff0 | x&0x00ffff00000ffff0>>2
	x = x&^0xff003fc00ff003fc | x&0xff003fc00ff003fc>>1
	return x | unitMarks
}

// gather is the inverse of spread: the first seven bytes of a group, with
// the markers dropped and the moves undone in the opposite order.
func gather(h uint64) uint64 {
	x := h &^ unitMarks
	x = x&^0x7f801fe007f801fe | x&0x7f801fe007f801fe<<1
	x = x&^0x003fffc00003fffc | x&0x003fffc00003fffc<<2
	return x&^0x0000000ffffffff0 | x&0x0000000ffffffff0<<4
}

// appendFrame appends the framing of the first nbits bits of src.
func appendFrame(dst, src []byte, nbits int, neg bool) []byte {
	start := len(dst)
	return frameTail(append(dst, src[:(nbits+7)>>3]...), start, nbits, neg)
}

// frame describes a framed bitstring found in the input.
type frame struct {
	units int // data units, holding bits bits; the last may hold fewer than 8, even none
	bits  int // length in bits
	end   int // offset just past the frame
}

// scanFrame finds the framed bitstring that starts at b[pos]; inv is 0 for
// ascending framing and 0xFF for descending. It checks the padding and the
// end byte but leaves the data for unframe.
func scanFrame(b []byte, pos int, inv byte) (frame, error) {
	p, units, empty, err := frameGroups(b, pos, inv)
	if err != nil {
		return frame{}, err
	}
	if empty {
		return frame{end: pos + 1}, nil
	}
	_, f, err := lastGroup(b, pos, p, units, inv)
	return f, err
}

// lastGroup ends the frame that started at pos, whose last group, of
// fewer than eight units after units in whole groups, starts at p. It
// returns that group's 64 bits, which gather lines up as a whole group's.
func lastGroup(b []byte, pos, p, units int, inv byte) (uint64, frame, error) {
	// At most seven units, so their markers and the stop bit lie in the
	// 64 bits from p; the first marker that is clear is the stop bit.
	h := load64(b, p) ^ uint64(inv)*0x0101010101010101
	stop := bits.LeadingZeros64(^h & unitMarks) // 9 bits a unit; 64 if all are set
	if stop == 64 || p+stop>>3 >= len(b) {
		return 0, frame{}, errAt(pos, ErrTruncated, "framed data")
	}
	f, err := frameEnd(b, pos, p+stop>>3, stop&7, units+stop/9, inv)
	return h, f, err
}

// appendUnframe is scanFrame and unframe in one pass: it appends the
// data bytes of the frame at b[pos] to dst, group by group as it finds
// them, and returns dst with the frame. The errors are theirs, in their
// order. Eight bytes past the data may be written in dst's spare room.
func appendUnframe(dst, b []byte, pos int, inv byte) ([]byte, frame, error) {
	p, units, empty, err := frameGroupsStart(b, pos, inv)
	if err != nil || empty {
		return dst, frame{end: pos + 1}, err
	}
	start := len(dst)
	inv64 := uint64(inv) * 0x0101010101010101
	for p+9 <= len(b) {
		g := b[p : p+9 : p+9]
		h := binary.BigEndian.Uint64(g) ^ inv64
		if h&unitMarks != unitMarks {
			break
		}
		dst = binary.BigEndian.AppendUint64(dst, gather(h)|uint64(g[8]^inv))
		p += 9
		units += 8
	}
	h, f, err := lastGroup(b, pos, p, units, inv)
	if err != nil {
		return dst[:start], frame{}, err
	}
	dst = binary.BigEndian.AppendUint64(dst, gather(h))[:start+f.units]
	if err := checkLastBits(dst[start:], f); err != nil {
		return dst[:start], frame{}, err
	}
	return dst, f, nil
}

// frameGroupsStart checks the first byte of the frame at b[pos], as
// frameGroups does, and reports an empty frame.
func frameGroupsStart(b []byte, pos int, inv byte) (p, units int, empty bool, err error) {
	switch {
	case pos >= len(b):
		return 0, 0, false, errAt(pos, ErrTruncated, "framed data")
	case b[pos]^inv == emptyFrame:
		return 0, 0, true, nil
	case b[pos]^inv < 0x80:
		return 0, 0, false, errAt(pos, ErrFraming, "no data unit where one must start")
	}
	return pos, 0, false, nil
}

// frameGroups starts reading the frame at b[pos]: it reports an empty
// frame, or skips the whole nine-byte groups of eight units and returns
// where the last group starts and the units before it.
func frameGroups(b []byte, pos int, inv byte) (p, units int, empty bool, err error) {
	if p, units, empty, err = frameGroupsStart(b, pos, inv); err != nil || empty {
		return p, units, empty, err
	}
	inv64 := uint64(inv) * 0x0101010101010101
	for p+9 <= len(b) {
		if h := binary.BigEndian.Uint64(b[p:p+8:p+8]) ^ inv64; h&unitMarks != unitMarks {
			break
		}
		p += 9
		units += 8
	}
	return p, units, false, nil
}

// frameEnd ends the frame of units units that started at pos, whose stop
// bit is bit (0 to 7, from the top) of b[i]: the padding after it must be
// zero, and the end byte after that says how many bits the last unit holds.
func frameEnd(b []byte, pos, i, bit, units int, inv byte) (frame, error) {
	if bit == 0 { // the stop bit opens a byte of padding
		if b[i]^inv != 0 {
			return frame{}, errAt(i, ErrFraming, "nonzero padding")
		}
	} else if (b[i]^inv)<<bit != 0 {
		return frame{}, errAt(i, ErrFraming, "nonzero padding")
	}
	i++
	if i >= len(b) {
		return frame{}, errAt(pos, ErrTruncated, "framed data")
	}
	endb := b[i] ^ inv
	switch {
	case endb == 8, endb == 0 && inv != 0:
		return frame{units: units, bits: units * 8, end: i + 1}, nil
	case endb <= 7:
		// 0 in ascending framing: the last unit holds no bits. The
		// reference writes that for a fraction of whole bytes.
		return frame{units: units, bits: (units-1)*8 + int(endb), end: i + 1}, nil
	}
	return frame{}, errAt(i, ErrFraming, "bad end byte")
}

// unframe writes the frame's data bytes, starting at b[pos], into dst,
// which must have length f.units. It checks that the unused low bits of a
// partial last byte are zero.
func unframe(dst, b []byte, pos int, f frame, inv byte) error {
	n, pos := unframeGroups(dst, b, pos, f, inv)
	if n < f.units {
		// At most seven units and their stop bit: 64 bits from pos on,
		// which gather lines up as in a whole group.
		x := gather(load64(b, pos) ^ uint64(inv)*0x0101010101010101)
		for ; n < f.units; n++ {
			dst[n] = byte(x >> 56)
			x <<= 8
		}
	}
	return checkLastBits(dst, f)
}

// unframeGroups unframes the frame's whole groups of eight units into
// dst and returns the units written and where the last group starts.
func unframeGroups(dst, b []byte, pos int, f frame, inv byte) (int, int) {
	inv64 := uint64(inv) * 0x0101010101010101
	n := 0
	for ; n+8 <= f.units; n += 8 {
		g := b[pos : pos+9 : pos+9] // one bounds check for the group
		h := binary.BigEndian.Uint64(g) ^ inv64
		binary.BigEndian.PutUint64(dst[n:n+8:n+8], gather(h)|uint64(g[8]^inv))
		pos += 9
	}
	return n, pos
}

// checkLastBits checks that the unused low bits of an unframed partial
// last byte are zero.
func checkLastBits(dst []byte, f frame) error {
	if f.units*8 > f.bits && dst[f.units-1]&(0xFF>>(f.bits-(f.units-1)*8)) != 0 {
		return errAt(f.end-1, ErrFraming, "nonzero bits after a bitstring's end")
	}
	return nil
}

// shortFrame reads, in one 64-bit load, an ascending frame at b[pos] of
// one to seven whole bytes with the end byte 8, the frame of most atoms
// and binaries in keys. It returns the bytes in the top of x, their
// number and the offset after the frame; end is 0 for any other frame,
// which scanFrame and unframe read as they always do.
func shortFrame(b []byte, pos int) (x uint64, units, end int) {
	if pos >= len(b) {
		return 0, 0, 0
	}
	h := load64(b, pos)
	m := ^h & unitMarks
	units = bits.LeadingZeros64(m) / 9 // the first marker missing
	bit := 9 * units
	i := pos + bit>>3
	if units == 0 || m == 0 || i+1 >= len(b) || b[i]<<(bit&7) != 0 || b[i+1] != 8 {
		return 0, 0, 0
	}
	return gather(h), units, i + 2
}

// mediumFrame reads an ascending frame of eight to fifteen whole bytes
// with the end byte 8, the frame of most bignums of a few words and of
// binaries a little longer than a key's: its first group of eight units
// in one load and its ninth byte, then no unit or what shortFrame reads.
// It returns the bytes in hi, then the top of lo, their number and the
// offset after the frame; end is 0 for any other frame.
func mediumFrame(b []byte, pos int) (hi, lo uint64, units, end int) {
	if pos+10 >= len(b) {
		return 0, 0, 0, 0
	}
	h := load64(b, pos)
	if h&unitMarks != unitMarks { // fewer than eight units
		return 0, 0, 0, 0
	}
	hi = gather(h) | uint64(b[pos+8])
	if b[pos+9] == 0 && b[pos+10] == 8 { // the end marker and padding, then the end
		return hi, 0, 8, pos + 11
	}
	if lo, units, end = shortFrame(b, pos+9); end == 0 {
		return 0, 0, 0, 0
	}
	return hi, lo, 8 + units, end
}

// load64 reads the eight bytes at b[p:] big-endian, with zeros for those
// past the end of b.
func load64(b []byte, p int) uint64 {
	if p+8 > len(b) {
		return load64Tail(b, p)
	}
	return binary.BigEndian.Uint64(b[p:])
}

// load64Tail is load64 near the end of b, kept out of line so that load64
// itself inlines.
//
//go:noinline
func load64Tail(b []byte, p int) uint64 {
	if len(b) >= 8 && p < len(b) {
		// The last eight bytes, shifted up past those before p: a frame
		// at the end of a key, the commonest short read, in one load.
		return binary.BigEndian.Uint64(b[len(b)-8:]) << (8 * uint(p+8-len(b)))
	}
	var x uint64
	for i := 0; i < 8; i++ {
		x <<= 8
		if p+i < len(b) {
			x |= uint64(b[p+i])
		}
	}
	return x
}

// grow extends b by n bytes.
func grow(b []byte, n int) []byte { return slices.Grow(b, n)[:len(b)+n] }

// canonFrame is canon unless the frame ends with the end byte 0 (an
// empty last unit), which readers accept and the encoder writes only for
// float fractions.
func canonFrame(b []byte, f frame) skipInfo {
	if f.units > 0 && b[f.end-1] == 0 {
		return 0
	}
	return canon
}

// unitByte returns data unit i of the frame starting at b[pos].
func unitByte(b []byte, pos, i int, inv byte) byte {
	bit := 9*i + 1
	at := pos + bit>>3
	w := uint16(b[at]^inv) << 8
	if at+1 < len(b) {
		w |= uint16(b[at+1] ^ inv)
	}
	return byte(w >> (8 - bit&7))
}

// checkLastUnit makes unframe's one check without unframing: the unused
// low bits of a partial last byte must be zero.
func checkLastUnit(b []byte, pos int, f frame, inv byte) error {
	if f.units*8 > f.bits && unitByte(b, pos, f.units-1, inv)&(0xFF>>(f.bits-(f.units-1)*8)) != 0 {
		return errAt(f.end-1, ErrFraming, "nonzero bits after a bitstring's end")
	}
	return nil
}

// findFrame is scanFrame for ascending framing, with a fast path for the
// short strings keys are made of (atoms, small binaries): fewer than
// eight units, found with one 64-bit load. Errors come from scanFrame.
func findFrame(b []byte, pos int) (frame, error) { return findFrameInv(b, pos, 0) }

// findFrameInv is findFrame for either direction: inv is 0xFF for
// descending framing, as for scanFrame.
func findFrameInv(b []byte, pos int, inv byte) (frame, error) {
	if pos < len(b) && b[pos]^inv >= 0x80 {
		// load64 reads zeros past the end: a frame that ends the input
		// takes this path too, and one cut short fails the length test.
		h := load64(b, pos) ^ uint64(inv)*0x0101010101010101
		if m := ^h & unitMarks; m != 0 {
			units := bits.LeadingZeros64(m) / 9 // the first marker missing
			bit := 9 * units
			i := pos + bit>>3
			if i+1 < len(b) && (b[i]^inv)<<(bit&7) == 0 {
				switch endb := b[i+1] ^ inv; {
				case endb == 8, endb == 0 && inv != 0:
					return frame{units: units, bits: 8 * units, end: i + 2}, nil
				case endb <= 7:
					return frame{units: units, bits: (units-1)*8 + int(endb), end: i + 2}, nil
				}
			}
		}
	}
	return scanFrame(b, pos, inv)
}

// wholeFrame checks a frame that must hold whole bytes, as bytesFrame
// does, without unframing it.
func wholeFrame(b []byte, pos int) (frame, error) {
	f, err := findFrame(b, pos)
	if err == nil {
		err = checkLastUnit(b, pos, f, 0)
	}
	if err == nil && f.bits&7 != 0 {
		err = errAt(pos, ErrInvalid, "bitstring where bytes are expected")
	}
	return f, err
}

// shortWholeFrame returns the end of the ascending frame at b[pos] if it
// is well formed, holds one to seven whole bytes and ends with the end
// byte 8, or 0: frame8's commonest case, small enough to inline, for the
// atoms in keys that the View steps over.
func shortWholeFrame(b []byte, pos int) int {
	if pos+8 > len(b) {
		return 0
	}
	// The first marker missing is the stop bit; with none missing, seven
	// units end at the word's last bit.
	bit := 9 * (bits.LeadingZeros64(^binary.BigEndian.Uint64(b[pos:])&unitMarks) / 9)
	i := pos + bit>>3
	if bit == 0 || i+1 >= len(b) || b[i]<<(bit&7)|(b[i+1]^8) != 0 {
		return 0
	}
	return i + 2
}

// frame8 returns the end of the ascending frame at b[pos] and its data
// bytes when it holds whole bytes and ends with the end byte 8, the frame
// of nearly every atom, binary and bignum; end is 0 for anything else,
// well formed or not, which scanFrame then reads. It checks the whole
// frame: markers, the zero padding after the stop bit, and the end byte.
// A 64-bit load a group of eight units finds the stop bit, the first
// marker missing; load64 reads zeros past the input, so a cut frame
// finds a stop bit there and fails the length test.
func frame8(b []byte, pos int) (end, units int) {
	if pos >= len(b) {
		return 0, 0
	}
	if b[pos] == emptyFrame {
		return pos + 1, 0
	}
	p := pos
	for p+9 <= len(b) { // whole groups of eight units
		if binary.BigEndian.Uint64(b[p:p+8:p+8])&unitMarks != unitMarks {
			break
		}
		p += 9
		units += 8
	}
	m := ^load64(b, p) & unitMarks
	if m == 0 { // a group cut short
		return 0, 0
	}
	bit := 9 * (bits.LeadingZeros64(m) / 9)
	i := p + bit>>3
	if bit+p == pos || i+1 >= len(b) || b[i]<<(bit&7)|(b[i+1]^emptyFrame) != 0 {
		return 0, 0
	}
	return i + 2, units + bit/9
}
