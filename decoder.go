package sext

import "github.com/erlsext/sext/term"

// A Decoder decodes terms into memory it reuses from one call to the next,
// for loops that are done with each term before they decode the next one
// (a scan that filters keys, a stream of keys summed up). Once its memory
// has grown to the largest term it meets, a decode allocates nothing.
//
// The term that Decode or DecodeNext returns is valid only until the next
// call of either on the same Decoder, which overwrites its memory: the
// term, its elements, its binaries' bytes and its big integers. To keep a
// term, or any part of one, past that, pass it to Keep, or decode it with
// the package's Decode, whose terms share memory with nothing. Atom
// names and node names are not overwritten: a string taken from a term
// stays valid.
//
// A Decoder is not safe for use by several goroutines at once. Its zero
// value decodes with the zero Options.
type Decoder struct {
	opts Options
	s    scratchSpace
}

// NewDecoder returns a Decoder that decodes under o.
func NewDecoder(o Options) *Decoder { return &Decoder{opts: o} }

// Decode decodes b, which must hold exactly one term, as Options.Decode
// does, into the Decoder's memory. The term is valid until the next call
// of Decode or DecodeNext on d.
func (d *Decoder) Decode(b []byte) (term.Term, error) {
	t, _, err := d.opts.decodeReused(&d.s, b, continuation, true)
	d.s.empty()
	return t, err
}

// DecodeNext decodes the term at the front of b, as Options.DecodeNext
// does, into the Decoder's memory, and returns it with the bytes that
// follow it. The term is valid until the next call of Decode or
// DecodeNext on d.
func (d *Decoder) DecodeNext(b []byte) (term.Term, []byte, error) {
	t, end, err := d.opts.decodeReused(&d.s, b, continuation, false)
	d.s.empty()
	if err != nil {
		return term.Term{}, b, err
	}
	return t, b[end:], nil
}

// Keep returns a copy of t in memory of its own, which later decodes do
// not change. t must be the term the last Decode or DecodeNext on d
// returned, or part of it. The copy takes two allocations, as a plain
// Decode does; any other term is returned as it is.
func (d *Decoder) Keep(t term.Term) term.Term {
	return d.s.a.copyOut(t)
}
