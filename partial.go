package sext

import (
	"encoding/binary"
	"errors"

	"github.com/erlsext/sext/term"
)

// PartialDecode decodes a prefix, as Prefix writes it, back into a
// pattern. It returns the pattern, whether the bytes held a whole term
// (full) or were cut short, and the bytes after what it read. A tuple keeps
// its arity, with '_' for every element from the first missing one on; a
// list cut short gets the tail '_'; a map, descending term or anything else
// cut short becomes '_'. The pattern matches every term whose encoding
// starts with the prefix.
//
// Where the bytes end inside a term (or a count claims more than is left),
// that term takes all of them and rest is empty: a prefix cut short. Where a byte cannot start or continue an
// encoding (an unknown tag, bad framing), what was read before it is the
// pattern, that term becomes '_', and rest starts at the first byte of the
// term it sits in, so that nothing unread is dropped: on bytes that start
// with such a byte the pattern is '_' and rest is all of b. Only a depth
// beyond the limit is an error.
func PartialDecode(b []byte) (pattern term.Term, full bool, rest []byte, err error) {
	return Options{}.PartialDecode(b)
}

// PartialDecode decodes a prefix under o.
func (o Options) PartialDecode(b []byte) (pattern term.Term, full bool, rest []byte, err error) {
	pd := partialDecoder{decodeState: newDecodeState(b, o), arity: max(maxPartialArity, len(b))}
	pattern, full, end, err := pd.partial(0)
	pd.release()
	if err != nil {
		return term.Term{}, false, b, err
	}
	return pattern, full, b[end:], nil
}

var wildcard = term.Atom("_")

// maxPartialArity is how many elements the tuples of one prefix may claim
// in all, beyond one for each byte of input. A cut-short tuple keeps its
// arity, so each one is padded with a wildcard for every element its bytes
// lack; nested, each level would pad again, and a few bytes of headers
// claiming 65,535 elements each would take gigabytes. So the claims share
// one allowance for the whole prefix: a whole encoding never uses up its
// share, since each element has a tag byte of its own, and padding costs
// at most 16 bytes for each wildcard allowed (1 MiB beyond the input's
// share).
const maxPartialArity = 1 << 16

// partialDecoder is a decoder with what is left of the allowance.
type partialDecoder struct {
	decodeState
	arity int // elements tuples may still claim
}

func (pd *partialDecoder) partial(pos int) (term.Term, bool, int, error) {
	d := &pd.decodeState
	if pos < len(d.buf) && d.buf[pos] == tagTuple && pos+5 <= len(d.buf) {
		n := int(binary.BigEndian.Uint32(d.buf[pos+1:]))
		if n > pd.arity {
			return term.Term{}, false, 0, errAt(pos, ErrSize, "tuple arity: the prefix's tuples claim more elements than it allows")
		}
		pd.arity -= n
		if err := d.enter(pos, d.depth); err != nil {
			return term.Term{}, false, 0, err
		}
		d.depth++
		defer func() { d.depth-- }()
		elems := make([]term.Term, n)
		p := pos + 5
		for i := range elems {
			x, full, end, err := pd.partial(p)
			if err != nil {
				return term.Term{}, false, 0, err
			}
			elems[i], p = x, end
			if !full {
				for j := i + 1; j < n; j++ {
					elems[j] = wildcard
				}
				return term.Tuple(elems...), false, p, nil
			}
		}
		return term.Tuple(elems...), true, p, nil
	}
	if pos < len(d.buf) && d.buf[pos] == tagList && (pos+1 >= len(d.buf) || d.buf[pos+1] != markMap) {
		if err := d.enter(pos, d.depth); err != nil {
			return term.Term{}, false, 0, err
		}
		d.depth++
		opened := 1 // this list and the tails joined onto it, as the decoders join them
		defer func() { d.depth -= opened }()
		var elems []term.Term
		p := pos + 1
		for {
			if p >= len(d.buf) {
				return term.ImproperList(elems, wildcard), false, p, nil
			}
			switch c := d.buf[p]; {
			case c == markEnd:
				return term.List(elems...), true, p + 1, nil
			case tailIsList(d.buf, p):
				if err := d.enter(p+1, d.depth); err != nil {
					return term.Term{}, false, 0, err
				}
				d.depth++
				opened++
				p += 2
			case c == markImproper || c == markBitTail:
				tail, full, end, err := pd.partial(p + 1)
				if err != nil {
					return term.Term{}, false, 0, err
				}
				return term.ImproperList(elems, tail), full, end, nil
			case c == tagDesc || c >= tagNegBig && c <= tagBinary:
				x, full, end, err := pd.partial(p)
				if err != nil {
					return term.Term{}, false, 0, err
				}
				elems, p = append(elems, x), end
				if !full {
					return term.ImproperList(elems, wildcard), false, p, nil
				}
			default:
				return term.ImproperList(elems, wildcard), false, p, nil
			}
		}
	}
	t, end, err := d.valueRecursive(pos)
	switch {
	case errors.Is(err, ErrDepth):
		return term.Term{}, false, 0, err
	case errors.Is(err, ErrTruncated), errors.Is(err, ErrSize):
		// The prefix was cut inside this term (a map or descending term
		// that held a wildcard): all of the rest belongs to it.
		return wildcard, false, len(d.buf), nil
	case err != nil:
		return wildcard, false, pos, nil
	}
	return t, true, end, nil
}
