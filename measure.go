package sext

import "encoding/binary"

// The pre-pass: before a decode builds a compound term, measure walks its
// bytes once, building nothing, and counts the arena slots, bignum words
// and bytes the decode will take, so that the arena is allocated once and
// exactly. It skips leaves with scanFrame (the framing's fast scan) and
// never unframes data, except a descending term's inner bytes, which it
// must read to walk them.
//
// measure is lenient: at anything it does not expect (the decoders report
// the error) it stops and returns what it counted so far. It never counts
// more than the input can hold: counts are checked against the bytes left,
// as the decoders check them.

// listOpen marks an open list on the pre-pass's stack of open compounds;
// other entries count the terms a tuple or map still holds.
const listOpen = -1

// measure counts what decoding the term at pos of d.buf takes.
func (d *decoder) measure(pos int) need {
	var n need
	d.measureIn(d.buf, pos, 0, &n)
	d.tbuf = d.tbuf[:0]
	return n
}

// measureIn counts the term at pos of buf into n, with depth compounds
// open around it; it returns the offset after the term, or -1 where it
// stopped early.
func (d *decoder) measureIn(buf []byte, pos, depth int, n *need) int {
	base := len(d.counts)
	defer func() { d.counts = d.counts[:base] }()
	p := pos
	for {
		closed := false // a list just ended
		if top := len(d.counts) - 1; top >= base && d.counts[top] == listOpen {
			if p >= len(buf) {
				return -1
			}
			switch buf[p] {
			case markEnd:
				p++
				d.counts = d.counts[:top]
				closed = true
			case markImproper, markBitTail:
				p++
				d.counts[top] = 1 // the list now waits for its tail only
				n.terms++
			default:
				n.terms++
			}
		}
		if !closed {
			if p >= len(buf) {
				return -1
			}
			open := depth + len(d.counts) - base
			switch buf[p] {
			case tagTuple, tagList:
				c, next := 0, p+1
				switch {
				case buf[p] == tagTuple:
					if c = countAt(buf, p+1, minTermLen); c < 0 || open >= d.maxDepth {
						return -1
					}
					next = p + 5
				case p+1 < len(buf) && buf[p+1] == markMap:
					if c = countAt(buf, p+2, 2*minTermLen); c < 0 || open >= d.maxDepth {
						return -1
					}
					c *= 2
					next = p + 6
				default:
					c = listOpen
				}
				if c == listOpen && open >= d.maxDepth {
					return -1
				}
				p = next
				if c != 0 {
					if c > 0 {
						n.terms += c
					}
					d.counts = append(d.counts, c)
					continue
				}
			case tagDesc:
				if p = d.measureDesc(buf, p, open, n); p < 0 {
					return -1
				}
			default:
				if p = d.skipLeaf(buf, p, n); p < 0 {
					return -1
				}
			}
		}
		// A term has ended: it fills a slot of the compound around it,
		// which may end in turn.
		for top := len(d.counts) - 1; top >= base && d.counts[top] != listOpen; top-- {
			if d.counts[top]--; d.counts[top] > 0 {
				break
			}
			d.counts = d.counts[:top]
		}
		if len(d.counts) == base {
			return p
		}
	}
}

// countAt reads a tuple's or map's count at buf[p:], or -1 if the bytes
// left cannot hold that many terms of per bytes.
func countAt(buf []byte, p, per int) int {
	if p+4 > len(buf) {
		return -1
	}
	c := uint64(binary.BigEndian.Uint32(buf[p:]))
	if c*uint64(per) > uint64(len(buf)-p-4) {
		return -1
	}
	return int(c)
}

// measureDesc counts a descending term: one slot for its inner term, and
// what the inner term takes, read from its unframed bytes.
func (d *decoder) measureDesc(buf []byte, p, open int, n *need) int {
	if open >= d.maxDepth {
		return -1
	}
	f, err := scanFrame(buf, p+1, 0xFF)
	if err != nil || f.bits&7 != 0 {
		return -1
	}
	inner := d.transient(f.units)
	if unframe(inner, buf, p+1, f, 0xFF) != nil {
		return -1
	}
	inner = inner[:f.bits/8]
	n.terms++
	if end := d.measureIn(inner, 0, open+1, n); end != len(inner) {
		return -1
	}
	return f.end
}

// skipLeaf counts the leaf at p and returns the offset after it.
func (d *decoder) skipLeaf(buf []byte, p int, n *need) int {
	switch tag := buf[p]; tag {
	case tagPos4, tagNeg4:
		if p+5 > len(buf) {
			return -1
		}
		flag := buf[p+4] & 1
		if tag == tagPos4 && flag == 0 || tag == tagNeg4 && flag == 1 {
			return p + 5
		}
		return skipFrame(buf, p+5, invFor(tag == tagNeg4))
	case tagPosBig, tagNegBig:
		return d.skipBignum(buf, p, n)
	case tagAtom:
		return skipFrame(buf, p+1, 0)
	case tagBinary:
		f, err := scanFrame(buf, p+1, 0)
		if err != nil {
			return -1
		}
		n.bytes += f.units
		return f.end
	case tagPid:
		if p = skipFrame(buf, p+1, 0); p < 0 || p+8 > len(buf) {
			return -1
		}
		return skipCreation(buf, p+8)
	case tagPort:
		if p = skipFrame(buf, p+1, 0); p < 0 || p >= len(buf) {
			return -1
		}
		if buf[p] == portLong {
			return p + 14
		}
		return skipCreation(buf, p+4)
	case tagRef:
		if p = skipFrame(buf, p+1, 0); p < 0 {
			return -1
		}
		return skipFrame(buf, p, 0)
	}
	return -1
}

func invFor(neg bool) byte {
	if neg {
		return 0xFF
	}
	return 0
}

func skipFrame(buf []byte, p int, inv byte) int {
	f, err := scanFrame(buf, p, inv)
	if err != nil {
		return -1
	}
	return f.end
}

func skipCreation(buf []byte, p int) int {
	switch {
	case p < len(buf) && buf[p] <= 3:
		return p + 1
	case p < len(buf) && buf[p] == 0xFF:
		return p + 5
	}
	return -1
}

// skipBignum counts a bignum or a float with a large integer part. An
// integer that fits no int64 takes its words and the slots of its
// big.Int; a float's integer part lives only in the decoder's scratch.
func (d *decoder) skipBignum(buf []byte, p int, n *need) int {
	neg := buf[p] == tagNegBig
	q, words := p+1, 0
	if neg {
		if q+4 > len(buf) {
			return -1
		}
		words = int(0xFFFFFFFF - binary.BigEndian.Uint32(buf[q:]))
		if words == 0 || words > d.intLimit/8 {
			return -1
		}
		q += 4
	}
	f, err := scanFrame(buf, q, 0)
	if err != nil || f.end >= len(buf) {
		return -1
	}
	switch flag := buf[f.end]; {
	case !neg && flag == 1, neg && flag == 0:
		return skipFrame(buf, f.end+1, invFor(neg))
	case !neg && flag != 0, neg && flag != 0xFF:
		return -1
	}
	// The magnitude's length without its size prefix and leading zeros.
	k := 0
	if f.units > 0 && unitByte(buf, q, 0) == sizeMark {
		for k = 1; k < f.units && unitByte(buf, q, k) >= 0x80; k++ {
		}
		k++
	}
	for k < f.units-1 && unitByte(buf, q, k) == 0 {
		k++
	}
	mag := f.units - k
	var w int
	switch {
	case neg && words == 1 && mag <= 8:
		// The magnitude is 2^64-1-adj: beyond int64 when above 2^63.
		var adj uint64
		for i := k; i < f.units; i++ {
			adj = adj<<8 | uint64(unitByte(buf, q, i))
		}
		if ^adj > 1<<63 {
			w = 8 / wordBytes
		}
	case neg:
		w = words * 8 / wordBytes
	case mag > 8:
		w = (mag + wordBytes - 1) / wordBytes
	case mag == 8:
		if unitByte(buf, q, k) >= 0x80 {
			w = 8 / wordBytes
		}
	}
	if w > 0 {
		n.words += w
		n.terms += bigSlots
	}
	return f.end + 1
}

// unitByte returns the data byte of unit k of the frame at buf[p:]: each
// unit is a 1 bit and eight data bits.
func unitByte(buf []byte, p, k int) byte {
	bit := 9*k + 1
	i := p + bit>>3
	hi := uint16(buf[i]) << 8
	if i+1 < len(buf) {
		hi |= uint16(buf[i+1])
	}
	return byte(hi >> (8 - bit&7))
}

// transient returns n bytes that stay valid until the decode ends: a
// descending term's inner bytes, which the pre-pass and the decoders read
// while the input they came from waits.
func (d *decoder) transient(n int) []byte {
	if len(d.tbuf)+n > cap(d.tbuf) {
		d.tbuf = make([]byte, 0, max(2*cap(d.tbuf), n, 256))
	}
	s := d.tbuf[len(d.tbuf) : len(d.tbuf)+n : len(d.tbuf)+n]
	d.tbuf = d.tbuf[:len(d.tbuf)+n]
	return s
}
