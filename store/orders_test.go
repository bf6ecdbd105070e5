package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

var ctx = context.Background()

// TestOrderBook is the README's example: {order, Customer, #Desc<Time>,
// Id} keys, so that a customer's orders come newest first, and a time
// window is a ScanRange whose from holds the newer time.
func TestOrderBook(t *testing.T) {
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := func(c, ts, id int) term.Term {
		return term.Tuple(term.Atom("order"), term.Int(int64(c)), term.Desc(term.Int(int64(ts))), term.Int(int64(id)))
	}
	type order struct{ c, ts, id int }
	var orders []order
	b := s.NewBatch()
	for id := range 600 {
		o := order{c: id % 7, ts: 1000 + (id*37)%500, id: id}
		orders = append(orders, o)
		b.Put(key(o.c, o.ts, o.id), fmt.Appendf(nil, "%d", o.id))
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	ids := func(seq func(func(store.Entry, error) bool)) []int {
		var out []int
		for e, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, int(e.Key.Elems()[3].Int64()))
		}
		return out
	}
	want := func(keep func(order) bool) []int {
		var w []order
		for _, o := range orders {
			if keep(o) {
				w = append(w, o)
			}
		}
		slices.SortFunc(w, func(a, b order) int {
			if a.ts != b.ts {
				return b.ts - a.ts // newest first
			}
			return a.id - b.id
		})
		out := make([]int, len(w))
		for i, o := range w {
			out[i] = o.id
		}
		return out
	}

	pattern := term.Tuple(term.Atom("order"), term.Int(3), term.Atom("_"), term.Atom("_"))
	got := ids(s.Scan(ctx, pattern, store.ScanOptions{Limit: 5}))
	if w := want(func(o order) bool { return o.c == 3 })[:5]; !slices.Equal(got, w) {
		t.Errorf("customer 3's newest five = %v, want %v", got, w)
	}

	// Orders of customer 3 from 1100 to 1200 inclusive: from holds the
	// newer time because Desc puts it first.
	from := term.Tuple(term.Atom("order"), term.Int(3), term.Desc(term.Int(1200)), term.Atom("_"))
	to := term.Tuple(term.Atom("order"), term.Int(3), term.Desc(term.Int(1100)), term.Atom("_"))
	got = ids(s.ScanRange(ctx, from, to, store.ScanOptions{}))
	w := want(func(o order) bool { return o.c == 3 && o.ts >= 1100 && o.ts <= 1200 })
	if len(w) == 0 || !slices.Equal(got, w) {
		t.Errorf("customer 3 in [1100, 1200] = %v, want %v", got, w)
	}
	got = ids(s.ScanRange(ctx, from, to, store.ScanOptions{Reverse: true, Limit: 2}))
	slices.Reverse(w)
	if !slices.Equal(got, w[:2]) {
		t.Errorf("oldest two in the window = %v, want %v", got, w[:2])
	}
	// The other way round the range is empty.
	if got := ids(s.ScanRange(ctx, to, from, store.ScanOptions{})); len(got) != 0 {
		t.Errorf("ScanRange(to, from) = %v, want nothing", got)
	}

	// A repeated '$1' binds: orders whose id equals the customer.
	p := term.Tuple(term.Atom("order"), term.Atom("$1"), term.Atom("_"), term.Atom("$1"))
	got = ids(s.Scan(ctx, p, store.ScanOptions{}))
	if w := []int{0, 1, 2, 3, 4, 5, 6}; !slices.Equal(slices.Sorted(slices.Values(got)), w) {
		t.Errorf("{order,'$1','_','$1'} = %v, want ids %v", got, w)
	}
}
