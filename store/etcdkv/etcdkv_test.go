package etcdkv_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

var ctx = context.Background()

// TestMain runs the package's four parallel tests at once, unless
// -parallel says otherwise (go test's default is the number of CPUs):
// TestFaults and TestIndexes spend most of their time waiting for
// elections and timeouts, beside TestEtcd and TestEtcdSelect (on 2 CPUs,
// 15.8 s two at a time). It stops the cluster the tests share.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", "4")
	}
	code := m.Run()
	etcdcluster.StopShared()
	os.Exit(code)
}

// suiteCluster is the cluster TestEtcd and TestEtcdSelect share, each
// store in a key prefix of its own: etcdcluster.SuiteMembers members
// (one in a quick run, three at full size). TestFaults and TestIndexes
// kill members of three-member clusters of their own.
func suiteCluster(t *testing.T) *etcdcluster.Cluster {
	return etcdcluster.Shared(t, etcdcluster.Options{Members: etcdcluster.SuiteMembers()})
}

// TestEtcd runs everything that needs a healthy cluster, each part in
// its own key prefix. What needs the whole keyspace runs first, before
// t.Parallel, while no other test of the package runs: the seam's checks
// on a store without a prefix, so that its raw keys ("\x00",
// "\xff\xff", unbounded ranges) meet etcd's own keyspace edges, and the
// watch test, which compacts the cluster's history. The package's tests
// then run in parallel: much of their time is waiting on etcd.
func TestEtcd(t *testing.T) {
	c := suiteCluster(t)
	t.Run("Keyspace", func(t *testing.T) {
		wipe(t, c)
		storetest.RunKV(t, func(t *testing.T) store.KV { return open(t, c, etcdkv.Options{}) })
	})
	t.Run("Watch", func(t *testing.T) { testWatchJobs(t, c) })
	t.Parallel()
	t.Run("Conformance", func(t *testing.T) { storetest.Run(t, opener(c)) })
	t.Run("Paging", func(t *testing.T) { testPaging(t, c) })
	t.Run("Snapshot", func(t *testing.T) { testSnapshot(t, c) })
	t.Run("Batches", func(t *testing.T) { testBatches(t, c) })
	t.Run("Stats", func(t *testing.T) { testStats(t, c) })
	t.Run("Context", func(t *testing.T) { testContext(t, c) })
	t.Run("Rates", func(t *testing.T) { testRates(t, c) })
}

var prefixes atomic.Int64

// opener returns storetest's open: a new, empty KV each call, each in a
// prefix of its own, because the suite opens a new store while the last
// one still holds its keys.
func opener(c *etcdcluster.Cluster) func(t *testing.T) store.KV {
	return func(t *testing.T) store.KV {
		return open(t, c, etcdkv.Options{Prefix: fmt.Appendf(nil, "storetest/%d/", prefixes.Add(1))})
	}
}

// open connects to c with opts; the caller closes the KV (Close is
// idempotent, so a Store over it may close it too).
func open(t *testing.T, c *etcdcluster.Cluster, opts etcdkv.Options) *etcdkv.KV {
	t.Helper()
	opts.Endpoints = c.Endpoints()
	kv, err := etcdkv.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// openT is open with the KV closed when the test ends.
func openT(t *testing.T, c *etcdcluster.Cluster, opts etcdkv.Options) *etcdkv.KV {
	kv := open(t, c, opts)
	t.Cleanup(func() { kv.Close() })
	return kv
}

// wipe deletes every key in the cluster.
func wipe(t *testing.T, c *etcdcluster.Cluster) {
	t.Helper()
	kv := openT(t, c, etcdkv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := kv.Client().Delete(ctx, "\x00", clientv3.WithFromKey()); err != nil {
		t.Fatal(err)
	}
}

// testPaging checks cursors against brute force over small pages, so
// that page boundaries fall everywhere, in particular between a key and
// the same key with a 0x00 after it (the next page's lower bound). Each
// page size reads 40 random ranges at testsize's full size, 10 in a quick
// run (pages of one key: 5 and 2), a request a page.
func testPaging(t *testing.T, c *etcdcluster.Cluster) {
	r := rand.New(rand.NewPCG(8, 8))
	alphabet := []byte{0x00, 0x01, 'a', 0xfe, 0xff}
	randKey := func(min int) []byte {
		k := make([]byte, min+r.IntN(4))
		for i := range k {
			k[i] = alphabet[r.IntN(len(alphabet))]
		}
		return k
	}
	// An all-0xFF prefix has no end: its ranges run to the end of the
	// keyspace, the path that uses etcd's "from key" form.
	for _, prefix := range []string{"paging/", "\xff\xff\xff"} {
		kv := openT(t, c, etcdkv.Options{Prefix: []byte(prefix)})
		set := map[string]bool{}
		b := kv.NewBatch()
		for range 300 {
			k := randKey(1)
			set[string(k)] = true
			b.Set(k, append([]byte("v"), k...))
		}
		b.Set([]byte{}, []byte("the empty key")) // only a prefix makes it storable
		set[""] = true
		if err := b.Commit(ctx, true); err != nil {
			t.Fatal(err)
		}
		all := slices.Sorted(func(yield func(string) bool) {
			for k := range set {
				if !yield(k) {
					return
				}
			}
		})
		for _, pageSize := range []int{1, 2, 7, 1000} {
			pkv := openT(t, c, etcdkv.Options{Prefix: []byte(prefix), PageSize: pageSize})
			tries := testsize.Pick(10, 40)
			if pageSize == 1 {
				tries = testsize.Pick(2, 5) // a request per key
			}
			for range tries {
				var lower, upper []byte
				if r.IntN(4) > 0 {
					lower = randKey(0)
				}
				if r.IntN(4) > 0 {
					upper = randKey(0)
				}
				reverse := r.IntN(2) == 0
				var want []string
				for _, k := range all {
					if (lower == nil || k >= string(lower)) && (upper == nil || k < string(upper)) {
						want = append(want, k)
					}
				}
				if reverse {
					slices.Reverse(want)
				}
				it, err := pkv.NewIter(ctx, lower, upper, reverse)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for it.Next() {
					got = append(got, string(it.Key()))
					if v := it.Value(); string(v) != "v"+string(it.Key()) && len(it.Key()) > 0 {
						t.Errorf("value of %q = %q", it.Key(), v)
					}
				}
				if err := it.Close(); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("prefix %q page %d: NewIter(%q, %q, reverse=%v) = %q, want %q", prefix, pageSize, lower, upper, reverse, got, want)
				}
			}
		}
	}
}

// testSnapshot checks that a cursor reads every page at its first page's
// revision: writes made while it runs are not seen.
func testSnapshot(t *testing.T, c *etcdcluster.Cluster) {
	kv := openT(t, c, etcdkv.Options{Prefix: []byte("snapshot/"), PageSize: 3})
	b := kv.NewBatch()
	for i := range 20 {
		b.Set(fmt.Appendf(nil, "k%02d", i), []byte("old"))
	}
	if err := b.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, reverse := range []bool{false, true} {
		it, _ := kv.NewIter(ctx, nil, nil, reverse)
		n := 0
		for it.Next() {
			if string(it.Value()) != "old" {
				t.Errorf("reverse=%v: %s = %q, a write made after the cursor began", reverse, it.Key(), it.Value())
			}
			if n == 0 {
				// Rewrite everything, add keys on both sides, delete some.
				b := kv.NewBatch()
				for i := range 20 {
					b.Set(fmt.Appendf(nil, "k%02d", i), []byte("new"))
				}
				b.Set([]byte("a"), []byte("new"))
				b.Set([]byte("z"), []byte("new"))
				b.Delete([]byte("k10"))
				if err := b.Commit(ctx, true); err != nil {
					t.Fatal(err)
				}
			}
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if n != 20 {
			t.Errorf("reverse=%v: cursor saw %d keys, want the 20 of its snapshot", reverse, n)
		}
		// Put things back for the other direction.
		b := kv.NewBatch()
		for i := range 20 {
			b.Set(fmt.Appendf(nil, "k%02d", i), []byte("old"))
		}
		b.Delete([]byte("a"))
		b.Delete([]byte("z"))
		if err := b.Commit(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
}

func testBatches(t *testing.T, c *etcdcluster.Cluster) {
	kv := openT(t, c, etcdkv.Options{Prefix: []byte("batches/")})
	get := func(k string) string {
		v, err := kv.Get(ctx, []byte(k))
		if errors.Is(err, store.ErrNotFound) {
			return "<none>"
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	// etcd refuses a transaction that writes a key twice; a batch lets
	// the last write win.
	b := kv.NewBatch()
	b.Set([]byte("k"), []byte("1"))
	b.Set([]byte("k"), []byte("2"))
	b.Set([]byte("gone"), []byte("1"))
	b.Delete([]byte("gone"))
	b.Delete([]byte("back"))
	b.Set([]byte("back"), []byte("3"))
	if b.Count() != 6 {
		t.Errorf("Count = %d, want 6", b.Count())
	}
	if err := b.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := get("k") + get("gone") + get("back"); got != "2<none>3" {
		t.Errorf("after a batch with repeated keys: %q", got)
	}
	if err := b.Commit(ctx, true); !errors.Is(err, store.ErrBatchClosed) {
		t.Errorf("second Commit: %v, want ErrBatchClosed", err)
	}
	if err := b.Set([]byte("x"), nil); !errors.Is(err, store.ErrBatchClosed) {
		t.Errorf("Set after Commit: %v, want ErrBatchClosed", err)
	}

	// A batch over the server's --max-txn-ops (1024 on the test cluster)
	// is refused whole: a batch is atomic, so it is not split.
	s := store.New(storetest.Checked(t, kv), nil)
	sb := s.NewBatch()
	for i := range 1100 {
		sb.Put(term.Tuple(term.Atom("big"), term.Int(int64(i))), []byte("v"))
	}
	if err := s.Apply(ctx, sb); !errors.Is(err, etcdkv.ErrBatchTooLarge) {
		t.Fatalf("Apply(1100 writes) error = %v, want ErrBatchTooLarge", err)
	} else {
		t.Logf("as expected: %v", err)
	}
	for _, err := range s.Scan(ctx, term.Tuple(term.Atom("big"), term.Atom("_")), store.ScanOptions{}) {
		t.Fatalf("refused batch wrote something (err %v)", err)
	}

	// Without a member to talk to, calls fail within the timeout.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	dkv, err := etcdkv.Open(etcdkv.Options{Endpoints: []string{dead}, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer dkv.Close()
	start := time.Now()
	_, err = dkv.Get(ctx, []byte("k"))
	if !errors.Is(err, etcdkv.ErrUnavailable) || time.Since(start) > 3*time.Second {
		t.Errorf("Get from no cluster: %v after %v, want ErrUnavailable within the 500ms timeout", err, time.Since(start))
	} else {
		t.Logf("as expected, after %v: %v", time.Since(start).Round(time.Millisecond), err)
	}
}

func testStats(t *testing.T, c *etcdcluster.Cluster) {
	s := store.New(storetest.Checked(t, open(t, c, etcdkv.Options{Prefix: []byte("stats/")})), nil)
	defer s.Close()
	b := s.NewBatch()
	for i := range 123 {
		b.Put(term.Tuple(term.Atom("k"), term.Int(int64(i))), nil)
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backend != "etcd" || st.KeysEstimate != 123 || st.DiskBytes == 0 {
		t.Errorf("Stats = %+v, want etcd, 123 keys, some bytes", st)
	}
}

// putRaw writes keys that bypass the encoding.
func putRaw(t *testing.T, kv store.KV, keys ...[]byte) {
	t.Helper()
	b := kv.NewBatch()
	for _, k := range keys {
		b.Set(k, []byte("raw"))
	}
	if err := b.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
}

// mustParse parses a term in Erlang syntax.
func mustParse(t *testing.T, s string) term.Term {
	t.Helper()
	x, err := term.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return x
}

// keyString is a term's text, for comparing lists of keys.
func keyString(x term.Term) string { return x.String() }
