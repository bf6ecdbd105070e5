package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/internal/cputime"
	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// The users of the binary-prefix benchmark: 1,000,000 keys {user,
// <<Name>>, N}, half with a first name from usersFirst and digits, half
// with 3 to 10 random lowercase letters, loaded once per process into a
// Pebble store in a temporary directory.
const (
	usersN     = 1_000_000
	usersBatch = 20000
)

// usersFirst holds names that start with "ali", and near misses:
// "alh…" to "alo…" share "ali"'s whole bytes in the encoding and differ
// in the 3 bits its range fixes past them.
var usersFirst = []string{
	"ali", "alice", "alina", "alison", "alix", "alan", "alba", "alfred", "algernon", "alhambra",
	"alja", "alka", "allan", "alma", "alonso", "amber", "anna", "bob", "carol", "dave",
	"erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar", "peggy", "trent",
}

var (
	usersOnce  sync.Once
	usersStore *store.Store
	usersKV    *countingKV // under usersStore: counts the keys cursors read
	usersDir   string
	usersErr   error
)

// countingKV counts the keys its cursors step onto.
type countingKV struct {
	store.KV
	keys atomic.Int64
}

func (c *countingKV) NewIter(ctx context.Context, lower, upper []byte, reverse bool) (seam.Iter, error) {
	it, err := c.KV.NewIter(ctx, lower, upper, reverse)
	if err != nil {
		return nil, err
	}
	return &countingIter{Iter: it, keys: &c.keys}, nil
}

type countingIter struct {
	seam.Iter
	keys *atomic.Int64
}

func (it *countingIter) Next() bool {
	ok := it.Iter.Next()
	if ok {
		it.keys.Add(1)
	}
	return ok
}

// userName is the name of user i, drawn from r.
func userName(r *rand.Rand, i int) string {
	if i%2 == 0 {
		return fmt.Sprintf("%s%d", usersFirst[r.IntN(len(usersFirst))], r.IntN(100000))
	}
	b := make([]byte, 3+r.IntN(8))
	for j := range b {
		b[j] = byte('a' + r.IntN(26))
	}
	return string(b)
}

func userStore(b *testing.B) (*store.Store, *countingKV) {
	usersOnce.Do(func() {
		if usersDir, usersErr = os.MkdirTemp("", "sext-bench-users-"); usersErr != nil {
			return
		}
		kv, err := pebblekv.Open(usersDir, &pebblekv.Options{DisableWAL: true, MemTableSize: 64 << 20})
		if err != nil {
			usersErr = err
			return
		}
		ck := &countingKV{KV: kv}
		s := store.New(ck, &store.Options{NoSync: true})
		for first := 0; first < usersN && err == nil; first += usersBatch {
			r := rand.New(rand.NewPCG(uint64(first), 0xA11CE))
			batch := s.NewBatch()
			for i := first; i < min(first+usersBatch, usersN); i++ {
				k := term.Tuple(term.Atom("user"), term.Binary([]byte(userName(r, i))), term.Int(int64(i)))
				if err = batch.Put(k, []byte("v")); err != nil {
					break
				}
			}
			if err == nil {
				err = s.Apply(context.Background(), batch)
			}
			batch.Close()
		}
		usersStore, usersKV, usersErr = s, ck, err
	})
	if usersErr != nil {
		b.Fatal(usersErr)
	}
	return usersStore, usersKV
}

// BenchmarkPebblePrefixScan reads the users whose name starts with "ali"
// out of 1,000,000 keys {user, <<Name>>, N}, by the pattern {user,
// <<"ali",_/binary>>, '_'}: op=scan is store.Scan, op=select store.Select
// of [{{user,<<"ali",_/binary>>,'_'},[],['$_']}], and op=full the same
// filter over every key (a cursor over all of them and the compiled
// Matcher, the cheapest full scan). It fails unless the prefix reads
// read exactly the keys that match (counted at the KV seam), and
// reports keys-read/op and rows/op; the setup logs how many keys the
// prefix's whole bytes hold, which a range without its 3 bits past them
// would read.
//
//	go test -run '^$' -bench PebblePrefixScan -benchtime 20x -count 5 ./bench
func BenchmarkPebblePrefixScan(b *testing.B) {
	s, ck := userStore(b)
	ctx := context.Background()
	pattern := term.Tuple(term.Atom("user"), term.BinaryPrefix([]byte("ali")), term.Atom("_"))
	m, err := sext.CompileMatch(pattern)
	if err != nil {
		b.Fatal(err)
	}
	lower, upper, err := sext.PrefixRange(pattern)
	if err != nil {
		b.Fatal(err)
	}
	pre, err := sext.Prefix(pattern)
	if err != nil {
		b.Fatal(err)
	}
	// What the store holds: matches, the keys in the prefix's range, and
	// the keys under its whole bytes alone.
	matches, inRange, whole, all := 0, 0, 0, 0
	it, err := ck.KV.NewIter(ctx, seam.ReservedEnd, nil, false)
	if err != nil {
		b.Fatal(err)
	}
	for it.Next() {
		k := it.Key()
		all++
		ok, err := m.Matches(k)
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			matches++
		}
		if bytes.Compare(k, lower) >= 0 && bytes.Compare(k, upper) < 0 {
			inRange++
		}
		if bytes.HasPrefix(k, pre) {
			whole++
		}
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	if all != usersN || inRange != matches {
		b.Fatalf("%d keys stored, %d in the prefix's range, %d matching", all, inRange, matches)
	}
	b.Logf("%d keys; %d match %s; its range [%X, %X) holds %d; its whole bytes %X alone hold %d",
		all, matches, pattern, lower, upper, inRange, pre, whole)

	report := func(b *testing.B, read, rows int64) {
		b.ReportMetric(float64(read)/float64(b.N), "keys-read/op")
		b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
	}
	cpu := func(b *testing.B, c0 time.Duration) {
		if d := cputime.Process() - c0; d > 0 {
			b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
	b.Run("op=scan", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cputime.Process()
		k0 := ck.keys.Load()
		rows := int64(0)
		for range b.N {
			for e, err := range s.Scan(ctx, pattern, store.ScanOptions{}) {
				if err != nil {
					b.Fatal(err)
				}
				rows++
				sinkTerm = e.Key
			}
		}
		read := ck.keys.Load() - k0
		if read != int64(b.N*matches) || rows != int64(b.N*matches) {
			b.Fatalf("Scan read %d keys and yielded %d in %d runs; want %d each", read, rows, b.N, matches)
		}
		report(b, read, rows)
		cpu(b, c0)
	})
	b.Run("op=select", func(b *testing.B) {
		spec := matchspec.MustParse(`[{{user,<<"ali",_/binary>>,'_'},[],['$_']}]`)
		b.ReportAllocs()
		c0 := cputime.Process()
		var read, rows int64
		for range b.N {
			var st store.SelectStats
			for r, err := range s.Select(ctx, spec, store.SelectOptions{Stats: &st}) {
				if err != nil {
					b.Fatal(err)
				}
				sinkTerm = r.Key
			}
			read, rows = read+st.KeysRead, rows+st.Rows
		}
		if read != int64(b.N*matches) || rows != int64(b.N*matches) {
			b.Fatalf("Select read %d keys and yielded %d in %d runs; want %d each", read, rows, b.N, matches)
		}
		report(b, read, rows)
		cpu(b, c0)
	})
	b.Run("op=full", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cputime.Process()
		var read, rows int64
		for range b.N {
			it, err := ck.KV.NewIter(ctx, seam.ReservedEnd, nil, false)
			if err != nil {
				b.Fatal(err)
			}
			for it.Next() {
				read++
				if ok, _ := m.Matches(it.Key()); ok {
					rows++
				}
			}
			if err := it.Close(); err != nil {
				b.Fatal(err)
			}
		}
		if rows != int64(b.N*matches) {
			b.Fatalf("the full scan found %d in %d runs; want %d each", rows, b.N, matches)
		}
		report(b, read, rows)
		cpu(b, c0)
	})
}

// closeUsers closes and removes the users' store, if one was loaded:
// TestMain calls it as the process ends.
func closeUsers() {
	if usersStore != nil {
		usersStore.Close()
	}
	if usersDir != "" {
		os.RemoveAll(usersDir)
	}
}
