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
	kTuple    kontKind = iota // filling elems[i]
	kList                     // collecting elements on d.stack from start
	kListTail                 // decoding an improper tail
	kMapKey                   // decoding entries[i].Key
	kMapValue                 // decoding entries[i].Value
	kDesc                     // decoding a descending term's inner bytes
)

type kont struct {
	kind    kontKind
	i       int
	start   int // kList, kListTail: where its elements start on d.stack; kDesc: the tag's offset
	end     int // kDesc: the offset after the term in the outer input
	elems   []term.Term
	entries []term.MapEntry
	outer   []byte // kDesc: the enclosing input
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
			d.konts = append(d.konts, kont{kind: kTuple, elems: make([]term.Term, n)})
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
				d.konts = append(d.konts, kont{kind: kMapKey, entries: make([]term.MapEntry, n)})
				continue descend
			}
			if err := d.enter(pos, len(d.konts)); err != nil {
				return d.fail(err)
			}
			d.konts = append(d.konts, kont{kind: kList, start: len(d.stack)})
			var done bool
			if v, pos, done, err = d.listNext(pos + 1); err != nil {
				return d.fail(err)
			}
			if !done {
				continue descend
			}

		case tagDesc:
			if err := d.enter(pos, len(d.konts)); err != nil {
				return d.fail(err)
			}
			inner, end, err := d.descInner(pos)
			if err != nil {
				return d.fail(err)
			}
			d.konts = append(d.konts, kont{kind: kDesc, start: pos, end: end, outer: d.buf})
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
				k.elems[k.i] = v
				k.i++
				if k.i < len(k.elems) {
					continue descend
				}
				v = term.Tuple(k.elems...)
			case kList:
				d.stack = append(d.stack, v)
				var done bool
				if v, pos, done, err = d.listNext(pos); err != nil {
					return d.fail(err)
				}
				if !done {
					continue descend
				}
				continue // listNext finished the list and popped its frame
			case kListTail:
				v = term.ImproperList(d.takeList(k.start), v)
			case kMapKey:
				k.entries[k.i].Key = v
				k.kind = kMapValue
				continue descend
			case kMapValue:
				k.entries[k.i].Value = v
				k.i++
				if k.i < len(k.entries) {
					k.kind = kMapKey
					continue descend
				}
				v = term.Map(k.entries...)
			case kDesc:
				if pos != len(d.buf) {
					return d.fail(errAt(pos, ErrTrailing, ""))
				}
				d.buf, pos = k.outer, k.end
				v = term.Desc(v)
			}
			d.pop()
		}
		return v, pos, nil
	}
}

// listNext looks at the byte after a list's tag or its last element. At
// the end marker it finishes the list, pops its frame and returns the list
// (done). Otherwise it returns where the next term to decode starts: an
// element, or the tail after a tail marker, for which the frame becomes
// kListTail.
func (d *decoder) listNext(pos int) (v term.Term, next int, done bool, err error) {
	if pos >= len(d.buf) {
		return term.Term{}, 0, false, errAt(pos, ErrTruncated, "list")
	}
	k := &d.konts[len(d.konts)-1]
	switch d.buf[pos] {
	case markEnd:
		v := term.List(d.takeList(k.start)...)
		d.pop()
		return v, pos + 1, true, nil
	case markImproper, markBitTail:
		k.kind = kListTail
		return term.Term{}, pos + 1, false, nil
	}
	return term.Term{}, pos, false, nil
}

func (d *decoder) pop() {
	d.konts[len(d.konts)-1] = kont{}
	d.konts = d.konts[:len(d.konts)-1]
}

// fail unwinds the stack after an error. An error inside a descending
// term's inner bytes is reported at the outermost such term's tag, as the
// recursive decoder reports it.
func (d *decoder) fail(err error) (term.Term, int, error) {
	for i, k := range d.konts {
		if k.kind == kDesc {
			err = inDesc(err, k.start)
			d.buf = d.konts[i].outer
			break
		}
	}
	clear(d.konts)
	d.konts = d.konts[:0]
	return term.Term{}, 0, err
}
