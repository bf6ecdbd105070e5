package main

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/erlsext/sext/internal/etcdcluster"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/storetest/seeds"
)

// TestDBEtcd runs the db subcommands, and watch, against a real
// three-member etcd cluster, end to end. Like the package's other tests
// on a cluster of their own, it runs in parallel: much of its time is
// waiting on etcd.
func TestDBEtcd(t *testing.T) {
	t.Parallel()
	c := etcdcluster.Start(t, etcdcluster.Options{})
	eps := strings.Join(c.Endpoints(), ",")
	db := func(stdin string, args ...string) dbResult {
		t.Helper()
		return execDB(t, stdin, append([]string{"db", "--etcd", eps}, args...)...)
	}

	// Keys other writers left: check and check --fix, before and after,
	// on the empty cluster, which is left empty again.
	checkEtcd(t, c, db)

	db("", "put", "{job, q1, ready, 1}", "first").expect(t, 0, text(""))
	db("", "get", "{job, q1, ready, 1}").expect(t, 0, text("first\n"))
	db("", "get", "{job, q1, ready, 9}").expect(t, 1, text(""), "not found: {job,q1,ready,9}")
	load := "{job, q1, ready, 2}\tsecond\n{job, q2, ready, 3}\tthird\n{job, q1, running, 4}\tfourth\n"
	db(load, "load", "-").expect(t, 0, text(""))
	db("", "scan", "{job, q1, '_', '_'}").expect(t, 0,
		text("{job,q1,ready,1}\tfirst\n", "{job,q1,ready,2}\tsecond\n", "{job,q1,running,4}\tfourth\n"))
	db("", "scan", "{job, '_', ready, '_'}", "--reverse", "--limit", "2").expect(t, 0,
		text("{job,q2,ready,3}\tthird\n", "{job,q1,ready,2}\tsecond\n"))
	db("", "scan", "{job, q1, ready, '_'}", "--to", "{job, q2, '_', '_'}", "--count").expect(t, 0, text("4\n"))
	db("", "del", "{job, q1, ready, 1}").expect(t, 0, text(""))
	r := db("", "stats")
	r.expect(t, 0, nil)
	if !strings.Contains(r.stdout, "backend    etcd") || !strings.Contains(r.stdout, "keys       3 ") {
		t.Errorf("stats:\n%s", r.stdout)
	}

	// History replayed from the first revision: exactly q1's ready jobs.
	r = db("", "watch", "{job, q1, ready, '_'}", "--from", "1", "--limit", "3")
	r.expect(t, 0, nil)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var revs []int64
	var rest []string
	for _, l := range lines {
		rev, after, _ := strings.Cut(l, "\t")
		n, err := strconv.ParseInt(rev, 10, 64)
		if err != nil {
			t.Fatalf("watch line %q: %v", l, err)
		}
		revs, rest = append(revs, n), append(rest, after)
	}
	want := []string{"put\t{job,q1,ready,1}\tfirst", "put\t{job,q1,ready,2}\tsecond", "delete\t{job,q1,ready,1}"}
	if strings.Join(rest, "\n") != strings.Join(want, "\n") {
		t.Fatalf("watch --from 1:\n%s\nwant:\n%s", strings.Join(rest, "\n"), strings.Join(want, "\n"))
	}
	// Resuming after the second change gives the third.
	r = db("", "watch", "{job, q1, ready, '_'}", "--from", strconv.FormatInt(revs[1]+1, 10), "--limit", "1")
	r.expect(t, 0, text(strconv.FormatInt(revs[2], 10)+"\tdelete\t{job,q1,ready,1}\n"))

	// A live watch sees a change made after it started: put until it
	// has seen one and exits.
	cmd := exec.Command(buildDB(t), "db", "--etcd", eps, "watch", "{job, q3, '_', '_'}", "--limit", "1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	deadline := time.After(15 * time.Second)
live:
	for i := 0; ; i++ {
		db("", "put", "{job, q3, ready, "+strconv.Itoa(i)+"}", "live").expect(t, 0, text(""))
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			if err != nil {
				t.Fatalf("live watch: %v\n%s", err, errb.String())
			}
			break live
		case <-deadline:
			t.Fatal("live watch saw nothing in 15s")
		case <-time.After(200 * time.Millisecond):
		}
	}
	if !strings.Contains(out.String(), "\tput\t{job,q3,ready,") {
		t.Errorf("live watch printed %q", out.String())
	}

	execDB(t, "", "db", "--dir", t.TempDir(), "watch", "'_'").expect(t, 2, text(""), "watch needs --etcd")
	execDB(t, "", "db", "--dir", t.TempDir(), "--etcd", eps, "get", "a").expect(t, 2, text(""), "--dir and --etcd exclude each other")

	// Without a quorum a command fails within its timeout.
	c.Stop(0)
	c.Stop(1)
	start := time.Now()
	db("", "--timeout", "1s", "get", "{job, q1, ready, 2}").expect(t, 1, text(""), "backend unavailable")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("get without quorum took %v with --timeout 1s", d)
	}
}

// checkEtcd runs checkCLI against the cluster: seeded through etcdkv
// with foreign, legacy-bignum and unsorted-map keys.
func checkEtcd(t *testing.T, c *etcdcluster.Cluster, db func(string, ...string) dbResult) {
	t.Helper()
	db("{k, 1}\tone\n{k, 2}\ttwo\n", "load", "-").expect(t, 0, text(""))
	kv, err := etcdkv.Open(etcdkv.Options{Endpoints: c.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	seeds := seeds.New(t)
	seedKeys(t, kv, seeds)
	checkCLI(t, seeds, db, func() {
		wb := kv.NewBatch()
		wb.Delete(seeds.Foreign)
		if err := wb.Commit(ctx, true); err != nil {
			t.Fatal(err)
		}
	})
	// Leave the cluster empty for the rest of the test.
	it, err := kv.NewIter(ctx, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wb := kv.NewBatch()
	for it.Next() {
		wb.Delete(bytes.Clone(it.Key()))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wb.Commit(ctx, true); err != nil {
		t.Fatal(err)
	}
}
