package sext

import (
	"encoding/binary"

	"github.com/erlsext/sext/term"
)

func (d *decodeState) binary(pos int) (term.Term, int, error) {
	if pos+1 < len(d.buf) && d.buf[pos+1] == emptyFrame {
		return term.Binary(nil), pos + 2, nil
	}
	if x, n, end := shortFrame(d.buf, pos+1); end > 0 {
		data := d.a.takeBytes(n)
		for i := range data {
			data[i] = byte(x >> 56)
			x <<= 8
		}
		return term.Binary(data), end, nil
	}
	if !d.a.direct {
		// One pass into scratch, then a copy: cheaper than two passes,
		// and the copy is short beside the unframing.
		s, f, err := appendUnframe(d.scratch[:0], d.buf, pos+1, 0)
		d.scratch = s[:0]
		if err != nil {
			return term.Term{}, 0, err
		}
		if f.units == 0 {
			return term.Binary(nil), f.end, nil
		}
		data := d.a.takeBytes(f.units)
		copy(data, s)
		return term.Bitstring(data, f.bits), f.end, nil
	}
	// Direct mode, a binary on its own: unframed straight into its bytes.
	f, err := scanFrame(d.buf, pos+1, 0)
	if err != nil {
		return term.Term{}, 0, err
	}
	if f.units == 0 {
		return term.Binary(nil), f.end, nil
	}
	data := d.a.takeBytes(f.units)
	if err := unframe(data, d.buf, pos+1, f, 0); err != nil {
		return term.Term{}, 0, err
	}
	return term.Bitstring(data, f.bits), f.end, nil
}

func (d *decodeState) atom(pos int) (term.Term, int, error) {
	var short [8]byte
	var name []byte
	x, n, end := shortFrame(d.buf, pos+1)
	if end > 0 {
		if x &= ^uint64(0) << (64 - 8*n); x&0x8080808080808080 == 0 {
			return term.Atom(shortName(x, n)), end, nil // ASCII: Latin-1 and UTF-8 alike
		}
		binary.BigEndian.PutUint64(short[:], x)
		name = short[:n]
	} else {
		var err error
		if name, end, err = d.longBytesFrame(pos + 1); err != nil {
			return term.Term{}, 0, err
		}
	}
	t, err := d.atomFromBytes(name, d.utf8)
	if err != nil {
		return term.Term{}, 0, errAt(pos, ErrInvalid, err.Error())
	}
	return t, end, nil
}

// node reads a pid's, port's or reference's node name, in Latin-1.
func (d *decodeState) node(pos int) (string, int, error) {
	name, end, err := d.bytesFrame(pos)
	if err != nil {
		return "", 0, err
	}
	return d.latin1(name), end, nil
}

// creation reads a creation: one byte up to 3, or 255 and 32 bits.
func (d *decodeState) creation(pos int) (uint32, int, error) {
	if pos >= len(d.buf) {
		return 0, 0, errAt(pos, ErrTruncated, "creation")
	}
	switch c := d.buf[pos]; {
	case c <= 3:
		return uint32(c), pos + 1, nil
	case c == 0xFF:
		if pos+5 > len(d.buf) {
			return 0, 0, errAt(pos, ErrTruncated, "creation")
		}
		return binary.BigEndian.Uint32(d.buf[pos+1:]), pos + 5, nil
	}
	return 0, 0, errAt(pos, ErrInvalid, "creation")
}

func (d *decodeState) pid(pos int) (term.Term, int, error) {
	node, p, err := d.node(pos + 1)
	if err != nil {
		return term.Term{}, 0, err
	}
	if p+8 > len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "pid")
	}
	id, serial := binary.BigEndian.Uint32(d.buf[p:]), binary.BigEndian.Uint32(d.buf[p+4:])
	c, end, err := d.creation(p + 8)
	if err != nil {
		return term.Term{}, 0, err
	}
	return term.Pid{Node: node, ID: id, Serial: serial, Creation: c}.Term(), end, nil
}

func (d *decodeState) port(pos int) (term.Term, int, error) {
	node, p, err := d.node(pos + 1)
	if err != nil {
		return term.Term{}, 0, err
	}
	if p < len(d.buf) && d.buf[p] == portLong {
		if p+14 > len(d.buf) {
			return term.Term{}, 0, errAt(pos, ErrTruncated, "port")
		}
		if d.buf[p+9] != 0xFF {
			return term.Term{}, 0, errAt(p+9, ErrInvalid, "port creation")
		}
		id, c := binary.BigEndian.Uint64(d.buf[p+1:]), binary.BigEndian.Uint32(d.buf[p+10:])
		return term.Port{Node: node, ID: id, Creation: c}.Term(), p + 14, nil
	}
	if p+4 > len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "port")
	}
	id := binary.BigEndian.Uint32(d.buf[p:])
	c, end, err := d.creation(p + 4)
	if err != nil {
		return term.Term{}, 0, err
	}
	return term.Port{Node: node, ID: uint64(id), Creation: c}.Term(), end, nil
}

func (d *decodeState) ref(pos int) (term.Term, int, error) {
	node, p, err := d.node(pos + 1)
	if err != nil {
		return term.Term{}, 0, err
	}
	body, end, err := d.bytesFrame(p)
	if err != nil {
		return term.Term{}, 0, err
	}
	var c uint32
	switch {
	case len(body) > 0 && body[0] <= 3:
		c, body = uint32(body[0]), body[1:]
	case len(body) >= 5 && body[0] == 0xFF:
		c, body = binary.BigEndian.Uint32(body[1:]), body[5:]
	default:
		return term.Term{}, 0, errAt(p, ErrInvalid, "reference creation")
	}
	if len(body) == 0 || len(body)%4 != 0 {
		return term.Term{}, 0, errAt(p, ErrInvalid, "reference ids")
	}
	ids := make([]uint32, len(body)/4)
	for i := range ids {
		ids[i] = binary.BigEndian.Uint32(body[4*i:])
	}
	return term.Ref{Node: node, Creation: c, IDs: ids}.Term(), end, nil
}

// unframeScratch reads a frame into d.scratch, which it returns.
func (d *decodeState) unframeScratch(pos int, inv byte) ([]byte, frame, error) {
	s, f, err := appendUnframe(d.scratch[:0], d.buf, pos, inv)
	d.scratch = s[:0]
	return s, f, err
}

// bytesFrame reads a frame that must hold whole bytes into d.scratch.
func (d *decodeState) bytesFrame(pos int) ([]byte, int, error) {
	hi, n, end := shortFrame(d.buf, pos) // most names: one load
	var lo uint64
	if end == 0 {
		hi, lo, n, end = mediumFrame(d.buf, pos) // bignums of a few words: two
	}
	if end == 0 {
		return d.longBytesFrame(pos)
	}
	return d.frameBytes(hi, lo, n), end, nil
}

// frameBytes writes the n bytes at the top of hi:lo, a frame that
// shortFrame or mediumFrame read, into d.scratch.
func (d *decodeState) frameBytes(hi, lo uint64, n int) []byte {
	if cap(d.scratch) < 16 {
		d.scratch = make([]byte, 16, 64)
	}
	s := d.scratch[:16]
	binary.BigEndian.PutUint64(s, hi)
	binary.BigEndian.PutUint64(s[8:], lo)
	return s[:n]
}

// longBytesFrame is bytesFrame for a frame shortFrame has refused.
func (d *decodeState) longBytesFrame(pos int) ([]byte, int, error) {
	s, f, err := d.unframeScratch(pos, 0)
	if err != nil {
		return nil, 0, err
	}
	if f.bits&7 != 0 {
		return nil, 0, errAt(pos, ErrInvalid, "bitstring where bytes are expected")
	}
	return s[:f.bits/8], f.end, nil
}
