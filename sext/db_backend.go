package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/etcdkv"
	"github.com/erlsext/sext/store/pebblekv"
	"github.com/erlsext/sext/store/pebblestore"
	"github.com/erlsext/sext/term"
)

// backend is the store db's flags name, chosen once by runDB: a Pebble
// directory, or an etcd cluster when endpoints is set, and the codec of
// its keys.
type backend struct {
	dir       string
	endpoints []string      // --etcd
	timeout   time.Duration // of each call to the cluster
	codec     sext.Options
}

// etcd reports whether the store is an etcd cluster.
func (b backend) etcd() bool { return b.endpoints != nil }

// open opens the store as openContext does, with a context that is
// never done.
func (b backend) open(opts *pebblestore.Options, stderr io.Writer) (*store.Store, bool) {
	return b.openContext(context.Background(), opts, stderr)
}

// openContext opens the store with b's codec, reporting a failure on
// stderr, and warnings the store keeps on record (a torn log) too. ctx
// stops an open that waits (see pebblestore.Open). opts.Pebble applies
// to a directory only.
func (b backend) openContext(ctx context.Context, opts *pebblestore.Options, stderr io.Writer) (*store.Store, bool) {
	s, _, ok := b.openWithKV(ctx, opts, stderr)
	return s, ok
}

// openWithKV is openContext, and the backend under the store, for the
// commands that read its raw keys too (explain --count, stats --exact).
func (b backend) openWithKV(ctx context.Context, opts *pebblestore.Options, stderr io.Writer) (*store.Store, store.KV, bool) {
	if opts == nil {
		opts = &pebblestore.Options{}
	}
	kv, ok := b.openKV(ctx, &opts.Pebble, stderr)
	if !ok {
		return nil, nil, false
	}
	sopts := opts.Store
	sopts.Codec = b.codec
	s := store.New(kv, &sopts)
	for _, w := range s.Warnings() {
		fmt.Fprintf(stderr, "sext: warning: %s (sext db check --fix clears this note)\n", storeErr(w))
	}
	return s, kv, true
}

// openKV opens the store's backend, reporting a failure on stderr: the
// cluster, or the Pebble directory with popts.
func (b backend) openKV(ctx context.Context, popts *pebblekv.Options, stderr io.Writer) (store.KV, bool) {
	if b.etcd() {
		kv, ok := b.openEtcd(stderr)
		if !ok {
			return nil, false // not a nil *etcdkv.KV in a non-nil KV
		}
		return kv, true
	}
	kv, err := pebblekv.OpenContext(ctx, b.dir, popts)
	if err != nil {
		fmt.Fprintf(stderr, "sext: %s\n", storeErr(err))
		// Only a store that is plainly absent gets the hint: a damaged one
		// (ErrCorrupt) must not be written over.
		if errors.Is(err, store.ErrNoStore) && !errors.Is(err, store.ErrCorrupt) && popts.MustExist {
			fmt.Fprintln(stderr, "sext: (put or load creates a store)")
		}
		return nil, false
	}
	return kv, true
}

// closeStore closes s and reports an error, turning status into a
// failure if it was a success.
func closeStore(s *store.Store, status int, stderr io.Writer) int {
	if err := s.Close(); err != nil {
		fmt.Fprintf(stderr, "sext: closing the store: %v\n", err)
		if status == exitOK {
			return exitFail
		}
	}
	return status
}

// openEtcd opens the cluster's key-value seam itself, as watch needs it.
func (b backend) openEtcd(stderr io.Writer) (*etcdkv.KV, bool) {
	kv, err := etcdkv.Open(etcdkv.Options{Endpoints: b.endpoints, Timeout: b.timeout, Codec: b.codec})
	if err != nil {
		fmt.Fprintf(stderr, "sext: %v\n", err)
		return nil, false
	}
	return kv, true
}

// nonCanonical describes a key that decodes to t but is not the bytes
// the codec writes for t.
func (b backend) nonCanonical(t term.Term) error {
	want, err := b.codec.Encode(t)
	if err != nil {
		return fmt.Errorf("not in canonical form (%s does not encode: %v)", appendTerm(nil, t), err)
	}
	return fmt.Errorf("not in canonical form: %s is written %s; get and del do not reach this key (sext db check --fix rewrites it)", appendTerm(nil, t), sext.Hex.EncodeToString(want))
}
