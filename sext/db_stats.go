package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

func dbStats(c *dbCall, args []string) int {
	fs := c.flags()
	exact := fs.Bool("exact", false, "count the keys by reading them all; exit 1 if some are foreign or non-canonical")
	s, status, ok := c.openNoArgs(fs, args)
	if !ok {
		return status
	}
	st, err := s.Stats(c.ctx)
	if err != nil {
		return c.close(s, c.fail(err))
	}
	out := newSession(c.stdout, c.stderr)
	fmt.Fprintf(out.out, "backend    %s\n", st.Backend)
	fmt.Fprintf(out.out, "dir        %s\n", st.Dir)
	if *exact {
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
		fmt.Fprintf(out.out, "keys       %s (counted in %s)\n", commas(n), round(time.Since(start)))
		if bad > 0 {
			fmt.Fprintf(out.out, "foreign    %s keys that are no sext encoding\n", commas(bad))
			out.fail("", fmt.Errorf("%s foreign keys (sext db check lists them)", commas(bad)))
		}
		if odd > 0 {
			fmt.Fprintf(out.out, "non-canon  %s keys not in canonical form\n", commas(odd))
			out.fail("", fmt.Errorf("%s non-canonical keys (sext db check --fix rewrites them)", commas(odd)))
		}
	} else if st.Backend == "etcd" {
		fmt.Fprintf(out.out, "keys       %s (counted by the cluster)\n", commas(int64(st.KeysEstimate)))
	} else {
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
