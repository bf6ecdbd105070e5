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

// inflate returns the size bytes that the zlib stream z inflates to. It
// allocates what size claims only once the stream has delivered it.
func inflate(z *bytes.Reader, size int) ([]byte, error) {
	r, err := zlib.NewReader(z)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(min(size, 4*z.Len()+64))
	n, err := io.Copy(&out, io.LimitReader(r, int64(size)+1))
	if err != nil {
		return nil, err
	}
	if int(n) != size {
		return nil, errSizeMismatch
	}
	return out.Bytes(), nil
}
