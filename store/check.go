package store

import (
	"bytes"
	"context"
	"errors"

	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// CheckOptions adjusts Check. The zero value reads and reports only.
type CheckOptions struct {
	// Fix rewrites each non-canonical key to the bytes the store's codec
	// writes for its term, value kept: the new key is set and the old one
	// deleted in one atomic batch, so a crash leaves one or the other. A
	// key whose canonical bytes are also stored is a conflict and left as
	// it is: which value is right is for a person to say. Fix also clears
	// the backend's warnings once Check has reported them.
	Fix bool
	// OnForeign, when set, is called with every key that is no sext
	// encoding, and its decoding error.
	OnForeign func(key []byte, err error)
	// OnNonCanonical, when set, is called with every key that decodes but
	// is not canonical, its term and, with Fix, what became of it: nil
	// once rewritten (or, without Fix, found), an error wrapping
	// ErrConflict or ErrUnencodable if left.
	OnNonCanonical func(key []byte, t term.Term, fix error)
}

// ErrConflict: a non-canonical key's canonical bytes are stored too, so
// Check with Fix cannot rewrite it without losing one of two values.
var ErrConflict = errors.New("store: the canonical key is stored too; left as it is")

// ErrUnencodable: a key decodes to a term the store's codec cannot
// encode (nested deeper than the encoder allows), so it has no canonical
// bytes to be rewritten to.
var ErrUnencodable = errors.New("store: the key's term does not encode; left as it is")

// CheckResult counts what Check found.
type CheckResult struct {
	Keys         int64   // keys read
	Foreign      int64   // keys that are no sext encoding
	NonCanonical int64   // keys that decode but not from their canonical bytes
	Fixed        int64   // non-canonical keys rewritten (with Fix)
	Conflicts    int64   // non-canonical keys left because their canonical bytes are stored
	Warnings     []error // the backend's warnings on record (see Warnings)
}

// Clean reports whether the check found nothing to report.
func (r CheckResult) Clean() bool {
	return r.Foreign == 0 && r.NonCanonical == 0 && len(r.Warnings) == 0
}

// fixBatch is how many keys Check rewrites per batch: two writes a key,
// within etcd's default of 128 writes a transaction.
const fixBatch = 64

// Check reads every data key in the store (not the reserved range of
// index entries, which CheckIndexes checks) and counts the foreign and
// the non-canonical ones; with opts.Fix it rewrites the non-canonical ones
// (see CheckOptions). It reads the values only of the keys it rewrites.
// A read error ends it, with the counts so far.
func (s *Store) Check(ctx context.Context, opts CheckOptions) (CheckResult, error) {
	var r CheckResult
	if s.closed.Load() {
		return r, ErrClosed
	}
	r.Warnings = s.Warnings()
	it, err := s.openCursor(ctx, seam.ReservedEnd, nil, false) // the reserved range is CheckIndexes'
	if err != nil {
		return r, err
	}
	defer it.Close() // an early return, a panic in a callback; the normal end reports its error
	type fix struct {
		old, canon []byte
		t          term.Term
		value      []byte
	}
	var pending []fix
	rewritten := map[string]bool{} // canonical keys this check wrote
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		wb := s.kv.NewBatch()
		defer wb.Close()
		for _, f := range pending {
			if err := wb.Set(f.canon, f.value); err != nil {
				return err
			}
			if err := wb.Delete(f.old); err != nil {
				return err
			}
		}
		if err := wb.Commit(ctx, true); err != nil {
			return err
		}
		for _, f := range pending {
			r.Fixed++
			if opts.OnNonCanonical != nil {
				opts.OnNonCanonical(f.old, f.t, nil)
			}
		}
		pending = pending[:0]
		return nil
	}
	var canon []byte
	for it.Next() {
		k := it.Key()
		r.Keys++
		t, c, ok, err := classify(s.codec, canon, k)
		if c != nil {
			canon = c
		}
		if err != nil {
			r.Foreign++
			if opts.OnForeign != nil {
				opts.OnForeign(bytes.Clone(k), err)
			}
			continue
		}
		if ok {
			continue
		}
		r.NonCanonical++
		if c == nil {
			if opts.OnNonCanonical != nil {
				opts.OnNonCanonical(bytes.Clone(k), t, ErrUnencodable)
			}
			continue
		}
		if !opts.Fix {
			if opts.OnNonCanonical != nil {
				opts.OnNonCanonical(bytes.Clone(k), t, nil)
			}
			continue
		}
		conflict := rewritten[string(canon)]
		if !conflict {
			_, gerr := s.kv.Get(ctx, canon)
			switch {
			case gerr == nil:
				conflict = true
			case !errors.Is(gerr, ErrNotFound):
				return r, gerr
			}
		}
		if conflict {
			r.Conflicts++
			if opts.OnNonCanonical != nil {
				opts.OnNonCanonical(bytes.Clone(k), t, ErrConflict)
			}
			continue
		}
		v := it.Value()
		if v == nil && it.Err() != nil {
			break
		}
		rewritten[string(canon)] = true
		pending = append(pending, fix{old: bytes.Clone(k), canon: bytes.Clone(canon), t: t, value: bytes.Clone(v)})
		if len(pending) >= fixBatch {
			if err := flush(); err != nil {
				return r, err
			}
		}
	}
	if err := it.finish(nil); err != nil {
		return r, err
	}
	if err := flush(); err != nil {
		return r, err
	}
	if opts.Fix && len(r.Warnings) > 0 {
		if err := s.ClearWarnings(); err != nil {
			return r, err
		}
	}
	return r, nil
}
