package term

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// An error names the token it stopped at, clipped: a 1 MB token does not
// come back as a 1 MB message.
func TestErrorsClipTokens(t *testing.T) {
	const n = 1 << 20
	long := strings.Repeat("é", n/2)
	for _, c := range []struct{ name, text string }{
		{"unknown form", "#" + strings.Repeat("Q", n) + "<"},
		{"invalid base", strings.Repeat("1", n) + "#1"},
		{"float out of range", "1" + strings.Repeat("0", n) + ".0e999999"},
		{"variable", "[" + strings.Repeat("X", n) + "]"},
		{"unexpected atom", "[a " + strings.Repeat("b", n) + "]"},
		{"unexpected quoted atom", "{1 '" + long + "'}"},
		{"unexpected integer", "[1 " + strings.Repeat("2", 4000) + "]"},
	} {
		_, err := Parse(c.text)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if msg := err.Error(); len(msg) > 200 || !utf8.ValidString(msg) {
			t.Errorf("%s: message of %d bytes: %.100q", c.name, len(msg), msg)
		}
	}
}
