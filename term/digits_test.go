package term

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Integers of more than MaxIntDigits digits are refused before any
// conversion; those allowed convert exactly, long ones by halves.
func TestParseIntDigitLimit(t *testing.T) {
	at := "1" + strings.Repeat("0", DefaultMaxIntDigits-1)
	got, err := Parse(at)
	want, _ := new(big.Int).SetString(at, 10)
	if err != nil || !got.IsBig() || got.BigInt().Cmp(want) != 0 {
		t.Errorf("%d digits, at the limit: %v", DefaultMaxIntDigits, err)
	}
	for _, c := range []struct{ name, text string }{
		{"one digit past the limit", "1" + strings.Repeat("0", DefaultMaxIntDigits)},
		{"negative, in a list", "[-" + strings.Repeat("9", DefaultMaxIntDigits+1) + "]"},
		{"base 16", "16#" + strings.Repeat("F", DefaultMaxIntDigits+1)},
		{"a million digits", "1" + strings.Repeat("0", 1_000_000)},
	} {
		_, err := Parse(c.text)
		var se *SyntaxError
		if !errors.Is(err, ErrDigits) || !errors.As(err, &se) {
			t.Errorf("%s: %v, want ErrDigits", c.name, err)
			continue
		}
		if len(se.Msg) > 200 {
			t.Errorf("%s: message of %d bytes", c.name, len(se.Msg))
		}
	}
	// Leading zeros and separators are not digits that cost anything.
	if got, err := Parse(strings.Repeat("0", 100_000) + "5"); err != nil || !Equal(got, Int(5)) {
		t.Errorf("5 after 100,000 zeros: %v, %v", got, err)
	}
	if got, err := Parse(strings.Repeat("1_", 3000) + "1"); err != nil || !got.IsBig() {
		t.Errorf("3,001 digits with separators: %v", err)
	}
	// A lifted limit.
	long := "7" + strings.Repeat("3", 99_999)
	if _, err := (ParseOptions{MaxIntDigits: 99_999}).Parse(long); !errors.Is(err, ErrDigits) {
		t.Errorf("100,000 digits, limit 99,999: %v", err)
	}
	got, err = ParseOptions{MaxIntDigits: 100_000}.Parse(long)
	want, _ = new(big.Int).SetString(long, 10)
	if err != nil || got.BigInt().Cmp(want) != 0 {
		t.Errorf("100,000 digits, limit 100,000: %v", err)
	}
}

// parseDigits by halves agrees with math/big's direct conversion.
func TestParseDigitsByHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	for range 40 {
		base := 2 + r.IntN(35)
		n := directDigits + r.IntN(5*directDigits)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(base)]
		}
		b[0] = alphabet[1+r.IntN(base-1)]
		want, _ := new(big.Int).SetString(string(b), base)
		if got := parseDigits(string(b), base); got.Cmp(want) != 0 {
			t.Fatalf("base %d, %d digits: by halves %s..., want %s...", base, n, got.Text(base)[:20], want.Text(base)[:20])
		}
	}
}

// The limit is on the value in decimal, whatever base it is written in, so
// that String's decimal text of anything Parse read parses again: 16#F…F
// of 4,300 digits is 5,178 decimal digits, and used to be read, then
// printed as text Parse refused (found by FuzzParse).
func TestParseIntDigitLimitAnyBase(t *testing.T) {
	const max = 50
	o := ParseOptions{MaxIntDigits: max}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(max), nil) // the first value refused
	below := new(big.Int).Sub(limit, big.NewInt(1))
	for _, base := range []int{2, 3, 7, 16, 36} {
		for _, c := range []struct {
			v    *big.Int
			want bool
		}{{below, true}, {limit, false}, {new(big.Int).Lsh(limit, 40), false}} {
			text := strconv.Itoa(base) + "#" + c.v.Text(base)
			got, err := o.Parse(text)
			if c.want {
				if err != nil || got.BigInt().Cmp(c.v) != 0 {
					t.Errorf("base %d, %d decimal digits: %v, %v", base, len(c.v.String()), got, err)
				}
				if _, err := o.Parse(got.String()); err != nil {
					t.Errorf("base %d: printed %s does not parse: %v", base, got, err)
				}
				continue
			}
			if !errors.Is(err, ErrDigits) {
				t.Errorf("base %d, %d decimal digits: %v, want ErrDigits", base, len(c.v.String()), err)
			}
		}
	}
	// The fuzzer's input, at the default limit.
	hex := "16#" + strings.Repeat("F", DefaultMaxIntDigits)
	if _, err := Parse(hex); !errors.Is(err, ErrDigits) {
		t.Errorf("16# and %d F: %v, want ErrDigits", DefaultMaxIntDigits, err)
	}
}

// TestPrintedBigIntReadsBack: String writes an integer of any size, and
// Parse reads it back once the caller raises ParseOptions.MaxIntDigits to
// its length (or lifts it, -1); with the default limit the error says
// which option to raise. (A command that reads terms needs a flag for it.)
func TestPrintedBigIntReadsBack(t *testing.T) {
	b, _ := new(big.Int).SetString("-"+strings.Repeat("98765", 2000), 10)
	in := Tuple(BigInt(b), List(BigInt(new(big.Int).Neg(b))))
	text := in.String()
	_, err := Parse(text)
	if !errors.Is(err, ErrDigits) || !strings.Contains(err.Error(), "ParseOptions.MaxIntDigits") {
		t.Errorf("10,000 digits, default limit: %v, want ErrDigits naming the option", err)
	}
	for _, max := range []int{10_000, -1} {
		got, err := ParseOptions{MaxIntDigits: max}.Parse(text)
		if err != nil || !Equal(got, in) {
			t.Errorf("MaxIntDigits %d: %v, %v", max, got, err)
		}
	}
	if _, err := (ParseOptions{MaxIntDigits: 9_999}).Parse(text); !errors.Is(err, ErrDigits) {
		t.Errorf("MaxIntDigits 9,999: %v, want ErrDigits", err)
	}
}
