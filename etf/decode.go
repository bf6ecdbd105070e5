package etf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/erlsext/sext/term"
)

var errSizeMismatch = errors.New("inflated size differs from the size claimed")

// Decode reads the one term b holds under o. Unlike binary_to_term, which
// ignores what follows the term, bytes after it are an error wrapping
// ErrTrailing; DecodeNext returns them instead.
func (o Options) Decode(b []byte) (term.Term, error) {
	t, rest, err := o.DecodeNext(b)
	if err != nil {
		return term.Term{}, err
	}
	if len(rest) != 0 {
		return term.Term{}, errAt(len(b)-len(rest), ErrTrailing, strconv.Itoa(len(rest))+" bytes")
	}
	return t, nil
}

// DecodeNext reads the term at the front of b under o and returns it with
// the bytes that follow it.
func (o Options) DecodeNext(b []byte) (term.Term, []byte, error) {
	if len(b) == 0 {
		return term.Term{}, b, errAt(0, ErrTruncated, "empty input")
	}
	if b[0] != Version {
		return term.Term{}, b, errAt(0, ErrVersion, "first byte "+strconv.Itoa(int(b[0])))
	}
	if len(b) > 1 && b[1] == tagCompressed {
		return o.decodeCompressed(b)
	}
	d := decoder{b: b, maxDepth: o.maxDepth()}
	t, end, err := d.run(1)
	if err != nil {
		return term.Term{}, b, err
	}
	return t, b[end:], nil
}

func (o Options) decodeCompressed(b []byte) (term.Term, []byte, error) {
	if len(b) < 6 {
		return term.Term{}, b, errAt(1, ErrTruncated, "compressed term header")
	}
	size := binary.BigEndian.Uint32(b[2:6])
	// The claim is checked against all of b before anything is inflated,
	// then against the term's own bytes once the stream has ended, before
	// the inflated bytes are decoded (which costs tens of bytes a byte).
	if limit := o.inflateLimit(len(b)); int64(size) > int64(limit) {
		return term.Term{}, b, errAt(2, ErrSize, o.overLimit(size, len(b), limit))
	}
	if size == 0 {
		return term.Term{}, b, errAt(2, ErrSize, "a compressed term of 0 bytes")
	}
	zr := bytes.NewReader(b[6:])
	raw, err := inflate(zr, int(size))
	if err != nil {
		return term.Term{}, b, errAt(6, ErrCompressed, err.Error())
	}
	end := len(b) - zr.Len()
	if limit := o.inflateLimit(end); int(size) > limit {
		return term.Term{}, b, errAt(2, ErrSize, o.overLimit(size, end, limit))
	}
	d := decoder{b: raw, maxDepth: o.maxDepth(), compressed: true}
	t, n, err := d.run(0)
	if err != nil {
		return term.Term{}, b, err
	}
	if n != len(raw) {
		return term.Term{}, b, &DecodeError{Offset: n, Compressed: true, Err: ErrSize,
			Detail: "the term ends " + strconv.Itoa(len(raw)-n) + " bytes before the size claimed"}
	}
	return t, b[end:], nil
}

// overLimit says why a compressed term of n bytes may not inflate to size.
func (o Options) overLimit(size uint32, n, limit int) string {
	s := "a compressed term claims " + strconv.FormatUint(uint64(size), 10) + " bytes, over the limit of " + strconv.Itoa(limit)
	if limit < o.maxInflate() {
		s += " for its " + strconv.Itoa(n) + " bytes (MaxInflateRatio)"
	}
	return s
}

type decoder struct {
	b          []byte
	maxDepth   int
	compressed bool
	frames     stack
	// claimed is the sum of need over frames: values that some open
	// compound still expects. Each takes at least a byte of its own, so
	// all the slots a decode allocates fit in the input's length.
	claimed int
}

func (d *decoder) err(off int, err error, detail string) error {
	return &DecodeError{Offset: off, Compressed: d.compressed, Err: err, Detail: detail}
}

// need checks that n bytes follow pos.
func (d *decoder) need(pos, n int, what string) error {
	if n > len(d.b)-pos {
		return d.err(pos, ErrTruncated, what)
	}
	return nil
}

// claim checks that the n values a compound header at pos claims, with the
// values the open compounds still expect, can each have a byte of the
// input from p on. Each open compound has one value under way, whose
// first byte is already read (the one at pos, for the innermost).
func (d *decoder) claim(pos, p, n int, what string) error {
	if left := len(d.b) - p; n > left-(d.claimed-d.frames.n) {
		return d.err(pos, ErrSize, what+" of "+strconv.Itoa(n)+" values, with "+
			strconv.Itoa(d.claimed-d.frames.n)+" more to come, in "+strconv.Itoa(left)+" bytes")
	}
	return nil
}

// run decodes the term at pos with an explicit stack of open compounds, so
// that the input's depth costs heap, not goroutine stack.
func (d *decoder) run(pos int) (term.Term, int, error) {
	for {
		start := pos
		if d.frames.n > 0 && d.frames.top().tag == tagList && d.frames.top().need == 1 && pos < len(d.b) {
			// A list's tail that is a list continues the list in place:
			// built as a term of its own, it would be copied again at
			// every level of a chain [a|[b|[c|...]]].
			next, ended, err := d.joinTail(d.frames.top(), pos)
			switch {
			case err != nil:
				return term.Term{}, pos, err
			case ended:
				pos = next
				if t, done, err := d.close(term.List()); err != nil || done {
					return t, pos, err
				}
				continue
			case next != pos:
				pos = next
				continue
			}
		}
		t, next, open, err := d.item(pos)
		if err != nil {
			return term.Term{}, pos, err
		}
		pos = next
		if open.tag != 0 {
			if d.frames.n >= d.maxDepth {
				return term.Term{}, start, d.err(start, ErrDepth, "deeper than "+strconv.Itoa(d.maxDepth))
			}
			if err := d.claim(start, pos, open.need, tagName(d.b[start])); err != nil {
				return term.Term{}, start, err
			}
			open.off = start
			open.s = make([]term.Term, 0, open.need)
			d.claimed += open.need
			d.frames.push(open)
			continue
		}
		t, done, err := d.close(t)
		if err != nil || done {
			return t, pos, err
		}
	}
}

// close puts the complete term t in its slot and closes the compounds it
// completes. It returns the whole term and true when the stack is empty.
func (d *decoder) close(t term.Term) (term.Term, bool, error) {
	for {
		if d.frames.n == 0 {
			return t, true, nil
		}
		f := d.frames.top()
		f.s = append(f.s, t)
		d.claimed--
		if f.need--; f.need > 0 {
			return term.Term{}, false, nil
		}
		var err error
		if t, err = d.build(f); err != nil {
			return term.Term{}, false, err
		}
		d.frames.pop()
	}
}

// joinTail reads the tail of the list f at pos when it is itself a list
// header (LIST_EXT) or a string (STRING_EXT), adding its elements to f. It
// returns where reading goes on, and true if the list is complete (a
// string ends it). It returns pos unchanged for any other tail.
func (d *decoder) joinTail(f *frame, pos int) (int, bool, error) {
	b, p := d.b, pos+1
	switch b[pos] {
	case tagList:
		if err := d.need(p, 4, "LIST_EXT length"); err != nil {
			return pos, false, err
		}
		n := u32len(b[p:])
		p += 4
		// The tail's slot, under way, becomes n elements and a new tail.
		if n == math.MaxInt {
			return pos, false, d.err(pos, ErrSize, "a list of "+strconv.Itoa(n)+" elements in "+strconv.Itoa(len(b)-p)+" bytes")
		}
		if err := d.claim(pos, p, n+1, "a list tail"); err != nil {
			return pos, false, err
		}
		f.s = d.grow(f.s, n+1, len(b)-p)
		f.need += n
		d.claimed += n
		return p, false, nil
	case tagString:
		if err := d.need(p, 2, "STRING_EXT length"); err != nil {
			return pos, false, err
		}
		n := int(binary.BigEndian.Uint16(b[p:]))
		p += 2
		if n > len(b)-p {
			return pos, false, d.err(p, ErrTruncated, "STRING_EXT of "+strconv.Itoa(n)+" bytes")
		}
		f.s = d.grow(f.s, n+1, len(b)-p)
		for _, c := range b[p : p+n] {
			f.s = append(f.s, term.Int(int64(c)))
		}
		return p + n, true, nil
	}
	return pos, false, nil
}

// grow makes room in s for n more values, doubling it but never past the
// values the rest bytes of input can hold, so that a list joined from
// many tails allocates at most about twice its length.
func (d *decoder) grow(s []term.Term, n, rest int) []term.Term {
	if n <= cap(s)-len(s) {
		return s
	}
	c := max(len(s)+n, min(2*cap(s), len(s)+n+rest))
	t := make([]term.Term, len(s), c)
	copy(t, s)
	return t
}

// build makes the compound f from its values.
func (d *decoder) build(f *frame) (term.Term, error) {
	vs := f.s
	switch f.tag {
	case tagSmallTuple:
		return term.Tuple(vs...), nil
	case tagList:
		if tail := vs[len(vs)-1]; tail.Kind() == term.KindList && tail.Len() == 0 && tail.IsProper() {
			return term.List(vs[:len(vs)-1]...), nil
		}
		return term.ListWithTail(vs...), nil
	}
	es := make([]term.MapEntry, len(vs)/2)
	for i := range es {
		es[i] = term.MapEntry{Key: vs[2*i], Value: vs[2*i+1]}
	}
	m := term.Map(es...)
	if m.Len() != len(es) {
		return term.Term{}, d.err(f.off, ErrInvalid, "a map with a repeated key")
	}
	return m, nil
}

// tagName names a compound's tag for size errors.
func tagName(tag byte) string {
	switch tag {
	case tagList:
		return "a list"
	case tagMap:
		return "a map"
	}
	return "a tuple"
}

// item reads the term or compound header at pos. For a compound with
// elements it returns the frame to open; otherwise the term.
func (d *decoder) item(pos int) (term.Term, int, frame, error) {
	if pos >= len(d.b) {
		return term.Term{}, pos, frame{}, d.err(pos, ErrTruncated, "a term is missing")
	}
	b := d.b
	tag := b[pos]
	p := pos + 1
	switch tag {
	case tagSmallInteger:
		if err := d.need(p, 1, "SMALL_INTEGER_EXT"); err != nil {
			return term.Term{}, pos, frame{}, err
		}
		return term.Int(int64(b[p])), p + 1, frame{}, nil
	case tagInteger:
		if err := d.need(p, 4, "INTEGER_EXT"); err != nil {
			return term.Term{}, pos, frame{}, err
		}
		return term.Int(int64(int32(binary.BigEndian.Uint32(b[p:])))), p + 4, frame{}, nil
	case tagSmallBig, tagLargeBig:
		t, next, err := d.bignum(pos)
		return t, next, frame{}, err
	case tagNewFloat:
		if err := d.need(p, 8, "NEW_FLOAT_EXT"); err != nil {
			return term.Term{}, pos, frame{}, err
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(b[p:]))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return term.Term{}, pos, frame{}, d.err(pos, ErrInvalid, "a float that is not finite")
		}
		return term.Float(f), p + 8, frame{}, nil
	case tagFloat:
		t, next, err := d.floatText(pos)
		return t, next, frame{}, err
	case tagAtom, tagSmallAtom, tagAtomUTF8, tagSmallAtomUTF8:
		name, next, err := d.atom(pos)
		return term.Atom(name), next, frame{}, err
	case tagNil:
		return term.List(), p, frame{}, nil
	case tagString:
		if err := d.need(p, 2, "STRING_EXT length"); err != nil {
			return term.Term{}, pos, frame{}, err
		}
		n := int(binary.BigEndian.Uint16(b[p:]))
		p += 2
		if n > len(b)-p { // not through need: the message would be built for every string
			return term.Term{}, pos, frame{}, d.err(p, ErrTruncated, "STRING_EXT of "+strconv.Itoa(n)+" bytes")
		}
		elems := make([]term.Term, n)
		for i, c := range b[p : p+n] {
			elems[i] = term.Int(int64(c))
		}
		return term.List(elems...), p + n, frame{}, nil
	case tagBinary, tagBitBinary:
		t, next, err := d.binary(pos)
		return t, next, frame{}, err
	case tagSmallTuple, tagLargeTuple:
		var n int
		if tag == tagSmallTuple {
			if err := d.need(p, 1, "SMALL_TUPLE_EXT arity"); err != nil {
				return term.Term{}, pos, frame{}, err
			}
			n, p = int(b[p]), p+1
		} else {
			if err := d.need(p, 4, "LARGE_TUPLE_EXT arity"); err != nil {
				return term.Term{}, pos, frame{}, err
			}
			n, p = u32len(b[p:]), p+4
		}
		if n == 0 {
			return term.Tuple(), p, frame{}, nil
		}
		if n > len(b)-p {
			return term.Term{}, pos, frame{}, d.err(pos, ErrSize, "a tuple of "+strconv.Itoa(n)+" elements in "+strconv.Itoa(len(b)-p)+" bytes")
		}
		return term.Term{}, p, frame{tag: tagSmallTuple, need: n}, nil
	case tagList:
		if err := d.need(p, 4, "LIST_EXT length"); err != nil {
			return term.Term{}, pos, frame{}, err
		}
		n := u32len(b[p:])
		p += 4
		if n >= len(b)-p { // n elements and a tail
			return term.Term{}, pos, frame{}, d.err(pos, ErrSize, "a list of "+strconv.Itoa(n)+" elements in "+strconv.Itoa(len(b)-p)+" bytes")
		}
		return term.Term{}, p, frame{tag: tagList, need: n + 1}, nil
	case tagMap:
		if err := d.need(p, 4, "MAP_EXT arity"); err != nil {
			return term.Term{}, pos, frame{}, err
		}
		n := u32len(b[p:])
		p += 4
		if n == 0 {
			return term.Map(), p, frame{}, nil
		}
		if n > (len(b)-p)/2 {
			return term.Term{}, pos, frame{}, d.err(pos, ErrSize, "a map of "+strconv.Itoa(n)+" entries in "+strconv.Itoa(len(b)-p)+" bytes")
		}
		return term.Term{}, p, frame{tag: tagMap, need: 2 * n}, nil
	case tagPid, tagNewPid:
		t, next, err := d.pid(pos)
		return t, next, frame{}, err
	case tagPort, tagNewPort, tagV4Port:
		t, next, err := d.port(pos)
		return t, next, frame{}, err
	case tagReference, tagNewReference, tagNewerReference:
		t, next, err := d.ref(pos)
		return t, next, frame{}, err
	case tagNewFun, tagFun:
		return term.Term{}, pos, frame{}, d.err(pos, ErrUnsupported, "a fun")
	case tagExport:
		return term.Term{}, pos, frame{}, d.err(pos, ErrUnsupported, "an export (fun M:F/A)")
	case tagAtomCacheRef:
		return term.Term{}, pos, frame{}, d.err(pos, ErrUnsupported, "an atom cache reference, which only distribution uses")
	case tagAtomIndex2, tagAtomIndex3:
		return term.Term{}, pos, frame{}, d.err(pos, ErrUnsupported, atomIndex)
	case tagDistHeader:
		return term.Term{}, pos, frame{}, d.err(pos, ErrUnsupported, "a distribution header")
	case tagLocal:
		return term.Term{}, pos, frame{}, d.err(pos, ErrUnsupported, "a LOCAL_EXT term, which only the node that wrote it reads")
	case tagCompressed:
		return term.Term{}, pos, frame{}, d.err(pos, ErrTag, "a compressed term inside a term")
	case Version:
		return term.Term{}, pos, frame{}, d.err(pos, ErrTag, "a version byte inside a term")
	}
	return term.Term{}, pos, frame{}, d.err(pos, ErrTag, "tag "+strconv.Itoa(int(tag)))
}

// atomIndex says why ATOM_INTERNAL_REF2 and 3 cannot be read: erts reads
// them as an index into its own atom table, which only the VM that wrote
// them (and only while it runs) can resolve.
const atomIndex = "an index into the atom table of the VM that wrote it"

func (d *decoder) bignum(pos int) (term.Term, int, error) {
	b, p := d.b, pos+1
	var n int
	if b[pos] == tagSmallBig {
		if err := d.need(p, 2, "SMALL_BIG_EXT header"); err != nil {
			return term.Term{}, pos, err
		}
		n, p = int(b[p]), p+1
	} else {
		if err := d.need(p, 5, "LARGE_BIG_EXT header"); err != nil {
			return term.Term{}, pos, err
		}
		n, p = u32len(b[p:]), p+4
	}
	neg := b[p] != 0 // as erts reads it: every sign byte but 0 is negative
	p++
	if n > len(b)-p {
		return term.Term{}, pos, d.err(pos, ErrSize, "a bignum of "+strconv.Itoa(n)+" bytes in "+strconv.Itoa(len(b)-p))
	}
	mag := b[p : p+n]
	for len(mag) > 0 && mag[len(mag)-1] == 0 { // erts reads unnormalized bignums
		mag = mag[:len(mag)-1]
	}
	if len(mag) <= 8 {
		var u uint64
		for i := len(mag) - 1; i >= 0; i-- {
			u = u<<8 | uint64(mag[i])
		}
		switch {
		case !neg:
			return term.Uint(u), p + n, nil
		case u <= 1<<63:
			return term.Int(int64(-u)), p + n, nil
		}
	}
	be := make([]byte, len(mag))
	for i, c := range mag {
		be[len(mag)-1-i] = c
	}
	v := new(big.Int).SetBytes(be)
	if neg {
		v.Neg(v)
	}
	// term.BigInt copies v: one allocation more a bignum, the price of
	// keeping etf, like term, on the standard library and public API only.
	return term.BigInt(v), p + n, nil
}

// floatText reads FLOAT_EXT: 31 bytes of text, the number ending at the
// first NUL.
func (d *decoder) floatText(pos int) (term.Term, int, error) {
	p := pos + 1
	if err := d.need(p, 31, "FLOAT_EXT"); err != nil {
		return term.Term{}, pos, err
	}
	s := d.b[p : p+31]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !isFloatText(s) {
		return term.Term{}, pos, d.err(pos, ErrInvalid, "FLOAT_EXT text "+strconv.Quote(string(s)))
	}
	return term.Float(f), p + 31, nil
}

// isFloatText accepts the decimal forms erts reads: digits, sign, point
// and exponent, without the hex, underscore, inf and nan that ParseFloat
// also takes.
func isFloatText(s []byte) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return len(s) > 0
}

// atom reads an atom of any of the four tags and returns its name as UTF-8.
func (d *decoder) atom(pos int) (string, int, error) {
	if pos >= len(d.b) {
		return "", pos, d.err(pos, ErrTruncated, "an atom is missing")
	}
	b, p := d.b, pos+1
	var n int
	switch b[pos] {
	case tagSmallAtom, tagSmallAtomUTF8:
		if err := d.need(p, 1, "atom length"); err != nil {
			return "", pos, err
		}
		n, p = int(b[p]), p+1
	case tagAtom, tagAtomUTF8:
		if err := d.need(p, 2, "atom length"); err != nil {
			return "", pos, err
		}
		n, p = int(binary.BigEndian.Uint16(b[p:])), p+2
	case tagAtomCacheRef:
		return "", pos, d.err(pos, ErrUnsupported, "an atom cache reference, which only distribution uses")
	case tagAtomIndex2, tagAtomIndex3:
		return "", pos, d.err(pos, ErrUnsupported, atomIndex)
	default:
		return "", pos, d.err(pos, ErrTag, "tag "+strconv.Itoa(int(b[pos]))+" where an atom must be")
	}
	if n > len(b)-p { // not through need: the message would be built for every atom
		return "", pos, d.err(p, ErrTruncated, "an atom of "+strconv.Itoa(n)+" bytes")
	}
	raw := b[p : p+n]
	if b[pos] == tagAtom || b[pos] == tagSmallAtom {
		if n > maxAtomChars {
			return "", pos, d.err(pos, ErrInvalid, "an atom of "+strconv.Itoa(n)+" characters; Erlang's limit is 255")
		}
		return latin1(raw), p + n, nil
	}
	if !utf8.Valid(raw) {
		return "", pos, d.err(pos, ErrInvalid, "an atom that is not valid UTF-8")
	}
	if c := utf8.RuneCount(raw); c > maxAtomChars {
		return "", pos, d.err(pos, ErrInvalid, "an atom of "+strconv.Itoa(c)+" characters; Erlang's limit is 255")
	}
	return string(raw), p + n, nil
}

func latin1(raw []byte) string {
	ascii := true
	for _, c := range raw {
		ascii = ascii && c < utf8.RuneSelf
	}
	if ascii {
		return string(raw)
	}
	out := make([]byte, 0, 2*len(raw))
	for _, c := range raw {
		out = utf8.AppendRune(out, rune(c))
	}
	return string(out)
}

func (d *decoder) binary(pos int) (term.Term, int, error) {
	b, p := d.b, pos+1
	if err := d.need(p, 4, "binary length"); err != nil {
		return term.Term{}, pos, err
	}
	n := u32len(b[p:])
	p += 4
	bits := 8
	if b[pos] == tagBitBinary {
		if err := d.need(p, 1, "BIT_BINARY_EXT bits"); err != nil {
			return term.Term{}, pos, err
		}
		bits = int(b[p])
		p++
		// erts's rule: 1..8 bits in the last byte, or 0 for no bytes.
		if bits > 8 || (n == 0) != (bits == 0) {
			return term.Term{}, pos, d.err(pos, ErrInvalid, strconv.Itoa(bits)+" bits in the last of "+strconv.Itoa(n)+" bytes")
		}
	}
	if n > len(b)-p {
		return term.Term{}, pos, d.err(pos, ErrSize, "a binary of "+strconv.Itoa(n)+" bytes in "+strconv.Itoa(len(b)-p))
	}
	data := bytes.Clone(b[p : p+n])
	if data == nil {
		data = []byte{}
	}
	if bits == 8 || n == 0 {
		return term.Binary(data), p + n, nil
	}
	return term.Bitstring(data, 8*(n-1)+bits), p + n, nil
}

// node reads the node atom of a pid, port or reference at p, and checks
// that rest more bytes follow it.
func (d *decoder) node(pos, p, rest int, what string) (string, int, error) {
	name, p, err := d.atom(p)
	if err != nil {
		return "", pos, err
	}
	if rest > len(d.b)-p {
		return "", pos, d.err(pos, ErrTruncated, what+" needs "+strconv.Itoa(rest)+" bytes after its node")
	}
	return name, p, nil
}

func (d *decoder) pid(pos int) (term.Term, int, error) {
	old := d.b[pos] == tagPid
	rest := 12
	if old {
		rest = 9
	}
	node, p, err := d.node(pos, pos+1, rest, "a pid")
	if err != nil {
		return term.Term{}, pos, err
	}
	b := d.b
	pid := term.Pid{Node: node, ID: binary.BigEndian.Uint32(b[p:]), Serial: binary.BigEndian.Uint32(b[p+4:])}
	if old {
		pid.Creation = uint32(b[p+8])
	} else {
		pid.Creation = binary.BigEndian.Uint32(b[p+8:])
	}
	return pid.Term(), p + rest, nil
}

func (d *decoder) port(pos int) (term.Term, int, error) {
	tag := d.b[pos]
	rest := 12 // ID:64, Creation:32
	switch tag {
	case tagPort:
		rest = 5
	case tagNewPort:
		rest = 8
	}
	node, p, err := d.node(pos, pos+1, rest, "a port")
	if err != nil {
		return term.Term{}, pos, err
	}
	b := d.b
	port := term.Port{Node: node}
	switch tag {
	case tagPort:
		port.ID, port.Creation = uint64(binary.BigEndian.Uint32(b[p:])), uint32(b[p+4])
	case tagNewPort:
		port.ID, port.Creation = uint64(binary.BigEndian.Uint32(b[p:])), binary.BigEndian.Uint32(b[p+4:])
	default:
		port.ID, port.Creation = binary.BigEndian.Uint64(b[p:]), binary.BigEndian.Uint32(b[p+8:])
	}
	return port.Term(), p + rest, nil
}

func (d *decoder) ref(pos int) (term.Term, int, error) {
	b, tag := d.b, d.b[pos]
	if tag == tagReference {
		node, p, err := d.node(pos, pos+1, 5, "a reference")
		if err != nil {
			return term.Term{}, pos, err
		}
		r := term.Ref{Node: node, IDs: []uint32{binary.BigEndian.Uint32(b[p:])}, Creation: uint32(b[p+4])}
		return r.Term(), p + 5, nil
	}
	if err := d.need(pos+1, 2, "reference length"); err != nil {
		return term.Term{}, pos, err
	}
	n := int(binary.BigEndian.Uint16(b[pos+1:]))
	cre := 4
	if tag == tagNewReference {
		cre = 1
	}
	node, p, err := d.node(pos, pos+3, cre+4*n, "a reference")
	if err != nil {
		return term.Term{}, pos, err
	}
	r := term.Ref{Node: node, IDs: make([]uint32, n)}
	if cre == 1 {
		r.Creation = uint32(b[p])
	} else {
		r.Creation = binary.BigEndian.Uint32(b[p:])
	}
	p += cre
	for i := range r.IDs {
		r.IDs[i] = binary.BigEndian.Uint32(b[p+4*i:])
	}
	return r.Term(), p + 4*n, nil
}

// u32len reads a 32-bit length or arity. Where int has 32 bits, a length
// beyond its range becomes the largest int, which every check against the
// bytes left then refuses.
func u32len(b []byte) int {
	v := uint64(binary.BigEndian.Uint32(b))
	if v > math.MaxInt {
		return math.MaxInt
	}
	return int(v)
}
