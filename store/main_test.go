package store_test

import (
	"flag"
	"os"
	"testing"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/internal/testsize"
)

// TestMain sizes the properties, each of which opens stores and runs
// transactions: 100 cases in a quick run, 1,000 at full size (the tests
// against the VM draw testsize.Checks cases, the size's own count). It
// stops the etcd clusters the package's tests share.
func TestMain(m *testing.M) {
	flag.Parse()
	testsize.SetRapidChecksOf(100, 1000)
	code := m.Run()
	etcdcluster.StopShared()
	os.Exit(code)
}

// The package's etcd tests share two clusters, each store in a key prefix
// of its own. Both keep etcd's default of 128 writes a transaction, which
// a migration's default step must fit. At full size they are one
// three-member cluster.

// modelCluster holds the model properties: etcdcluster.SuiteMembers
// members, one in a quick run.
func modelCluster(t *testing.T) *etcdcluster.Cluster {
	return etcdcluster.Shared(t, etcdcluster.Options{Members: etcdcluster.SuiteMembers(), MaxTxnOps: 128})
}

// raceCluster holds the tests of stores that race, as processes would,
// their writes meeting only in etcd's transactions: three members at
// either size.
func raceCluster(t *testing.T) *etcdcluster.Cluster {
	return etcdcluster.Shared(t, etcdcluster.Options{Members: 3, MaxTxnOps: 128})
}
