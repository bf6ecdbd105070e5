package sext

import "github.com/erlsext/sext/term"

// valueRecursive decodes the term at pos by direct recursion: each
// compound term calls itself for its children and returns the term and the
// offset after it. Compare valueCPS, where every such call is a frame
// pushed on an explicit stack instead.
func (d *decodeState) valueRecursive(pos int) (term.Term, int, error) {
	if pos >= len(d.buf) {
		return term.Term{}, 0, errAt(pos, ErrTruncated, "")
	}
	switch d.buf[pos] {
	case tagTuple:
		n, p, err := d.header(pos, 1, minTermLen, d.depth)
		if err != nil {
			return term.Term{}, 0, err
		}
		d.depth++
		elems := d.a.takeTerms(n)
		for i := range elems {
			if elems[i], p, err = d.valueRecursive(p); err != nil {
				return term.Term{}, 0, err
			}
		}
		d.depth--
		return term.Tuple(elems...), p, nil

	case tagList:
		if pos+1 < len(d.buf) && d.buf[pos+1] == markMap {
			return d.mapRecursive(pos)
		}
		if err := d.enter(pos, d.depth); err != nil {
			return term.Term{}, 0, err
		}
		d.depth++
		opened := 1 // this list and the tails joined onto it
		start, p := len(d.stack), pos+1
		for {
			if p >= len(d.buf) {
				return term.Term{}, 0, errAt(p, ErrTruncated, "list")
			}
			switch d.buf[p] {
			case markEnd:
				d.depth -= opened
				return term.List(d.takeList(start)...), p + 1, nil
			case markImproper, markBitTail:
				if tailIsList(d.buf, p) {
					// [a|[b|...]] is [a,b|...]: the tail's elements join
					// these on the stack, so a chain of such tails is read
					// in one pass, nested for the depth limit only.
					if err := d.enter(p+1, d.depth); err != nil {
						return term.Term{}, 0, err
					}
					d.depth++
					opened++
					p += 2
					continue
				}
				tail, end, err := d.valueRecursive(p + 1)
				if err != nil {
					return term.Term{}, 0, err
				}
				d.depth -= opened
				d.stack = append(d.stack, tail)
				return term.ListWithTail(d.takeList(start)...), end, nil
			}
			x, end, err := d.valueRecursive(p)
			if err != nil {
				return term.Term{}, 0, err
			}
			d.stack = append(d.stack, x)
			p = end
		}

	case tagDesc:
		if err := d.enter(pos, d.depth); err != nil {
			return term.Term{}, 0, err
		}
		inner, end, err := d.descInner(pos)
		if err != nil {
			return term.Term{}, 0, err
		}
		outer := d.buf
		d.buf = inner
		d.depth++
		x, p, err := d.valueRecursive(0)
		d.depth--
		d.buf = outer
		if err == nil && p != len(inner) {
			err = errAt(p, ErrTrailing, "")
		}
		if err != nil {
			return term.Term{}, 0, inDesc(err, pos)
		}
		cell := d.a.takeTerms(1)
		cell[0] = x
		return term.DescOf(&cell[0]), end, nil

	case tagPos4, tagNeg4: // the commonest leaf, read here without a call
		if x, ok := smallInt64(d.buf, pos); ok {
			return term.Int(x), pos + 5, nil
		}
		return d.smallFloat(pos)

	case tagPosBig, tagNegBig:
		return d.bignum(pos)

	case tagBinary:
		return d.binary(pos)
	case tagAtom:
		return d.atom(pos)
	case tagPid:
		return d.pid(pos)
	case tagPort:
		return d.port(pos)
	case tagRef:
		return d.ref(pos)
	}
	return term.Term{}, 0, errAt(pos, ErrTag, "")
}

func (d *decodeState) mapRecursive(pos int) (term.Term, int, error) {
	n, p, err := d.header(pos, 2, 2*minTermLen, d.depth)
	if err != nil {
		return term.Term{}, 0, err
	}
	d.depth++
	kv := d.a.takeTerms(2 * n) // keys and values in turn
	for i := range kv {
		if kv[i], p, err = d.valueRecursive(p); err != nil {
			return term.Term{}, 0, err
		}
	}
	d.depth--
	return term.MapPairs(kv), p, nil
}
