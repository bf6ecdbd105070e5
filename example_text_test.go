package sext_test

import (
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// The reference's encode_hex, decode_hex and prefix_hex: Encode, Decode and
// Prefix with the Hex encoding.
func ExampleEncoding() {
	key, _ := sext.Encode(term.Tuple(term.Atom("a"), term.Int(1)))
	h := sext.Hex.EncodeToString(key)
	fmt.Println(h)

	b, _ := sext.Hex.DecodeString(h)
	t, _ := sext.Decode(b)
	fmt.Println(t)

	p, _ := sext.Prefix(term.Tuple(term.Atom("a"), term.Atom("_")))
	fmt.Println(string(sext.Hex.AppendPrefix(nil, p)))
	// Output:
	// 10000000020CB080080A00000002
	// {a,1}
	// 10000000020CB08008
}

// SB32 writes what the reference's encode_sb32 writes; OrderedSB32 differs
// only in the last, partial character, and keeps the order where SB32
// does not.
func ExampleEncoding_sb32() {
	a, b := []byte{0x12, 0x01}, []byte{0x12, 0x00, 0xFF} // a sorts after b
	for _, e := range []*sext.Encoding{sext.SB32, sext.OrderedSB32} {
		sa, sb := e.EncodeToString(a), e.EncodeToString(b)
		fmt.Println(sa, sb, sa > sb)
	}
	// Output:
	// 2801---- 280FF--- false
	// 280G---- 280FU--- true
}

func ExampleEncoding_AppendDecode() {
	buf := make([]byte, 0, 64)
	buf, err := sext.Hex.AppendDecode(buf, []byte("10000000020cb08008"))
	fmt.Printf("%x %v\n", buf, err)

	_, err = sext.SB32.AppendDecode(buf, []byte("28W1----"))
	fmt.Println(err)
	// Output:
	// 10000000020cb08008 <nil>
	// sext: invalid text encoding: not an sb32 digit at byte 2
}

// AppendPrefix drops sb32's last, partial character: a longer key's text
// would have other bits in it.
func ExampleEncoding_AppendPrefix() {
	p, _ := sext.Prefix(term.Tuple(term.Atom("user"), term.Atom("_")))
	fmt.Println(sext.SB32.EncodeToString(p))
	fmt.Println(string(sext.SB32.AppendPrefix(nil, p)))
	k, _ := sext.Encode(term.Tuple(term.Atom("user"), term.Int(42)))
	fmt.Println(sext.SB32.EncodeToString(k))
	// Output:
	// 200000021ITDPR5N4040----
	// 200000021ITDPR5N404
	// 200000021ITDPR5N4040K00001A0----
}
