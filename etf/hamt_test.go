package etf_test

import (
	"bytes"
	"encoding/hex"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/term"
)

// Hashes that OTP 25 (Debian, amd64) reports for these terms with
// erts_debug:get_internal_state({internal_hash, T}), measured by hand.
var internalHashes = []struct {
	text string
	want uint32
}{
	{"0", 3620831944},
	{"1", 2441450838},
	{"-1", 559702020},
	{"255", 3445581034},
	{"256", 3271219649},
	{"576460752303423487", 2748343757},               // the largest small integer, 2^59-1
	{"-576460752303423488", 767231620},               // the smallest, -2^59
	{"576460752303423488", 2160620466},               // 2^59: a bignum
	{"-576460752303423489", 1026718139},              // -2^59-1
	{"18446744073709551616", 1670597026},             // 2^64: two digits
	{"-1267650600228229401496703205376", 1615963138}, // -2^100
	{"0.0", 2778859731},
	{"-0.0", 2778859731},
	{"1.5", 1817557079},
	{"-2.5e300", 4055141352},
	{"<<>>", 3580844982},
	{"<<1>>", 1985782986},
	{`<<"hello world!">>`, 2655069432}, // one whole block of twelve
	{`<<"hello world!!">>`, 3333130923},
	{"<<1:1>>", 2541828467},
	{"<<255,7:3>>", 3633918860},
	{"[]", 2464209347},
	{`"abc"`, 4050146831},
	{`"abcd"`, 2584962673},
	{`"abcde"`, 513042836},
	{"[1000]", 2455861932},
	{"[1|2]", 813403020},
	{"[1,2.0|<<>>]", 1294655367},
	{"{}", 904478834},
	{"{1,{2}}", 171866447},
	{"#{}", 4050418618},
	{`#{1 => [], "k" => 2.0}`, 3549038810},
}

func TestInternalHash(t *testing.T) {
	for _, c := range internalHashes {
		x, err := term.Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got := etf.InternalHash(x); got != c.want {
			t.Errorf("hash of %s: %d, want %d", c.text, got, c.want)
		}
	}
	// A hashmap as a term: #{I => I} for I in 1..33.
	es := make([]term.MapEntry, 33)
	for i := range es {
		es[i] = term.MapEntry{Key: term.Int(int64(i + 1)), Value: term.Int(int64(i + 1))}
	}
	if got, want := etf.InternalHash(term.Map(es...)), uint32(3422438524); got != want {
		t.Errorf("hash of a 33-key map: %d, want %d", got, want)
	}
}

// term_to_binary's bytes for maps of more than 32 keys, from OTP 25.
func TestHashmapGolden(t *testing.T) {
	ints := make([]term.MapEntry, 33)
	for i := range ints {
		ints[i] = term.MapEntry{Key: term.Int(int64(i + 1)), Value: term.Int(0)}
	}
	bins := make([]term.MapEntry, 40)
	for i := range bins {
		bins[i] = term.MapEntry{Key: term.Binary([]byte{byte(i + 1)}), Value: term.Int(int64(i + 1))}
	}
	// Two keys whose 32-bit hashes are equal meet again eight levels down,
	// under the hash erts seeds with the depth: 40660 and 59671, and a
	// bignum and a tuple.
	collide := func(a, b string) term.Term { return besideFill(term.MustParse(a), term.MustParse(b)) }
	for _, c := range []struct {
		m    term.Term
		want string
	}{
		{collide("40660", "59671"), "83740000002162FFFFFFF6610062FFFFFFE6610062FFFFFFE5610062FFFFFFF3610062FFFFFFF161006200009ED46100620000E917610062FFFFFFFE610062FFFFFFE3610062FFFFFFFB610062FFFFFFEE610062FFFFFFEC610062FFFFFFE9610062FFFFFFF2610062FFFFFFE7610062FFFFFFE4610062FFFFFFFA610062FFFFFFF4610062FFFFFFEF610062FFFFFFFD610062FFFFFFEB610062FFFFFFE2610062FFFFFFE1610062FFFFFFFF610062FFFFFFF0610062FFFFFFF9610062FFFFFFF7610062FFFFFFF8610062FFFFFFE8610062FFFFFFF5610062FFFFFFEA610062FFFFFFED610062FFFFFFFC6100"},
		{collide("-3742129699954418445198807094182189241103938486272", "{6,<<3:2>>}"), "83740000002162FFFFFFF6610062FFFFFFE6610062FFFFFFE5610062FFFFFFF3610062FFFFFFF1610062FFFFFFFE610062FFFFFFE3610062FFFFFFFB610062FFFFFFEE610062FFFFFFEC610062FFFFFFE9610062FFFFFFF2610062FFFFFFE761006E1501000000000000000000000000A8AB0FDA35E67A8F026100680261064D0000000102C0610062FFFFFFE4610062FFFFFFFA610062FFFFFFF4610062FFFFFFEF610062FFFFFFFD610062FFFFFFEB610062FFFFFFE2610062FFFFFFE1610062FFFFFFFF610062FFFFFFF0610062FFFFFFF9610062FFFFFFF7610062FFFFFFF8610062FFFFFFE8610062FFFFFFF5610062FFFFFFEA610062FFFFFFED610062FFFFFFFC6100"},
		{term.Map(ints...), "83740000002161216100610C610061176100611D6100611E6100611A6100611F6100610B6100610961006120610061196100611C610061066100610D610061146100610F6100610E610061026100610761006101610061086100610361006111610061166100611561006104610061186100610A6100611B610061136100610561006112610061106100"},
		{term.Map(bins...), "8374000000286D000000010761076D000000011161116D000000012761276D000000010361036D000000011661166D000000011461146D000000011A611A6D000000011061106D000000010261026D000000010C610C6D000000012161216D000000010F610F6D000000011861186D000000010161016D000000011261126D000000011561156D000000011B611B6D000000010461046D000000010A610A6D000000011E611E6D000000010561056D000000010B610B6D000000010861086D000000012861286D000000010661066D000000012061206D000000012561256D000000011761176D000000010D610D6D000000010E610E6D000000011D611D6D000000011361136D000000012461246D000000012661266D000000012261226D000000012361236D000000011C611C6D000000011F611F6D000000010961096D00000001196119"},
	} {
		want, _ := hex.DecodeString(c.want)
		got, err := etf.Encode(c.m)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%v:\n got %X, %v\nwant %X", c.m, got, err, want)
		}
	}
}

// Hash order or key order, a map of more than 32 keys decodes to itself,
// and a map of up to 32 keys keeps key order.
func TestHashmapRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := drawBigMap(rt, func(rt *rapid.T) term.Term {
			if rapid.IntRange(0, 30).Draw(rt, "atomkey") == 0 {
				return drawAtom(rt)
			}
			return drawHashKey(rt, 2)
		})
		b, err := etf.Encode(m)
		if err != nil {
			rt.Fatal(err)
		}
		back, err := etf.Decode(b)
		if err != nil || !term.Equal(back, m) {
			rt.Fatalf("%v: decoded %v, %v", m, back, err)
		}
	})
}

// A map whose keys nest deeper than the depth limit is an error, not a
// crash in the hash.
func TestHashmapDeepKey(t *testing.T) {
	deep := term.Int(1)
	for range 200 {
		deep = term.List(deep)
	}
	es := []term.MapEntry{{Key: deep, Value: term.Int(0)}}
	for i := range 40 {
		es = append(es, term.MapEntry{Key: term.Int(int64(i)), Value: term.Int(0)})
	}
	o := etf.Options{MaxDepth: 100}
	if _, err := o.Encode(term.Map(es...)); err == nil {
		t.Fatal("no error for a key nested 200 deep under MaxDepth 100")
	}
	// Under the default limit the same map is written in hash order.
	b, err := etf.Encode(term.Map(es...))
	if err != nil {
		t.Fatal(err)
	}
	plain := append([]term.MapEntry(nil), es...)
	slices.SortFunc(plain, func(a, b term.MapEntry) int { return term.Compare(a.Key, b.Key) })
	if back, err := etf.Decode(b); err != nil || !term.Equal(back, term.Map(plain...)) {
		t.Fatalf("decoded %v, %v", back, err)
	}
}

// besideFill returns the map of keys and -1..-31, every value 0: a map of
// more than 32 keys, so a hashmap in erts, for keys or two.
func besideFill(keys ...term.Term) term.Term {
	es := make([]term.MapEntry, 0, len(keys)+31)
	for _, k := range keys {
		es = append(es, term.MapEntry{Key: k, Value: term.Int(0)})
	}
	for i := range 31 {
		es = append(es, term.MapEntry{Key: term.Int(int64(-1 - i)), Value: term.Int(0)})
	}
	return term.Map(es...)
}

// nestedKeyMaps returns d maps of 33 keys, each but the innermost holding
// the next as one of its keys: #{Inner => 0, 1 => 0, ..., 32 => 0}.
// seed varies the integers, so that maps built from different seeds differ.
func nestedKeyMaps(d int, seed int64) term.Term {
	var m term.Term
	for l := range d {
		es := make([]term.MapEntry, 0, 33)
		for i := range 32 {
			es = append(es, term.MapEntry{Key: term.Int(seed*64 + int64(i)), Value: term.Int(int64(l))})
		}
		if l == 0 {
			es = append(es, term.MapEntry{Key: term.Int(-1), Value: term.Int(0)})
		} else {
			es = append(es, term.MapEntry{Key: m, Value: term.Int(0)})
		}
		m = term.Map(es...)
	}
	return m
}

// A hashmap is written in erts's order while its keys hold at most three
// hashmaps one inside another's key, and in key order beyond (which erts
// reads as the same map): hashing such keys costs twice as much with each.
// Either way it decodes to itself.
func TestHashmapNestedKeys(t *testing.T) {
	for d := 1; d <= 7; d++ {
		m := nestedKeyMaps(d, 0)
		if got, want := etf.KeysHashable(m), d <= 4; got != want {
			t.Errorf("%d maps deep: KeysHashable %v, want %v", d, got, want)
		}
		b, err := etf.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := etf.Decode(b); err != nil || !term.Equal(back, m) {
			t.Fatalf("%d maps deep: decoded %v, %v", d, back, err)
		}
	}
}
