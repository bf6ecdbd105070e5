package sext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// BenchmarkFraming64KB sets the framing of a 64 KB binary, both ways,
// beside a plain copy of the same bytes: the physical limit for this work.
// Buffers are allocated once, so only the bytes moved are measured.
func BenchmarkFraming64KB(b *testing.B) {
	src := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	framed := appendFrame(nil, src, 8*len(src), false)
	dst := make([]byte, len(src))
	b.Run("op=copy", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			copy(dst, src)
		}
	})
	b.Run("op=unframe", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			f, err := scanFrame(framed, 0, 0)
			if err != nil || f.units != len(dst) {
				b.Fatal(err)
			}
			if err := unframe(dst, framed, 0, f, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	out := make([]byte, 0, len(framed))
	b.Run("op=frame", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			out = appendFrame(out[:0], src, 8*len(src), false)
		}
	})
}

// TestSpreadGather checks the three-step moves against the definition:
// byte i of a group sits i+1 bits down, after its marker.
func TestSpreadGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		x := rng.Uint64()
		want := uint64(unitMarks)
		for i := range 7 {
			want |= (x >> (56 - 8*i) & 0xFF) << (55 - 9*i)
		}
		if got := spread(x); got != want {
			t.Fatalf("spread(%016x) = %016x, want %016x", x, got, want)
		}
		if got := gather(want); got != x&^0xFF {
			t.Fatalf("gather(%016x) = %016x, want %016x", want, got, x&^0xFF)
		}
	}
}

// The frame reader that takes the last group's units 64 bits at a time
// agrees with one that reads them unit by unit, on framed strings
// followed by other bytes, damaged or not, both ways: the same frame,
// the same error at the same offset, the same bytes.
func TestPropScanFrameAgreesWithUnitByUnit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "data")
		neg := rapid.Bool().Draw(t, "neg")
		inv := byte(0)
		if neg {
			inv = 0xFF
		}
		b := rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "before")
		pos := len(b)
		b = appendFrame(b, data, 8*len(data), neg)
		if rapid.Bool().Draw(t, "damage") {
			i := rapid.IntRange(pos, len(b)-1).Draw(t, "at")
			b[i] ^= rapid.Byte().Draw(t, "flip")
		}
		if rapid.Bool().Draw(t, "cut") {
			b = b[:rapid.IntRange(pos, len(b)).Draw(t, "len")]
		}
		b = append(b, rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "after")...)
		got, gerr := scanFrame(b, pos, inv)
		want, werr := unitScanFrame(b, pos, inv)
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("scanFrame(%x, %d) = %+v, %v; unit by unit %+v, %v", b, pos, got, gerr, want, werr)
		}
		// frame8 claims exactly the whole-byte frames ending with 8, as
		// scanFrame and unframe read them, and shortFrame those of up to
		// seven bytes.
		if end, units := frame8(b, pos); neg {
			// ascending only
		} else if end > 0 {
			data := make([]byte, units)
			if gerr != nil || got.end != end || got.units != units || got.bits != 8*units || b[end-1] != 8 || unframe(data, b, pos, got, 0) != nil {
				t.Fatalf("frame8(%x, %d) = %d, %d; scanFrame %+v, %v", b, pos, end, units, got, gerr)
			}
			if _, _, short := shortFrame(b, pos); units > 0 && units < 8 && short != end {
				t.Fatalf("frame8(%x, %d) ends at %d; shortFrame at %d", b, pos, end, short)
			}
			if short := shortWholeFrame(b, pos); short != 0 && short != end || short == 0 && units > 0 && units < 8 && pos+8 <= len(b) {
				t.Fatalf("frame8(%x, %d) ends at %d; shortWholeFrame at %d", b, pos, end, short)
			}
		} else if gerr == nil && got.bits == 8*got.units && b[got.end-1] == 8 {
			t.Fatalf("frame8(%x, %d) refuses %+v", b, pos, got)
		}
		if x, n, end := shortFrame(b, pos); end > 0 && !neg {
			// The one-load reader claims only frames the general reader
			// finds whole, and reads the same bytes.
			var short [8]byte
			binary.BigEndian.PutUint64(short[:], x)
			w := make([]byte, want.units)
			if werr != nil || want.bits != 8*n || want.units != n || want.end != end ||
				unitUnframe(w, b, pos, want, 0) != nil || !bytes.Equal(w, short[:n]) {
				t.Fatalf("shortFrame(%x, %d) = %x, %d, %d; general %+v, %v", b, pos, short[:n], n, end, want, werr)
			}
		} else if werr == nil && !neg && want.units >= 1 && want.units <= 7 && want.bits == 8*want.units &&
			b[want.end-1] == 8 && pos+8 <= len(b) {
			t.Fatalf("shortFrame(%x, %d) refuses a short whole frame %+v", b, pos, want)
		}
		if hi, lo, n, end := mediumFrame(b, pos); end > 0 && !neg {
			// So does the two-load reader, for eight to fifteen bytes.
			var medium [16]byte
			binary.BigEndian.PutUint64(medium[:], hi)
			binary.BigEndian.PutUint64(medium[8:], lo)
			w := make([]byte, want.units)
			if werr != nil || want.bits != 8*n || want.units != n || want.end != end ||
				unitUnframe(w, b, pos, want, 0) != nil || !bytes.Equal(w, medium[:n]) {
				t.Fatalf("mediumFrame(%x, %d) = %x, %d, %d; general %+v, %v", b, pos, medium[:n], n, end, want, werr)
			}
		} else if werr == nil && !neg && want.units >= 8 && want.units <= 15 && want.bits == 8*want.units &&
			b[want.end-1] == 8 {
			t.Fatalf("mediumFrame(%x, %d) refuses a whole frame %+v", b, pos, want)
		}
		// The one-pass reader: the same frame, bytes and errors, appended
		// after what dst held.
		pre := []byte{0xAA, 0xBB}
		a, af, aerr := appendUnframe(bytes.Clone(pre), b, pos, inv)
		var wb []byte
		if werr == nil {
			wb = make([]byte, want.units)
			werr = unitUnframe(wb, b, pos, want, inv)
		}
		if fmt.Sprint(aerr) != fmt.Sprint(werr) || !bytes.Equal(a[:len(pre)], pre) ||
			aerr == nil && (af != want || !bytes.Equal(a[len(pre):], wb)) {
			t.Fatalf("appendUnframe(%x, %d) = %x, %+v, %v; unit by unit %x, %+v, %v", b, pos, a, af, aerr, wb, want, werr)
		}
		if gerr != nil {
			return
		}
		g, w := make([]byte, got.units), make([]byte, want.units)
		gerr, werr = unframe(g, b, pos, got, inv), unitUnframe(w, b, pos, want, inv)
		if !bytes.Equal(g, w) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("unframe(%x) = %x, %v; unit by unit %x, %v", b, g, gerr, w, werr)
		}
	})
}

// unitScanFrame is scanFrame with the last group read unit by unit, as
// it was before the 64-bit tail.
func unitScanFrame(b []byte, pos int, inv byte) (frame, error) {
	p, units, empty, err := frameGroups(b, pos, inv)
	if err != nil {
		return frame{}, err
	}
	if empty {
		return frame{end: pos + 1}, nil
	}
	bit := 0 // bit offset from p
	for {
		i := p + bit>>3
		if i >= len(b) {
			return frame{}, errAt(pos, ErrTruncated, "framed data")
		}
		if (b[i]^inv)<<(bit&7)&0x80 == 0 {
			break
		}
		bit += 9
		units++
	}
	return frameEnd(b, pos, p+bit>>3, bit&7, units, inv)
}

// unitUnframe is unframe with the last group read byte by byte.
func unitUnframe(dst, b []byte, pos int, f frame, inv byte) error {
	n, pos := unframeGroups(dst, b, pos, f, inv)
	if n < f.units {
		// At most seven units and their stop bit: 64 bits from pos on.
		var acc uint64
		for i := range 8 {
			if pos+i < len(b) {
				acc |= uint64(b[pos+i]^inv) << (56 - 8*i)
			}
		}
		for ; n < f.units; n++ {
			dst[n] = byte(acc >> 55)
			acc <<= 9
		}
	}
	return checkLastBits(dst, f)
}

// The short-frame fast path writes exactly what the general framing does.
func TestPropShortFrameIsFrame(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.SliceOfN(rapid.Byte(), 0, 7).Draw(t, "s")
		prefix := rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "prefix")
		want := appendFrame(bytes.Clone(prefix), s, 8*len(s), false)
		if got := appendShortFrame(bytes.Clone(prefix), s); !bytes.Equal(got, want) {
			t.Fatalf("appendShortFrame(%x) = %x, want %x", s, got, want)
		}
		if got := appendShortFrame(bytes.Clone(prefix), string(s)); !bytes.Equal(got, want) {
			t.Fatalf("appendShortFrame(%q) = %x, want %x", s, got, want)
		}
	})
}
