// Package etcdcluster runs a real etcd cluster for tests: a few members
// on loopback ports, each in its own data directory, started from the
// etcd binary on PATH (Debian's etcd-server package installs
// /usr/bin/etcd) and killed, process group and all, when the test ends.
//
// The data directories are in memory where Linux's /dev/shm has room (4
// GiB), else under the test's temporary directory. etcd syncs every raft
// write, and on a shared disk those syncs took a third of the etcd tests'
// time; a member killed with SIGKILL keeps what it wrote either way, the
// kernel holding it.
//
// A test that kills members, or needs the keyspace to itself, starts a
// cluster of its own (Start); the rest share one per test binary
// (Shared), each in a key prefix of its own, which the package's TestMain
// stops (StopShared). SuiteMembers sizes the clusters of tests that check
// a backend's calls rather than etcd's replication.
//
// Where etcd is not installed the test is skipped, except under CI (the
// CI environment variable set), where that is a failure: CI must run
// these tests, and its script installs etcd.
package etcdcluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/erlsext/sext/internal/testsize"
)

// Options configures Start.
type Options struct {
	// Members is the number of members; 0 means 3.
	Members int
	// MaxTxnOps is the server's limit of writes in one transaction; 0
	// means 1024, above etcd's default of 128, so that tests can load in
	// large batches.
	MaxTxnOps int
	// StartTimeout bounds the wait for a leader; 0 means 20 s.
	StartTimeout time.Duration
}

// withDefaults fills in the zero fields, so that options that mean the
// same cluster compare equal (Shared keys its clusters by them).
func (o Options) withDefaults() Options {
	if o.Members <= 0 {
		o.Members = 3
	}
	if o.MaxTxnOps <= 0 {
		o.MaxTxnOps = 1024
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 20 * time.Second
	}
	return o
}

// SuiteMembers is the member count for a test that checks what a backend
// does rather than how etcd replicates it: three at testsize's full size,
// as CI runs, and one in a quick run, where a write or a linearizable
// read then costs one process instead of three (the store's etcd suites
// took a third of the CPU and half the time on one member). The tests
// that kill members start three at either size.
func SuiteMembers() int { return testsize.Pick(1, 3) }

// Cluster is a running test cluster.
type Cluster struct {
	t       testing.TB // the test that uses it, for its log and failures
	bin     string
	dir     string
	opts    Options
	Members []*Member
}

// Member is one etcd process.
type Member struct {
	Name      string
	DataDir   string
	ClientURL string // http://127.0.0.1:PORT
	PeerURL   string
	LogPath   string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
}

// Binary returns the path of the etcd binary, skipping the test if there
// is none, or failing it under CI.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("etcd is not installed, and CI must run the etcd tests: apt-get install etcd-server (%v)", err)
		}
		t.Skipf("etcd is not installed; skipping the etcd tests (apt-get install etcd-server to run them): %v", err)
	}
	return bin
}

// Start starts a cluster and waits until it has a leader and answers a
// linearizable read. The cluster is stopped when the test ends.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	bin := Binary(t)
	root := memoryDir()
	if root != "" {
		t.Cleanup(func() { os.RemoveAll(root) }) // after StopAll, registered later
	} else {
		root = t.TempDir()
	}
	c, err := startIn(t, bin, root, opts.withDefaults())
	if err != nil {
		t.Fatalf("etcdcluster: %v", err)
	}
	t.Cleanup(c.StopAll)
	return c
}

// startIn starts a cluster with its data under root.
func startIn(t testing.TB, bin, root string, opts Options) (*Cluster, error) {
	// Ports are picked free and then released, so another process may take
	// one before etcd binds it; a fresh set of ports is the cure.
	var err error
	for attempt := range 3 {
		c := &Cluster{t: t, bin: bin, dir: filepath.Join(root, fmt.Sprintf("cluster%d", attempt)), opts: opts}
		if err = c.start(); err == nil {
			return c, nil
		}
		c.kill()
		if !strings.Contains(c.logs(), "address already in use") {
			err = fmt.Errorf("%w\n%s", err, c.logs())
			break
		}
	}
	return nil, err
}

// shared holds the test binary's shared clusters, by options.
var shared struct {
	sync.Mutex
	clusters map[Options]*sharedCluster
}

type sharedCluster struct {
	once   sync.Once
	c      *Cluster
	root   string
	err    error
	logged map[testing.TB]bool // the tests that log the tails if they fail
}

// Shared returns the cluster with these options that the test binary's
// tests share, starting it on the first call. Each test on it keeps to
// a key prefix of its own and leaves its members running. A test that
// kills members calls Start; one that compacts or needs the whole
// keyspace calls Start too, or does that before its t.Parallel, when no
// other test of the binary runs. The cluster outlives the test; the
// package's TestMain stops it with StopShared after m.Run. If a test on
// it fails, the members' log tails are logged.
func Shared(t testing.TB, opts Options) *Cluster {
	t.Helper()
	bin := Binary(t)
	opts = opts.withDefaults()
	shared.Lock()
	if shared.clusters == nil {
		shared.clusters = map[Options]*sharedCluster{}
	}
	sc := shared.clusters[opts]
	if sc == nil {
		sc = &sharedCluster{}
		shared.clusters[opts] = sc
	}
	shared.Unlock()
	sc.once.Do(func() {
		// Not the test's temporary directory, which goes when the test
		// that started the cluster ends.
		if sc.root = memoryDir(); sc.root == "" {
			if sc.root, sc.err = os.MkdirTemp("", "etcdcluster-"); sc.err != nil {
				return
			}
		}
		sc.c, sc.err = startIn(nil, bin, sc.root, opts)
	})
	if sc.err != nil {
		t.Fatalf("etcdcluster: the shared cluster: %v", sc.err)
	}
	view := *sc.c // this test's view: the same members, its own log
	view.t = t
	shared.Lock()
	if sc.logged == nil {
		sc.logged = map[testing.TB]bool{}
	}
	first := !sc.logged[t]
	sc.logged[t] = true
	shared.Unlock()
	if first {
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("etcd logs (tail):\n%s", view.logs())
			}
		})
	}
	return &view
}

// StopShared kills the members of every shared cluster and removes their
// data. A TestMain calls it after m.Run; were it not called, the members
// would die with the test binary (on Linux) but leave their data behind.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	for opts, sc := range shared.clusters {
		if sc.c != nil {
			sc.c.kill()
		}
		if sc.root != "" {
			os.RemoveAll(sc.root)
		}
		delete(shared.clusters, opts)
	}
}

func (c *Cluster) start() error {
	n := c.opts.Members
	ports, err := freePorts(2 * n)
	if err != nil {
		return err
	}
	var initial []string
	for i := range n {
		m := &Member{
			Name:      fmt.Sprintf("m%d", i),
			ClientURL: fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]),
			PeerURL:   fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
		}
		m.DataDir = filepath.Join(c.dir, m.Name)
		m.LogPath = filepath.Join(c.dir, m.Name+".log")
		c.Members = append(c.Members, m)
		initial = append(initial, m.Name+"="+m.PeerURL)
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	token := fmt.Sprintf("sext-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	for _, m := range c.Members {
		args := append(c.memberArgs(m),
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-state", "new",
			"--initial-cluster-token", token)
		if err := c.launch(m, args); err != nil {
			return err
		}
	}
	return c.WaitReady(c.opts.StartTimeout)
}

// memberArgs are the flags every start of m takes; a first start adds the
// initial cluster.
func (c *Cluster) memberArgs(m *Member) []string {
	args := []string{
		"--name", m.Name,
		"--data-dir", m.DataDir,
		"--listen-client-urls", m.ClientURL,
		"--advertise-client-urls", m.ClientURL,
		"--listen-peer-urls", m.PeerURL,
		"--initial-advertise-peer-urls", m.PeerURL,
		"--max-txn-ops", fmt.Sprint(c.opts.MaxTxnOps),
		"--logger", "zap",
		"--log-outputs", "stderr",
		"--log-level", "warn",
	}
	if c.opts.Members == 1 {
		// A lone member has no one to lose its leadership to, so its
		// election timeout can be short: it is how long a start waits
		// for the member to elect itself (a second or two by default).
		return append(args, "--heartbeat-interval", "25", "--election-timeout", "250")
	}
	// Pre-vote, etcd's default from 3.5 on: a member cut off from the
	// quorum does not raise its term campaigning, so that once the
	// others are back one election settles the leader, where without it
	// the members took up to seven seconds of elections (TestFaults).
	return append(args, "--pre-vote")
}

// launch starts m's process with args, keeping the args for a restart.
func (c *Cluster) launch(m *Member, args []string) error {
	logf, err := os.OpenFile(m.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(c.bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = memberEnv()
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	m.mu.Lock()
	m.cmd, m.exited = cmd, exited
	m.mu.Unlock()
	return nil
}

// memberEnv is the environment without ETCD_* variables, which etcd
// would read as flags, and with GOMAXPROCS=1: the members of a cluster
// pass each request from thread to thread, and on a small machine, beside
// the test and other clusters, one thread each cut the etcd tests' CPU by
// a quarter and their time by a sixth (measured on 2 CPUs).
func memberEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETCD_") && !strings.HasPrefix(kv, "ETCDCTL_") && !strings.HasPrefix(kv, "GOMAXPROCS=") {
			env = append(env, kv)
		}
	}
	return append(env, "GOMAXPROCS=1")
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Endpoints returns every member's client URL, running or not.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, m.ClientURL)
	}
	return eps
}

// Running reports whether member i's process is alive.
func (c *Cluster) Running(i int) bool {
	m := c.Members[i]
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return false
	}
	select {
	case <-m.exited:
		return false
	default:
		return true
	}
}

// Stop kills member i (SIGKILL to its process group: a crash, not a
// shutdown) and waits for it to exit.
func (c *Cluster) Stop(i int) {
	m := c.Members[i]
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	kill(cmd)
	<-exited
}

// StopAll kills every member. It is registered as the test's cleanup.
func (c *Cluster) StopAll() {
	c.kill()
	if c.t != nil && c.t.Failed() {
		c.t.Logf("etcd logs (tail):\n%s", c.logs())
	}
}

// kill kills every member.
func (c *Cluster) kill() {
	for i := range c.Members {
		c.Stop(i)
	}
}

// Restart starts member i again on its data directory and ports. It does
// not wait for the cluster; see WaitReady.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	m := c.Members[i]
	if c.Running(i) {
		return
	}
	// A restarted member finds the cluster in its data directory.
	if err := c.launch(m, c.memberArgs(m)); err != nil {
		c.t.Fatalf("etcdcluster: restart %s: %v", m.Name, err)
	}
}

// WaitReady waits until every running member reports the same leader and
// a linearizable read through the running members succeeds.
func (c *Cluster) WaitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		// Ask for the leader only once every running member listens: a
		// client dialled earlier waits out its whole dial timeout (a
		// second, once the whole of a start).
		if err := c.listening(); err != nil {
			last = err
		} else if _, err := c.leader(); err == nil {
			return nil
		} else {
			last = err
		}
		for i, m := range c.Members {
			m.mu.Lock()
			cmd, exited := m.cmd, m.exited
			m.mu.Unlock()
			if cmd == nil {
				continue
			}
			select {
			case <-exited:
				return fmt.Errorf("member %d exited: %s", i, tail(m.LogPath, 5))
			default:
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no leader within %v: %v", timeout, last)
}

// listening reports an error unless every running member accepts a
// connection on its client port.
func (c *Cluster) listening() error {
	for i, m := range c.Members {
		if !c.Running(i) {
			continue
		}
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(m.ClientURL, "http://"), 100*time.Millisecond)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		conn.Close()
	}
	return nil
}

// Leader returns the index of the leader, failing the test if the running
// members do not agree on one.
func (c *Cluster) Leader() int {
	c.t.Helper()
	i, err := c.leader()
	if err != nil {
		c.t.Fatalf("etcdcluster: %v", err)
	}
	return i
}

func (c *Cluster) leader() (int, error) {
	var eps []string
	for i, m := range c.Members {
		if c.Running(i) {
			eps = append(eps, m.ClientURL)
		}
	}
	if len(eps) == 0 {
		return -1, errors.New("no member running")
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, Logger: zap.NewNop(), DialTimeout: time.Second})
	if err != nil {
		return -1, err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var leader uint64
	ids := map[uint64]int{}
	for i, m := range c.Members {
		if !c.Running(i) {
			continue
		}
		st, err := cli.Status(ctx, m.ClientURL)
		if err != nil {
			return -1, fmt.Errorf("%s: %w", m.Name, err)
		}
		ids[st.Header.MemberId] = i
		if st.Leader == 0 || leader != 0 && st.Leader != leader {
			return -1, fmt.Errorf("%s: leader %x, others %x", m.Name, st.Leader, leader)
		}
		leader = st.Leader
	}
	if _, err := cli.Get(ctx, "etcdcluster-health"); err != nil {
		return -1, err
	}
	i, ok := ids[leader]
	if !ok {
		return -1, fmt.Errorf("leader %x is not a running member", leader)
	}
	return i, nil
}

// logs returns the tails of every member's log.
func (c *Cluster) logs() string {
	var b strings.Builder
	for _, m := range c.Members {
		fmt.Fprintf(&b, "--- %s\n%s\n", m.Name, tail(m.LogPath, 15))
	}
	return b.String()
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}
