package store_test

import (
	"context"
	"testing"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/term"
)

// TestIndexPatternsWithLists: an index pattern or a select head with a
// list in it (a proper list's tail is [], itself a list) is walked to its
// end, not forever: creating the index, writing under it and selecting
// through it each return.
func TestIndexPatternsWithLists(t *testing.T) {
	ctx := context.Background()
	s, err := openChecked(t, t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.CreateIndex(ctx, "tags", term.MustParse("{a,[1],'$1'}"), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateIndex(ctx, "last", term.MustParse("{order,'_','_','$1'}"), nil); err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	for _, k := range []string{"{a,[1],x}", "{order,1,2,[1]}", "{order,1,3,[2]}"} {
		if err := b.Put(term.MustParse(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range s.Select(ctx, matchspec.MustParse("[{{order,'_','_',[1]},[],['$_']}]"), store.SelectOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("select through the index: %d rows, want 1", n)
	}
}
