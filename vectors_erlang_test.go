package sext

import (
	"bytes"
	"testing"

	"github.com/erlsext/sext/term"
)

// erlang_maps.tsv: maps whose keys mix pids, ports and references of
// several nodes with numbers and atoms, as the reference encodes them;
// zero_maps.tsv: maps whose keys hold 0.0 and -0.0 ahead of what tells
// them apart. The reference writes a map's entries in Erlang's own order
// of the keys, so these pin that order byte for byte.
func TestVectorsErlangMaps(t *testing.T) {
	for _, file := range []string{"erlang_maps.tsv", "zero_maps.tsv"} {
		for _, l := range readLines(t, file) {
			x, want := mustParse(t, l.fields[0]), mustHex(t, l.fields[1])
			got, err := Encode(x)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s line %d: Encode(%s)\n = %x, %v\nwant %x", file, l.n, l.fields[0], got, err, want)
				continue
			}
			for _, d := range decoders {
				back, err := d.decode(want)
				if err != nil || !term.Equal(back, x) {
					t.Errorf("%s line %d: %s decode = %v, %v", file, l.n, d.name, back, err)
				}
			}
			if back, err := (Options{Canonical: true}).Decode(want); err != nil || !term.Equal(back, x) {
				t.Errorf("%s line %d: canonical decode = %v, %v", file, l.n, back, err)
			}
		}
	}
}
