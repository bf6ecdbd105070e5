package sext

import (
	"encoding/binary"
)

// The reader: the primitives every walk of the wire format stands on, and
// the one skipper (skipper.skip) that the View, the Matcher, PartialDecode
// and the canonical checks share. Each primitive holds one rule of the
// format; the walks differ only in what they build.

// leafEnd returns the end of the leaf at b[p] and what skip would find
// out about it, when it is a leaf the reader reads in one step: a small
// integer, an atom (in Latin-1 unless utf8) or binary of whole bytes
// ending with the end byte 8, or an integer of a few words in the bignum
// forms (not certified canonical: the general skip does that). end is 0
// for anything else, well formed or not. intLimit is the decode state's.
func leafEnd(b []byte, p int, utf8 bool, intLimit int) (end int, info skipInfo) {
	if p >= len(b) {
		return 0, 0
	}
	switch c := b[p]; c {
	case tagPos4, tagNeg4:
		return smallIntEnd(b, p), allInfo
	case tagAtom, tagBinary:
		if c == tagAtom && utf8 {
			return 0, 0
		}
		end, _ := frame8(b, p+1)
		return end, allInfo
	case tagPosBig, tagNegBig:
		return bigEnd(b, p, intLimit), plainKey
	}
	return 0, 0
}

// bigEnd returns the end of the integer in a bignum form at b[p] when
// its frame holds the size prefix the encoder writes below 128 bytes and
// its magnitude, well formed; 0 for anything else (a float, a long or
// legacy magnitude, any error).
func bigEnd(b []byte, p int, intLimit int) int {
	neg := b[p] == tagNegBig
	flag, at := byte(0), p+1
	if neg {
		if p+5 > len(b) {
			return 0
		}
		flag, at = 0xFF, p+5
	}
	end, units := frame8(b, at)
	if end == 0 || end >= len(b) || b[end] != flag || !sizedBig(b, at, units) {
		return 0
	}
	if neg {
		words := int(0xFFFFFFFF - binary.BigEndian.Uint32(b[p+1:]))
		// The magnitude, after the size prefix, fits the words, a zero
		// before a top byte of 255 aside.
		if mag := units - 2; words == 0 || words > intLimit/8 ||
			mag > 8*words && (mag > 8*words+1 || unitByte(b, at, 2, 0) != 0) {
			return 0
		}
	}
	return end + 1
}

// walkDepth is how many compounds the skipper's fast loop keeps open on
// its own stack; a term nested deeper continues in the general skip.
const walkDepth = 24

// listOpen in a count of terms still to read marks an open list, whose
// end only its end marker tells.
const listOpen = -1

// skip returns the offset after the term at pos, with open compounds
// around it (for the depth limit), and what it found out about it. It
// checks everything the decoders check, in their order, so it fails with
// the same *DecodeError at the same offset where decoding fails.
//
// Its loop takes a step a tag: small integers, atoms and binaries of up to
// fifteen whole bytes, tuples, proper lists and (when not certifying)
// maps, with nesting kept as a stack of counts of terms still to read.
// Any other form, and any step that is not certainly well formed, goes
// to skipOne for that one term; a list whose elements end in a tail goes
// to listRest. So every error, and every form the loop leaves, is read by
// the general skip, which holds each rule in one place.
func (s *skipper) skip(pos, open int) (int, skipInfo, error) {
	if s.generalOnly {
		return s.skipOne(pos, open)
	}
	b := s.d.buf
	var stack [walkDepth]int32
	sp := 0
	left := 1 // terms still to read in the innermost compound: the root, one
	info := allInfo
	p := pos
	limit := s.d.maxDepth - open // compounds the loop may open
	utf8, certify, intLimit := s.d.utf8, s.certify, s.d.intLimit
	for {
		// One term starts at p: a leaf moves p past it; a compound pushes
		// the count of its parent and goes on to its first child.
		if p >= len(b) {
			goto general
		}
		switch b[p] {
		case tagTuple:
			if p+5 > len(b) || sp >= limit || sp == walkDepth {
				goto general
			}
			n := int(binary.BigEndian.Uint32(b[p+1:]))
			if n > (len(b)-p-5)/minTermLen {
				goto general
			}
			p += 5
			if n > 0 {
				stack[sp], left = int32(left), n
				sp++
				continue
			}
		case tagList:
			if p+1 >= len(b) || sp >= limit || sp == walkDepth {
				goto general
			}
			switch b[p+1] {
			case markEnd:
				p += 2
			case markMap:
				// Without certifying, a map reads as a tuple of its keys
				// and values: its key order matters only to canon.
				if certify || p+6 > len(b) {
					goto general
				}
				n := uint64(binary.BigEndian.Uint32(b[p+2:]))
				if 2*n*minTermLen > uint64(len(b)-p-6) {
					goto general
				}
				p += 6
				if n > 0 {
					stack[sp], left = int32(left), int(2*n)
					sp++
					continue
				}
			case markBitTail:
				goto general
			default:
				stack[sp], left = int32(left), listOpen
				sp++
				p++
				continue
			}
		case tagPos4, tagNeg4:
			end := smallIntEnd(b, p)
			if end == 0 {
				goto general
			}
			p = end
		case tagAtom, tagBinary:
			if b[p] == tagAtom && utf8 {
				goto general
			}
			end := shortWholeFrame(b, p+1) // inlined: most frames in keys are short
			if end == 0 {
				if end, _ = frame8(b, p+1); end == 0 {
					goto general
				}
			}
			p = end
		case tagPosBig, tagNegBig:
			if certify { // the general skip certifies bignums
				goto general
			}
			end := bigEnd(b, p, intLimit)
			if end == 0 {
				goto general
			}
			p, info = end, info&plainKey
		default:
			goto general
		}
	ended:
		// A term ended at p: count it off its compound, and close every
		// compound it completes.
		for {
			if left == listOpen {
				if p >= len(b) {
					return 0, 0, errAt(p, ErrTruncated, "list")
				}
				switch b[p] {
				case markEnd:
					p++
				case markImproper, markBitTail:
					if p+1 < len(b) && b[p+1] != tagList && (b[p] == markBitTail) == (b[p+1] == tagBinary) {
						// The tail, the list's last term: one more to read.
						left = 1
						p++
						break ended
					}
					end, i, err := s.listRest(p, open+sp-1, 1)
					if err != nil {
						return 0, 0, err
					}
					p, info = end, info&i
				default:
					break ended
				}
			} else if left--; left > 0 {
				break
			}
			if sp == 0 {
				return p, info, nil
			}
			sp--
			left = int(stack[sp])
		}
		continue
	general:
		// The term at p, whole, by the general skip.
		end, i, err := s.skipOne(p, open+sp)
		if err != nil {
			return 0, 0, err
		}
		p, info = end, info&i
		goto ended
	}
}
