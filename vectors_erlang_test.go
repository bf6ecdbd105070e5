package sext

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext/term"
)

// erlang_maps.tsv: maps whose keys mix pids, ports and references of
// several nodes with numbers and atoms, as the reference encodes them. It
// writes a map's entries in Erlang's own order of the keys, so these pin
// that order (term.CompareErlang) byte for byte.
func TestVectorsErlangMaps(t *testing.T) {
	for _, l := range readLines(t, "erlang_maps.tsv") {
		x, want := mustParse(t, l.fields[0]), mustHex(t, l.fields[1])
		got, err := Encode(x)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("line %d: Encode(%s)\n = %x, %v\nwant %x", l.n, l.fields[0], got, err, want)
			continue
		}
		for _, d := range decoders {
			back, err := d.decode(want)
			if err != nil || !term.Equal(back, x) {
				t.Errorf("line %d: %s decode = %v, %v", l.n, d.name, back, err)
			}
		}
		if back, err := (Options{Canonical: true}).Decode(want); err != nil || !term.Equal(back, x) {
			t.Errorf("line %d: canonical decode = %v, %v", l.n, back, err)
		}
	}
}
