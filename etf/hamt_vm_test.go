package etf_test

import (
	"bytes"
	"context"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/erlsext/sext/etf"
	"github.com/erlsext/sext/internal/erlvm"
	"github.com/erlsext/sext/term"
)

// vmHashes has the VM read each of bins and return its internal hash
// (make_internal_hash(T, 0), the hash of a hashmap's first eight levels).
func vmHashes(t *testing.T, vm *erlvm.VM, bins []term.Term) []term.Term {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := vm.Eval(ctx, `erts_debug:set_internal_state(available_internal_state, true),
		[erts_debug:get_internal_state({internal_hash, binary_to_term(B)}) || B <- Bins].`,
		map[string]term.Term{"Bins": term.List(bins...)})
	if err != nil {
		t.Fatal(err)
	}
	return r.Elems()
}

// This package's internal hash of every hashable kind of term is the
// VM's, as erts_debug reports it.
func TestVMInternalHash(t *testing.T) {
	vm := erlvm.Shared(t)
	keys := collect(t, rapid.Custom(func(rt *rapid.T) term.Term { return drawHashKey(rt, 3) }))
	for lo := 0; lo < len(keys); lo += batch {
		part := keys[lo:min(lo+batch, len(keys))]
		bins := make([]term.Term, len(part))
		for i, k := range part {
			bins[i] = term.Binary(encode(t, etf.Options{}, k))
		}
		for i, h := range vmHashes(t, vm, bins) {
			if got := etf.InternalHash(part[i]); int64(got) != h.Int64() {
				t.Fatalf("hash of %v: ours %d, the VM's %d", part[i], got, h.Int64())
			}
		}
	}
}

// A map of 33..200 hashable keys of every kind is written byte for byte
// as the VM's term_to_binary writes it after reading ours.
func TestVMHashmapOrder(t *testing.T) {
	vm := erlvm.Shared(t)
	maps := collect(t, rapid.Custom(func(rt *rapid.T) term.Term {
		return drawBigMap(rt, func(rt *rapid.T) term.Term { return drawHashKey(rt, 2) })
	}))
	checkReencoded(t, vm, maps, true)
}

// A map of more than 32 keys with an atom, pid, port or reference key
// among the others keeps key order: the VM reads it as the same map.
func TestVMHashmapFallback(t *testing.T) {
	vm := erlvm.Shared(t)
	unhashable := []func(*rapid.T) term.Term{drawAtom, drawPid, drawPort, drawRef3}
	maps := collect(t, rapid.Custom(func(rt *rapid.T) term.Term {
		m := drawBigMap(rt, func(rt *rapid.T) term.Term {
			if rapid.IntRange(0, 9).Draw(rt, "unhashable") == 0 {
				return rapid.SampledFrom(unhashable).Draw(rt, "uk")(rt)
			}
			return drawHashKey(rt, 1)
		})
		k := rapid.SampledFrom(unhashable).Draw(rt, "one")(rt)
		return term.Map(append(slices.Clone(m.Entries()), term.MapEntry{Key: k, Value: term.Int(0)})...)
	}))
	checkReencoded(t, vm, maps, false)
}

// drawRef3 draws a reference of three id words. OTP 25 itself crashes
// (a segmentation fault in maps:from_list, as in binary_to_term) on a map
// of more than 32 keys holding two references of one node and creation
// whose id words differ in number, such as #Ref<a@hh,4294967295,1,900> and
// #Ref<a@hh,4294967295,1,900,0,900,667408439>, so this property keeps to
// the three words of the references OTP 25 makes.
func drawRef3(t *rapid.T) term.Term {
	r := drawRef(t).Ref()
	r.IDs = append(slices.Clone(r.IDs), 7, 7)[:3]
	return r.Term()
}

// checkReencoded encodes each map, has the VM read it, and checks that
// the VM holds the same map and, if exact, writes our bytes again.
func checkReencoded(t *testing.T, vm *erlvm.VM, maps []term.Term, exact bool) {
	t.Helper()
	n := 0
	for lo := 0; lo < len(maps); lo += batch / 5 {
		part := maps[lo:min(lo+batch/5, len(maps))]
		bins := make([][]byte, len(part))
		pairs := make([]term.Term, len(part))
		for i, m := range part {
			bins[i] = encode(t, etf.Options{}, m)
			if etf.KeysHashable(m) != exact {
				t.Fatalf("KeysHashable is %v for %v", !exact, m)
			}
		}
		for i, r := range reencode(t, vm, bins, term.List()) {
			if r.Elems()[0].Atom() != "ok" {
				t.Fatalf("the VM cannot read %v: %s", part[i], r.Elems()[1].Bytes())
			}
			vmb := r.Elems()[1].Bytes()
			pairs[i] = term.Tuple(term.Binary(bins[i]), term.Binary(vmb))
			if exact && !bytes.Equal(vmb, bins[i]) {
				t.Fatalf("%d keys: %v\nours     %x\nthe VM's %x", part[i].Len(), part[i], bins[i], vmb)
			}
			n += part[i].Len()
		}
		for i, same := range call(t, vm, "same", term.List(pairs...)) {
			if same.Atom() != "true" {
				t.Fatalf("the VM reads our %v as another term", part[i])
			}
		}
	}
	t.Logf("%d maps, %d keys in all", len(maps), n)
}

// Maps of 33..200 hashable keys that the VM builds itself, by
// maps:from_list and by inserting one key at a time, are read and written
// again byte for byte as the VM writes them.
func TestVMHashmapFromVM(t *testing.T) {
	vm := erlvm.Shared(t)
	seed := vmSeed()
	t.Logf("VM generator seed %d", seed)
	const src = `rand:seed(exsss, Seed),
		Leaf = fun() -> case rand:uniform(7) of
			1 -> rand:uniform(1 bsl 20) - (1 bsl 19);
			2 -> (rand:uniform(1 bsl 64) - (1 bsl 63)) * (1 bsl rand:uniform(100));
			3 -> (rand:uniform() - 0.5) * 1.0e6;
			4 -> rand:bytes(rand:uniform(20) - 1);
			5 -> [rand:uniform(300) || _ <- lists:seq(1, rand:uniform(6))];
			6 -> {rand:uniform(10), <<(rand:uniform(127)):(rand:uniform(7))>>};
			7 -> [rand:uniform(3) | rand:uniform()]
		end end,
		Map = fun(K) -> Vs = lists:seq(1, K), case rand:uniform(2) of
			1 -> maps:from_list([{Leaf(), V} || V <- Vs]);
			2 -> lists:foldl(fun(V, M) -> M#{Leaf() => V} end, #{}, Vs)
		end end,
		[term_to_binary(Map(32 + rand:uniform(168))) || _ <- lists:seq(1, N)].`
	n, large := 0, 0
	for n < checks() {
		k := min(batch/5, checks()-n)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		r, err := vm.Eval(ctx, src, map[string]term.Term{"Seed": term.Int(seed + int64(n)), "N": term.Int(int64(k))})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, bt := range r.Elems() {
			b := bt.Bytes()
			m, err := etf.Decode(b)
			if err != nil {
				t.Fatalf("Decode of the VM's %x: %v", b, err)
			}
			if m.Len() > flatmapMax {
				large++
			}
			if ours := encode(t, etf.Options{}, m); !bytes.Equal(ours, b) {
				t.Fatalf("%v\nthe VM's %x\nours     %x", m, b, ours)
			}
		}
		n += k
	}
	t.Logf("%d maps from the VM written byte for byte again, %d of them of more than 32 keys (the others drew equal keys)", n, large)
}

// Maps in which two or three keys share all 32 bits of their hash, and
// so meet again under the hash of the next eight levels, are written byte
// for byte as the VM writes them. The keys are of mixed kinds, drawn from
// a seeded stream until their hashes collide.
func TestVMHashmapCollisions(t *testing.T) {
	vm := erlvm.Shared(t)
	seed := vmSeed()
	t.Logf("key stream seed %d", seed)
	groups := collidingKeys(uint64(seed), 400_000)
	if len(groups) < 5 {
		t.Fatalf("%d groups of colliding keys among 400,000; expected about 18", len(groups))
	}
	maps := make([]term.Term, len(groups))
	for i, g := range groups {
		maps[i] = besideFill(g...)
	}
	// And the maps themselves as keys: a hashmap's hash walks its leaves
	// in the order these place.
	outer := make([]term.MapEntry, 0, len(maps)+33)
	for i, m := range maps {
		outer = append(outer, term.MapEntry{Key: m, Value: term.Int(int64(i))})
	}
	for j := range 33 {
		outer = append(outer, term.MapEntry{Key: term.Int(int64(j)), Value: term.Int(0)})
	}
	checkReencoded(t, vm, append(maps, term.Map(outer...)), true)
}

// collidingKeys draws n keys from a stream seeded by seed and returns the
// groups of distinct keys whose internal hashes are equal.
func collidingKeys(seed uint64, n int) [][]term.Term {
	key := func(i int) term.Term {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		switch r.IntN(5) {
		case 0:
			return term.Int(r.Int64N(1<<41) - 1<<40)
		case 1:
			return term.BigInt(new(big.Int).Lsh(big.NewInt(r.Int64()), uint(64+r.IntN(100))))
		case 2:
			b := make([]byte, r.IntN(9))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			return term.Binary(b)
		case 3:
			nbits := 1 + r.IntN(7)
			return term.Tuple(term.Int(r.Int64N(10)), term.Bitstring([]byte{byte(r.Uint32()) << (8 - nbits)}, nbits))
		default:
			return term.List(term.Int(r.Int64N(300)), term.Int(r.Int64N(300)), term.Float(r.Float64()))
		}
	}
	first := make(map[uint32]int32, n)
	var groups [][]term.Term
	at := map[uint32]int{} // a hash's group in groups
	for i := range n {
		k := key(i)
		h := etf.InternalHash(k)
		j, seen := first[h]
		if !seen {
			first[h] = int32(i)
			continue
		}
		g, ok := at[h]
		if !ok {
			g = len(groups)
			at[h] = g
			groups = append(groups, []term.Term{key(int(j))})
		}
		if !slices.ContainsFunc(groups[g], func(x term.Term) bool { return term.Equal(x, k) }) {
			groups[g] = append(groups[g], k)
		}
	}
	return slices.DeleteFunc(groups, func(g []term.Term) bool { return len(g) < 2 })
}

// Hashmaps held one inside another's key, up to seven deep, are the same
// maps to the VM; up to the nesting this package hashes, they are its
// bytes as well.
func TestVMHashmapNestedKeys(t *testing.T) {
	vm := erlvm.Shared(t)
	var hashed, keyOrder []term.Term
	for d := 1; d <= 4; d++ {
		hashed = append(hashed, nestedKeyMaps(d, int64(d)))
	}
	for d := 5; d <= 7; d++ {
		keyOrder = append(keyOrder, nestedKeyMaps(d, int64(d)))
	}
	checkReencoded(t, vm, hashed, true)
	checkReencoded(t, vm, keyOrder, false)
}
