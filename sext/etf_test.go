package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"
)

func TestETFEncode(t *testing.T) {
	runSext(t, "", "etf", "encode", "{ok,[1,2]}", "a", "#{a => 1}").
		want(t, 0, "8368026400026F6B6B00020102\n8364000161\n837400000001640001616101\n")
	runSext(t, "a\n\n'ä'\n", "etf", "encode", "--minor-version", "2").
		want(t, 0, "83770161\n837702C3A4\n")
	runSext(t, "", "etf", "encode", "--minor-version", "0", "1.5").
		want(t, 0, "8363312E3530303030303030303030303030303030303030652B30300000000000\n")
	runSext(t, "a\nfoo(\n<<1>>\n", "etf", "encode").
		want(t, 1, "8364000161\n836D0000000101\n", "sext: line 2: column 4:")
	runSext(t, "", "etf", "encode", "1.0e999").want(t, 1, "", "sext: argument 1:")
	runSext(t, "", "etf", "encode", "#Desc<1>").want(t, 1, "", "sext: argument 1: term cannot be encoded")
	runSext(t, "", "etf", "encode", "--minor-version", "3", "a").want(t, 2, "", "--minor-version must be 0, 1 or 2")
	runSext(t, "", "etf", "encode", "--compressed", "10", "a").want(t, 2, "", "--compressed must be 0..9")
	runSext(t, "", "etf", "encode", "--format=raw", "a").want(t, 0, "\x83d\x00\x01a")
	runSext(t, "", "etf", "encode", "--format=raw", "a", "b").want(t, 2, "", "exactly one term")
}

func TestETFDecode(t *testing.T) {
	runSext(t, "", "etf", "decode", "8368026400026F6B6B00020102", "837400000001640001616101").
		want(t, 0, "{ok,[1,2]}\n#{a => 1}\n")
	runSext(t, "836d0000000101\n\n8368\nzz\n8361010203\n", "etf", "decode").
		want(t, 1, "<<1>>\n",
			"sext: line 3: byte 2: truncated input", "sext: line 4: column 1:", "sext: line 5: byte 3: trailing bytes")
	// A compressed term, and the inflate bound.
	c := runSext(t, "", "etf", "encode", "--compressed", "6", "[a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a]")
	if c.code != 0 || c.stdout[:4] != "8350" {
		t.Fatalf("compressed: %+v", c)
	}
	runSext(t, c.stdout, "etf", "decode").want(t, 0, "[a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a]\n")
	runSext(t, c.stdout, "etf", "decode", "--max-inflate", "10").want(t, 1, "", "byte 2: size out of range")
	// A compressed term of 1.5 MiB of empty lists in 1.5 KB: over 64 times
	// its size, refused unless the ratio is lifted (issue 25: 66 KB of 64
	// MiB made the command allocate 8.1 GB and print it).
	n := 3 << 19
	raw := binary.BigEndian.AppendUint32([]byte{108}, uint32(n))
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(raw)
	w.Write(bytes.Repeat([]byte{106}, n+1))
	w.Close()
	bomb := append(binary.BigEndian.AppendUint32([]byte{131, 80}, uint32(len(raw)+n+1)), z.Bytes()...)
	sextBytes(t, bomb, "etf", "decode", "--format=raw").want(t, 1, "", "byte 2: size out of range", "MaxInflateRatio")
	if r := sextBytes(t, bomb, "etf", "decode", "--format=raw", "--max-inflate-ratio", "-1"); r.code != 0 || len(r.stdout) != 3*n+2 {
		t.Errorf("--max-inflate-ratio -1: exit %d, %d bytes out, %q", r.code, len(r.stdout), r.stderr)
	}
	sextBytes(t, bomb, "etf", "decode", "--format=raw", "--max-inflate-ratio", "-2").want(t, 2, "", "--max-inflate-ratio below -1")
	runSext(t, "", "etf", "decode", "83700000").want(t, 1, "", "unsupported term: a fun")
	runSext(t, "", "etf", "decode", "--max-depth", "2", "8368016801680106").want(t, 1, "", "nesting too deep")
	runSext(t, "\x83d\x00\x01a", "etf", "decode", "--format=raw").want(t, 0, "a\n")
	runSext(t, "", "etf", "decode", "--format=raw", "83").want(t, 2, "", "takes no arguments")
}

func TestETFUsage(t *testing.T) {
	runSext(t, "", "etf").want(t, 2, "", "encode or decode?")
	runSext(t, "", "etf", "frob").want(t, 2, "", `unknown subcommand "frob"`)
	if r := runSext(t, "", "help", "etf"); r.code != 0 || !contains(r.stdout, "sext etf decode [flags] [HEX...]") {
		t.Errorf("help etf: %+v", r)
	}
	if r := runSext(t, "", "etf", "decode", "-h"); r.code != 0 || !contains(r.stdout, "--max-inflate") || !contains(r.stdout, "--max-inflate-ratio") {
		t.Errorf("etf decode -h: %+v", r)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
