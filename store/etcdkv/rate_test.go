package etcdkv_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// Rate figures: how many keys, in what batches, and how many narrow
// scans. Small enough for a test on two shared cores; a quick run
// (testsize) loads a quarter of the keys.
const (
	rateBatch     = 500
	rateCustomers = 100
	rateNarrow    = 200
)

var rateKeys = testsize.Pick(5000, 20000)

// testRates loads the same keys into etcd and into Pebble and logs load
// and scan rates side by side. It checks only that both stores hold what
// was loaded: the figures are for people (the issue asks for them), and
// a shared machine is too noisy to assert on.
func testRates(t *testing.T, c *etcdcluster.Cluster) {
	es := store.New(open(t, c, etcdkv.Options{Prefix: []byte("rates/")}), nil)
	defer es.Close()
	ps, err := pebblestore.Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()

	var b strings.Builder
	fmt.Fprintf(&b, "%d keys {order, Customer, Seq} with 100-byte values, batches of %d, %d customers\n", rateKeys, rateBatch, rateCustomers)
	fmt.Fprintf(&b, "%-8s %14s %14s %14s %16s\n", "backend", "load keys/s", "scan keys/s", "rscan keys/s", "narrow scans/s")
	for _, be := range []struct {
		name string
		s    *store.Store
	}{{"pebble", ps}, {"etcd", es}} {
		r := measure(t, be.s)
		fmt.Fprintf(&b, "%-8s %14.0f %14.0f %14.0f %16.0f\n", be.name, r.load, r.scan, r.rscan, r.narrow)
	}
	t.Logf("rates (figures vary with the machine's load):\n%s", b.String())
}

type rates struct{ load, scan, rscan, narrow float64 }

func order(i int) term.Term {
	return term.Tuple(term.Atom("order"), term.Int(int64(i%rateCustomers)), term.Int(int64(i)))
}

func measure(t *testing.T, s *store.Store) rates {
	var r rates
	value := []byte(strings.Repeat("x", 100))
	start := time.Now()
	for i := 0; i < rateKeys; i += rateBatch {
		b := s.NewBatch()
		for j := i; j < i+rateBatch; j++ {
			b.Put(order(j), value)
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	r.load = float64(rateKeys) / time.Since(start).Seconds()

	all := term.Tuple(term.Atom("order"), term.Atom("_"), term.Atom("_"))
	for _, reverse := range []bool{false, true} {
		start = time.Now()
		n := 0
		for _, err := range s.Scan(ctx, all, store.ScanOptions{Reverse: reverse}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != rateKeys {
			t.Fatalf("scan found %d keys, want %d", n, rateKeys)
		}
		if reverse {
			r.rscan = float64(n) / time.Since(start).Seconds()
		} else {
			r.scan = float64(n) / time.Since(start).Seconds()
		}
	}

	// One customer's orders: a short range read.
	start = time.Now()
	for i := range rateNarrow {
		n := 0
		p := term.Tuple(term.Atom("order"), term.Int(int64(i%rateCustomers)), term.Atom("_"))
		for _, err := range s.Scan(ctx, p, store.ScanOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != rateKeys/rateCustomers {
			t.Fatalf("customer scan found %d keys, want %d", n, rateKeys/rateCustomers)
		}
	}
	r.narrow = rateNarrow / time.Since(start).Seconds()
	return r
}
