package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

const statsAbout = `
Print the backend, the key count, disk usage and table count.

The key count says what it counts. On Pebble it is an estimate from the
tables on disk, and those hold the index entries (and the index
catalog) beside the data keys: with an index, a store of 10,003 keys
shows some 20,007, and the line says that it counts both, and how many
indexes there are. etcd counts the data keys alone. --exact reads the
store: the data keys, and on a line of their own the index entries and
catalog; it exits 1 if some keys are foreign or non-canonical.`

func dbStats(c *dbCall, args []string) int {
	fs := c.flags()
	exact := fs.Bool("exact", false, "count the data keys and the index entries by reading them all; exit 1 if some keys are foreign or non-canonical")
	if _, status, ok := c.parse(fs, args, 0, "stats takes no arguments"); !ok {
		return status
	}
	// The raw backend too: --exact counts the reserved range's keys.
	s, kv, ok := c.openExistingKV()
	if !ok {
		return exitFail
	}
	st, err := s.Stats(c.ctx)
	if err != nil {
		return c.close(s, c.fail(err))
	}
	ixs, err := s.Indexes(c.ctx)
	if err != nil {
		return c.close(s, c.fail(err))
	}
	out := newSession(c.stdout, c.stderr)
	fmt.Fprintf(out.out, "backend    %s\n", st.Backend)
	fmt.Fprintf(out.out, "dir        %s\n", st.Dir)
	switch {
	case *exact:
		start := time.Now()
		var n, bad, odd int64
		for _, err := range s.Scan(c.ctx, term.Atom("_"), store.ScanOptions{KeysOnly: true,
			OnBadKey:       func([]byte, error) { bad++ },
			OnNonCanonical: func([]byte, term.Term) { odd++ }}) {
			if err != nil {
				out.fail("", errors.New(storeErr(err)))
				break
			}
			n++
		}
		fmt.Fprintf(out.out, "keys       %s data keys (counted in %s)\n", commas(n), round(time.Since(start)))
		reserved, err := countKeys(c, kv, nil, seam.ReservedEnd)
		if err != nil {
			out.fail("", errors.New(storeErr(err)))
		} else if reserved > 0 || len(ixs) > 0 {
			fmt.Fprintf(out.out, "entries    %s index entries and the index catalog (%s, counted)\n", commas(reserved), indexCount(len(ixs)))
		}
		if bad > 0 {
			fmt.Fprintf(out.out, "foreign    %s keys that are no sext encoding\n", commas(bad))
			out.fail("", fmt.Errorf("%s foreign keys (sext db check lists them)", commas(bad)))
		}
		if odd > 0 {
			fmt.Fprintf(out.out, "non-canon  %s keys not in canonical form\n", commas(odd))
			out.fail("", fmt.Errorf("%s non-canonical keys (sext db check --fix rewrites them)", commas(odd)))
		}
	case st.Backend == "etcd":
		fmt.Fprintf(out.out, "keys       %s (counted by the cluster)\n", commas(int64(st.KeysEstimate)))
	case st.ReservedCounted && len(ixs) > 0:
		fmt.Fprintf(out.out, "keys       ~%s data keys and index entries together (%s; estimated from flushed tables; --exact counts each)\n",
			commas(int64(st.KeysEstimate)), indexCount(len(ixs)))
	default:
		fmt.Fprintf(out.out, "keys       ~%s (estimated from flushed tables; --exact counts)\n", commas(int64(st.KeysEstimate)))
	}
	if st.Backend == "etcd" {
		fmt.Fprintf(out.out, "db size    %s (the database of the member that answered)\n", humanBytes(st.DiskBytes))
		return c.close(s, out.finish())
	}
	fmt.Fprintf(out.out, "disk       %s\n", humanBytes(st.DiskBytes))
	fmt.Fprintf(out.out, "tables     %d\n", st.Tables)
	fmt.Fprintf(out.out, "memtables  %s\n", humanBytes(st.MemTableSize))
	return c.close(s, out.finish())
}

// indexCount says how many indexes there are: "1 index", "2 indexes".
func indexCount(n int) string {
	if n == 1 {
		return "1 index"
	}
	return commas(int64(n)) + " indexes"
}

// countKeys counts the raw keys in [lower, upper) of kv.
func countKeys(c *dbCall, kv store.KV, lower, upper []byte) (int64, error) {
	it, err := kv.NewIter(c.ctx, lower, upper, false)
	if err != nil {
		return 0, err
	}
	var n int64
	for it.Next() {
		n++
	}
	err = it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return n, err
}
