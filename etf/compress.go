package etf

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"
	"sync"
)

// writers keeps zlib writers by level: a new one costs more than a small
// term's compression.
var writers [10]sync.Pool

// compress replaces the term body buf[body:] with its compressed form
// (tag 80, the inflated size, a zlib stream) when that is shorter, as
// term_to_binary(T, [{compressed, Level}]) does.
func compress(buf []byte, body, level int) []byte {
	raw := buf[body:]
	if uint64(len(raw)) > math.MaxUint32 {
		return buf
	}
	var z bytes.Buffer
	z.Grow(len(raw)/2 + 16)
	w, _ := writers[level].Get().(*zlib.Writer)
	if w == nil {
		var err error
		if w, err = zlib.NewWriterLevel(&z, level); err != nil {
			return buf
		}
	} else {
		w.Reset(&z)
	}
	w.Write(raw) // a bytes.Buffer does not fail
	w.Close()
	writers[level].Put(w)
	if 5+z.Len() >= len(raw) {
		return buf
	}
	out := make([]byte, 0, body+5+z.Len())
	out = append(out, buf[:body]...)
	out = binary.BigEndian.AppendUint32(append(out, tagCompressed), uint32(len(raw)))
	return append(out, z.Bytes()...)
}

// maxDeflateRatio is the most a deflate stream can inflate to for each of
// its bytes: 258 bytes for a length code and a distance code of one bit
// each.
const maxDeflateRatio = 1032

// inflate returns the size bytes that the zlib stream z inflates to. It
// allocates size bytes at once only when the stream is long enough to
// deliver them; for a larger claim, which can only be a lie, the buffer
// grows as the stream delivers, so a lie costs what the stream can inflate
// to and no more.
func inflate(z *bytes.Reader, size int) ([]byte, error) {
	r, err := zlib.NewReader(z)
	if err != nil {
		return nil, err
	}
	c := size
	if n := z.Len() + 2; n < size/maxDeflateRatio { // +2: the zlib header, read
		c = n * maxDeflateRatio
	}
	// One byte more, to see a stream that inflates to more than size.
	out := make([]byte, 0, c+1)
	for {
		if len(out) == cap(out) {
			if len(out) > size {
				return nil, errSizeMismatch
			}
			grown := make([]byte, len(out), len(out)+min(len(out), size+1-len(out)))
			copy(grown, out)
			out = grown
		}
		n, err := r.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(out) != size {
		return nil, errSizeMismatch
	}
	return out, nil
}
