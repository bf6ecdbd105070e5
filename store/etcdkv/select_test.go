package etcdkv_test

import (
	"fmt"
	"testing"

	"github.com/erlsext/sext/internal/testsize"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest"
)

// TestEtcdSelect runs the Select suite on the cluster it shares with
// TestEtcd, each store in a key prefix of its own. Fewer keys and specs
// than on Pebble: every page and every range is a round trip, and a
// reverse page costs etcd the rest of its range (docs/DESIGN.md); half as
// many again in a quick run (testsize).
func TestEtcdSelect(t *testing.T) {
	t.Parallel()
	c := suiteCluster(t)
	n := 0
	storetest.RunSelect(t, func(t *testing.T) store.KV {
		n++
		return open(t, c, etcdkv.Options{Prefix: fmt.Appendf(nil, "select/%d/", n)})
	}, testsize.Pick(storetest.SelectConfig{Keys: 400, Specs: 30}, storetest.SelectConfig{Keys: 800, Specs: 60}))
}
