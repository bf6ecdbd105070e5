package sext

import (
	"math/rand/v2"
	"testing"
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
