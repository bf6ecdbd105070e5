package main

import (
	"errors"
	"fmt"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// The subcommands on one key: put, get and del.

func dbPut(c *dbCall, args []string) int {
	fs := c.flags()
	values := valuesFlag(fs)
	args, status, ok := c.parse(fs, args, 2, "want a TERM and a VALUE")
	if !ok {
		return status
	}
	texts, names := args[:1], []string{"TERM"}
	if values.val == "etf" {
		texts, names = args, append(names, "VALUE")
	}
	ts, ok := c.terms(texts, names)
	if !ok {
		return exitUsage
	}
	value, err := putValue(values.val, args, ts)
	if err != nil {
		fmt.Fprintf(c.stderr, "sext: VALUE: %s\n", describe(err))
		return exitFail
	}
	s, ok := c.open(nil)
	if !ok {
		return exitFail
	}
	status = exitOK
	// Only a key the codec cannot encode is the TERM's fault; a failure
	// of the store (etcd unavailable, a full disk) is reported as get and
	// del report theirs, without the prefix.
	var ee *sext.EncodeError
	switch err := s.Put(c.ctx, ts[0], value); {
	case errors.As(err, &ee):
		fmt.Fprintf(c.stderr, "sext: TERM: %s\n", describe(err))
		status = exitFail
	case err != nil:
		status = c.fail(err)
	}
	return c.close(s, status)
}

// withKey runs the body of get or del: it parses the one TERM argument,
// opens the existing store, hands both to do and closes the store.
func (c *dbCall) withKey(fs *flagSet, args []string, do func(*store.Store, term.Term) int) int {
	args, status, ok := c.parse(fs, args, 1, "want one TERM")
	if !ok {
		return status
	}
	ts, ok := c.terms(args, []string{"TERM"})
	if !ok {
		return exitUsage
	}
	s, ok := c.openExisting()
	if !ok {
		return exitFail
	}
	return c.close(s, do(s, ts[0]))
}

func dbGet(c *dbCall, args []string) int {
	fs := c.flags()
	values := valuesFlag(fs)
	return c.withKey(fs, args, func(s *store.Store, key term.Term) int {
		v, err := s.Get(c.ctx, key)
		switch {
		case errors.Is(err, store.ErrNotFound):
			fmt.Fprintf(c.stderr, "sext: not found: %s\n", appendTerm(nil, key))
			return exitFail
		case err != nil:
			return c.fail(err)
		}
		v, err = showValue(values.val, nil, v)
		if err != nil {
			fmt.Fprintf(c.stderr, "sext: the value of %s: %s\n", appendTerm(nil, key), describe(err))
			return exitFail
		}
		c.stdout.Write(append(v, '\n'))
		return exitOK
	})
}

func dbDel(c *dbCall, args []string) int {
	return c.withKey(c.flags(), args, func(s *store.Store, key term.Term) int {
		if err := s.Delete(c.ctx, key); err != nil {
			return c.fail(err)
		}
		return exitOK
	})
}
