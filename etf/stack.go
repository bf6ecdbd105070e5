package etf

import "github.com/erlsext/sext/term"

// A frame is a tuple, list or map whose values are being read. Its slots
// are allocated when it opens, since the claim has been checked against
// the bytes left (decoder.claim), and each value is written into its slot
// as it completes: nothing is collected on a shared stack and copied out
// again. A map's keys and values take turns in s.
type frame struct {
	s    []term.Term // the values read so far; cap(s) holds the rest
	need int         // values still to come, the tail of a list included
	off  int         // where the compound starts, for errors
	tag  byte        // tagSmallTuple, tagList or tagMap; 0 for no frame
}

// maxChunk is the most frames a chunk of the stack holds.
const maxChunk = 1024

// stack holds the open compounds in chunks that never move: a slice
// grown by copying allocates two to five times its deepest size in all,
// and the stack is the one cost of decoding that grows with depth rather
// than with values. Chunks double from 8 frames to maxChunk, so a shallow
// term costs one small chunk and a deep one a frame a level and at most a
// chunk more.
type stack struct {
	chunks [][]frame
	ci, k  int // the top frame is chunks[ci][k-1]
	n      int // frames on the stack
}

func (s *stack) push(f frame) {
	if s.chunks == nil {
		s.chunks = [][]frame{make([]frame, 8)}
	} else if s.k == len(s.chunks[s.ci]) {
		if s.ci++; s.ci == len(s.chunks) {
			s.chunks = append(s.chunks, make([]frame, min(2*len(s.chunks[s.ci-1]), maxChunk)))
		}
		s.k = 0
	}
	s.chunks[s.ci][s.k] = f
	s.k++
	s.n++
}

// top returns the innermost open compound; the stack must not be empty.
func (s *stack) top() *frame { return &s.chunks[s.ci][s.k-1] }

func (s *stack) pop() {
	s.chunks[s.ci][s.k-1] = frame{}
	s.n--
	if s.k--; s.k == 0 && s.ci > 0 {
		s.ci--
		s.k = len(s.chunks[s.ci])
	}
}
