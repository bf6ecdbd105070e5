package term

import (
	"errors"
	"strings"
	"testing"
)

// The parser recurses: past MaxDepthCeiling it fails with ErrDepth, not a
// stack overflow, whatever MaxDepth asks.
func TestParseDepthCeiling(t *testing.T) {
	o := ParseOptions{MaxDepth: 100_000_000}
	n := 5_000_000
	if _, err := o.Parse(strings.Repeat("[", n) + strings.Repeat("]", n)); !errors.Is(err, ErrDepth) {
		t.Errorf("%d nested lists with MaxDepth 1e8: %v, want ErrDepth", n, err)
	}
	n = MaxDepthCeiling
	if _, err := o.Parse(strings.Repeat("{", n) + strings.Repeat("}", n)); err != nil {
		t.Errorf("%d nested tuples, at the ceiling: %v", n, err)
	}
	n++
	if _, err := o.Parse(strings.Repeat("{", n) + strings.Repeat("}", n)); !errors.Is(err, ErrDepth) {
		t.Errorf("%d nested tuples, one past the ceiling: %v, want ErrDepth", n, err)
	}
}
