package sext

import (
	"unsafe"

	"github.com/erlsext/sext/term"
)

// The continuation-stack decoder. It is the recursive decoder in
// continuation-passing style, defunctionalized: what the recursive decoder
// would do after a child returns ("store it as element i, then decode
// element i+1") is a small frame on an explicit stack, and one loop either
// descends into the next term or hands a finished term to the frame on
// top. Nothing recurses, and the cursor into the input is a plain int.

type kontKind uint8

const (
	kTuple    kontKind = iota // placing n elements in elems, the next at i
	kMap                      // placing n keys and values, alternating, likewise
	kList                     // collecting elements on d.stack from i, n tails joined on
	kListTail                 // decoding an improper tail, likewise
	kDesc                     // decoding a descending term's inner bytes
)

// kont is a frame. A tuple's or map's children go straight to their
// slots in the arena, as the recursive decoder places them; a list's,
// whose number is known only at its end, wait on d.stack; the input a
// descending term interrupts waits on d.outers.
type kont struct {
	elems *term.Term // kTuple, kMap: the first slot
	kind  kontKind
	n     int // kTuple: elements; kMap: twice the entries; kList, kListTail: tails joined on
	i     int // kTuple, kMap: the next slot; kList: where the children start on d.stack; kDesc: the tag's offset
	end   int // kDesc: the offset after the term in the outer input
}

// valueCPS decodes the term at pos. It is the recursive decoder's
// valueRecursive with every recursive call turned into a pushed frame.
// The frames are in the local ks while it runs, and d.konts only when it
// calls what reads them (fail).
func (d *decodeState) valueCPS(pos int) (term.Term, int, error) {
	var v term.Term
	var err error
	ks := d.konts[:0]
	chain := 0 // tails joined onto open lists: each is a level for the depth limit
descend:
	for {
		// Decode the term at pos: a leaf gives v; a compound pushes its
		// frame and descends into its first child.
		if pos >= len(d.buf) {
			return d.fail(ks, errAt(pos, ErrTruncated, ""))
		}
		switch d.buf[pos] {
		case tagTuple:
			n, p, err := d.header(pos, 1, minTermLen, len(ks)+chain)
			if err != nil {
				return d.fail(ks, err)
			}
			pos = p
			if n == 0 {
				v = term.Tuple()
				break
			}
			ks = append(ks, kont{kind: kTuple, n: n, elems: &d.a.takeTerms(n)[0]})
			continue descend

		case tagList:
			if pos+1 < len(d.buf) && d.buf[pos+1] == markMap {
				n, p, err := d.header(pos, 2, 2*minTermLen, len(ks)+chain)
				if err != nil {
					return d.fail(ks, err)
				}
				pos = p
				if n == 0 {
					v = term.Map()
					break
				}
				ks = append(ks, kont{kind: kMap, n: 2 * n, elems: &d.a.takeTerms(2 * n)[0]})
				continue descend
			}
			if err := d.enter(pos, len(ks)+chain); err != nil {
				return d.fail(ks, err)
			}
			pos++
			if pos >= len(d.buf) { // worded as valueRecursive words it
				return d.fail(ks, errAt(pos, ErrTruncated, "list"))
			}
			if d.buf[pos] == markEnd {
				v, pos = term.List(), pos+1
				break
			}
			kind := kList
			if d.buf[pos] == markImproper || d.buf[pos] == markBitTail {
				kind = kListTail
				pos++
			}
			ks = append(ks, kont{kind: kind, i: len(d.stack)})
			continue descend

		case tagDesc:
			if err := d.enter(pos, len(ks)+chain); err != nil {
				return d.fail(ks, err)
			}
			inner, end, err := d.descInner(pos)
			if err != nil {
				return d.fail(ks, err)
			}
			ks = append(ks, kont{kind: kDesc, i: pos, end: end})
			d.outers = append(d.outers, d.buf)
			d.buf, pos = inner, 0
			continue descend

		case tagPos4, tagNeg4: // the commonest leaf, read here without a call
			if x, ok := smallInt64(d.buf, pos); ok {
				v, pos = term.Int(x), pos+5
			} else {
				v, pos, err = d.smallFloat(pos)
			}
		case tagPosBig, tagNegBig:
			v, pos, err = d.bignum(pos)
		case tagBinary:
			v, pos, err = d.binary(pos)
		case tagAtom:
			v, pos, err = d.atom(pos)
		case tagPid:
			v, pos, err = d.pid(pos)
		case tagPort:
			v, pos, err = d.port(pos)
		case tagRef:
			v, pos, err = d.ref(pos)
		default:
			err = errAt(pos, ErrTag, "")
		}
		if err != nil { // a leaf's
			return d.fail(ks, err)
		}

		// Return v to the frame on top, until one of them asks for
		// another term or the stack is empty.
		for len(ks) > 0 {
			k := &ks[len(ks)-1]
			switch k.kind {
			case kTuple:
				elems := unsafe.Slice(k.elems, k.n)
				elems[k.i] = v
				if k.i++; k.i < k.n {
					continue descend
				}
				v, k.elems = term.Tuple(elems...), nil // no stale pointer into the arena

			case kList:
				// What follows an element: the end, a tail, or another one.
				d.stack = append(d.stack, v)
			follow:
				if pos >= len(d.buf) {
					return d.fail(ks, errAt(pos, ErrTruncated, "list"))
				}
				switch d.buf[pos] {
				case markEnd:
					v, pos = term.List(d.takeList(k.i)...), pos+1
					chain -= k.n
				case markImproper, markBitTail:
					if tailIsList(d.buf, pos) {
						// The tail's elements join these, as in
						// valueRecursive: one frame for the whole chain.
						if err := d.enter(pos+1, len(ks)+chain); err != nil {
							return d.fail(ks, err)
						}
						chain++
						k.n++
						pos += 2
						goto follow
					}
					k.kind = kListTail
					pos++
					continue descend
				default:
					continue descend
				}
			case kListTail:
				d.stack = append(d.stack, v)
				v = term.ListWithTail(d.takeList(k.i)...)
				chain -= k.n
			case kMap:
				elems := unsafe.Slice(k.elems, k.n)
				elems[k.i] = v
				if k.i++; k.i < k.n {
					continue descend
				}
				v, k.elems = term.MapPairs(elems), nil
			case kDesc:
				if pos != len(d.buf) {
					return d.fail(ks, errAt(pos, ErrTrailing, ""))
				}
				d.buf, pos = d.outers[len(d.outers)-1], k.end
				d.outers[len(d.outers)-1] = nil
				d.outers = d.outers[:len(d.outers)-1]
				cell := d.a.takeTerms(1)
				cell[0] = v
				v = term.DescOf(&cell[0])
			}
			ks = ks[:len(ks)-1]
		}
		d.konts = ks
		return v, pos, nil
	}
}

// fail unwinds the stack after an error. An error inside a descending
// term's inner bytes is reported at the outermost such term's tag, as the
// recursive decoder reports it.
func (d *decodeState) fail(ks []kont, err error) (term.Term, int, error) {
	for _, k := range ks {
		if k.kind == kDesc {
			err = inDesc(err, k.i)
			d.buf = d.outers[0]
			break
		}
	}
	clear(d.outers)
	d.outers = d.outers[:0]
	clear(ks)
	d.konts = ks[:0]
	return term.Term{}, 0, err
}
