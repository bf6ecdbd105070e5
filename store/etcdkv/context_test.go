package etcdkv_test

import (
	"testing"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest"
	"github.com/erlsext/sext/term"
)

// testContext checks that the caller's context reaches the cluster on a
// healthy cluster: a context cancelled before the call fails it at once,
// without an answer from the cluster, and a scan cancelled half-way
// stops at its next page with context.Canceled. (TestFaults checks
// deadlines and cancellation against a cluster that cannot answer.)
func testContext(t *testing.T, c *etcdcluster.Cluster) {
	kv := open(t, c, etcdkv.Options{Prefix: []byte("context/"), PageSize: 100})
	s := store.New(storetest.Checked(t, kv), nil)
	defer s.Close()
	key := func(i int) term.Term { return term.Tuple(term.Atom("c"), term.Int(int64(i))) }
	for i := 0; i < 1000; i += 100 {
		b := s.NewBatch()
		for j := i; j < i+100; j++ {
			b.Put(key(j), []byte("v"))
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	storetest.CheckCancelled(t, s, key(1), nil)
	storetest.CheckScanCancel(t, s, 150, 200) // pages of 100: by the end of the page
}
