package store

import (
	"bytes"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/term"
)

// classify decodes a raw key under codec and says whether it is
// canonical: exactly the bytes codec writes for its term. canon is
// scratch the caller reuses; the returned slice holds the canonical bytes
// (of a non-canonical key too, which is what Check rewrites it to) and
// aliases canon. err is the decoding error of a foreign key; a term that
// decodes but does not encode (a depth between the decoder's and the
// encoder's limits, say) is non-canonical with no canonical bytes.
func classify(codec sext.Options, canon, k []byte) (t term.Term, out []byte, canonical bool, err error) {
	t, err = codec.Decode(k)
	if err != nil {
		return t, canon, false, err
	}
	out, eerr := codec.Append(canon[:0], t)
	if eerr != nil {
		return t, nil, false, nil
	}
	return t, out, bytes.Equal(out, k), nil
}
