package sext

import "github.com/erlsext/sext/term"

// The continuation-stack decoder. It is the recursive decoder in
// continuation-passing style, defunctionalized: what the recursive decoder
// would do after a child returns ("store it as element i, then decode
// element i+1") is a small frame on an explicit stack, and one loop either
// descends into the next term or hands a finished term to the frame on
// top. Nothing recurses, and the cursor into the input is a plain int.

type kontKind uint8

const (
	kTuple    kontKind = iota // collecting n elements on d.stack from start
	kMap                      // collecting n keys and values, alternating, likewise
	kList                     // collecting elements on d.stack from start
	kListTail                 // decoding an improper tail
	kDesc                     // decoding a descending term's inner bytes
)

// kont is a frame. It holds no pointers: children wait on d.stack, and the
// input a descending term interrupts waits on d.outers. So pushing and
// popping frames costs no garbage collector write barriers.
type kont struct {
	kind  kontKind
	n     int // kTuple: elements; kMap: entries
	start int // where the frame's children start on d.stack; kDesc: the tag's offset
	end   int // kDesc: the offset after the term in the outer input
}

// valueCPS decodes the term at pos. It is the recursive decoder's
// valueRecursive with every recursive call turned into a pushed frame.
func (d *decoder) valueCPS(pos int) (term.Term, int, error) {
	var v term.Term
	var err error
descend:
	for {
		// Decode the term at pos: a leaf gives v; a compound pushes its
		// frame and descends into its first child.
		if pos >= len(d.buf) {
			return d.fail(errAt(pos, ErrTruncated, ""))
		}
		switch d.buf[pos] {
		case tagTuple:
			n, p, err := d.header(pos, 1, minTermLen, len(d.konts))
			if err != nil {
				return d.fail(err)
			}
			pos = p
			if n == 0 {
				v = term.Tuple()
				break
			}
			d.konts = append(d.konts, kont{kind: kTuple, n: n, start: len(d.stack)})
			continue descend

		case tagList:
			if pos+1 < len(d.buf) && d.buf[pos+1] == markMap {
				n, p, err := d.header(pos, 2, 2*minTermLen, len(d.konts))
				if err != nil {
					return d.fail(err)
				}
				pos = p
				if n == 0 {
					v = term.Map()
					break
				}
				d.konts = append(d.konts, kont{kind: kMap, n: n, start: len(d.stack)})
				continue descend
			}
			if err := d.enter(pos, len(d.konts)); err != nil {
				return d.fail(err)
			}
			pos++
			if pos < len(d.buf) && d.buf[pos] == markEnd {
				v, pos = term.List(), pos+1
				break
			}
			d.konts = append(d.konts, kont{kind: kList, start: len(d.stack)})
			if pos < len(d.buf) && (d.buf[pos] == markImproper || d.buf[pos] == markBitTail) {
				d.konts[len(d.konts)-1].kind = kListTail
				pos++
			}
			continue descend

		case tagDesc:
			if err := d.enter(pos, len(d.konts)); err != nil {
				return d.fail(err)
			}
			inner, end, err := d.descInner(pos)
			if err != nil {
				return d.fail(err)
			}
			d.konts = append(d.konts, kont{kind: kDesc, start: pos, end: end})
			d.outers = append(d.outers, d.buf)
			d.buf, pos = inner, 0
			continue descend

		default:
			if v, pos, err = d.leaf(pos); err != nil {
				return d.fail(err)
			}
		}

		// Return v to the frame on top, until one of them asks for
		// another term or the stack is empty.
		for len(d.konts) > 0 {
			k := &d.konts[len(d.konts)-1]
			switch k.kind {
			case kTuple:
				d.stack = append(d.stack, v)
				if len(d.stack)-k.start < k.n {
					continue descend
				}
				v = term.Tuple(d.takeList(k.start)...)
			case kList:
				// What follows an element: the end, a tail, or another one.
				d.stack = append(d.stack, v)
				if pos >= len(d.buf) {
					return d.fail(errAt(pos, ErrTruncated, "list"))
				}
				switch d.buf[pos] {
				case markEnd:
					v, pos = term.List(d.takeList(k.start)...), pos+1
				case markImproper, markBitTail:
					k.kind = kListTail
					pos++
					continue descend
				default:
					continue descend
				}
			case kListTail:
				d.stack = append(d.stack, v)
				v = d.takeImproper(k.start)
			case kMap:
				d.stack = append(d.stack, v)
				if len(d.stack)-k.start < 2*k.n {
					continue descend
				}
				v = term.Map(d.takeEntries(k.start)...)
			case kDesc:
				if pos != len(d.buf) {
					return d.fail(errAt(pos, ErrTrailing, ""))
				}
				d.buf, pos = d.outers[len(d.outers)-1], k.end
				d.outers[len(d.outers)-1] = nil
				d.outers = d.outers[:len(d.outers)-1]
				cell := d.a.takeTerms(1)
				cell[0] = v
				v = descOf(&cell[0])
			}
			d.pop()
		}
		return v, pos, nil
	}
}

func (d *decoder) pop() { d.konts = d.konts[:len(d.konts)-1] }

// takeEntries moves the keys and values collected since start into the
// arena, as map entries.
func (d *decoder) takeEntries(start int) []term.MapEntry {
	return asEntries(d.takeList(start))
}

// fail unwinds the stack after an error. An error inside a descending
// term's inner bytes is reported at the outermost such term's tag, as the
// recursive decoder reports it.
func (d *decoder) fail(err error) (term.Term, int, error) {
	for _, k := range d.konts {
		if k.kind == kDesc {
			err = inDesc(err, k.start)
			d.buf = d.outers[0]
			break
		}
	}
	clear(d.outers)
	d.outers = d.outers[:0]
	d.konts = d.konts[:0]
	return term.Term{}, 0, err
}
