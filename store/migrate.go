package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/erlsext/sext/matchspec"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// ErrMigrateSpec: a match specification that cannot define a migration,
// because some clause's head matches only keys that already have the
// shape a body builds (see Migrate).
var ErrMigrateSpec = errors.New("store: the specification cannot define a migration")

// MigrateOptions adjusts Migrate. The zero value migrates from the start
// to the end, in steps of the default size, and keeps 10 samples.
type MigrateOptions struct {
	// DryRun reads and counts as a migration would, and writes nothing:
	// Migrated and Conflicts say what a migration of the store as it is
	// would do, and the samples show it.
	DryRun bool
	// After resumes a migration (or a dry run) right after the last key
	// of the step whose MigrateResult.Token it is. The token must come
	// from the same specification, and from a dry run exactly when this
	// is one.
	After string
	// Step is the number of keys a step reads, all its writes being one
	// atomic write; 0 means the default: 1,000, or on a shared backend
	// such as etcd 60 divided by one more than the number of indexes
	// (etcd's transactions hold 128 writes by default, and each key
	// moved is two writes and two more an index).
	Step int
	// Steps, when positive, stops the migration after that many steps;
	// MigrateResult.Token then resumes it.
	Steps int
	// Samples is the number of moves and of conflicts to keep as
	// samples; 0 means 10, a negative number none.
	Samples int
	// Progress, when set, is called after each step, once its write is
	// committed, with the totals so far; its Token resumes from there.
	Progress func(MigrateResult)
	// OnBadKey is as for ScanOptions: keys that are no sext encoding are
	// handed to it, after the step that read them, and left.
	OnBadKey func(key []byte, err error)
}

// Move is one key's migration: the key, and the new key its clause's
// body built.
type Move struct {
	From, To term.Term
}

// MigrateResult counts what a migration did; a dry run counts what it
// would do.
type MigrateResult struct {
	Steps     int   // steps committed (a dry run's: read)
	Read      int64 // keys read
	Matched   int64 // keys that a clause's head and guards matched
	Migrated  int64 // keys moved to their new key
	Conflicts int64 // keys left because their new key exists
	// Settled counts the matched keys that already have the shape of a
	// body's key (see Migrate) and are left as they are: keys of the new
	// layout, those this migration moved ahead of itself among them, and
	// keys that a body would map to themselves.
	Settled int64
	// Moves are the first moves, in key order, and Conflicting the first
	// conflicts: From is the key left, To the existing key it would have
	// become.
	Moves, Conflicting []Move
	// Token resumes the migration after its last step (MigrateOptions.
	// After); it is empty once the migration is done, and when no step
	// was committed and the migration did not start from a token.
	Token string
	// Done reports that the migration read to the end.
	Done bool
}

// Migrate rewrites keys from one layout to another: each key that a
// clause of spec matches (its head and guards, the first such clause, as
// Select takes them) is moved to the key the clause's body builds, with
// its value, and its index entries with it: those of the old key
// deleted, those of the new key written, in the same atomic write. For
// instance
//
//	[{{order,'$1','$2','$3'},[{is_integer,'$2'}],[{{order,'$1',#Desc<'$2'>,'$3'}}]}]
//
// turns every order's timestamp into a descending one. Only the byte
// ranges of spec.Plan are read, forward, in steps of MigrateOptions.Step
// keys; each step's moves are one atomic write. A key whose new key
// exists already, in the store or as the new key of an earlier key of
// the run, is a conflict: it is left, counted and sampled, and the
// existing key is never overwritten.
//
// A migration tells a moved key from one still to move by its shape: a
// body read as a pattern (constants and constructions as written; each
// variable, '$_', '$$' and call a wildcard) matches every key the body
// builds, and a key that has the shape of some clause's body is left as
// it is (counted as Settled). So a key is moved at most once: a new key
// that lands ahead of the scan is met again and left, a step repeated
// after a crash finds its keys moved, and running a finished migration
// again changes nothing. A specification whose head only matches keys
// of such a shape (swapping two elements, say) could not be told apart
// and is refused with ErrMigrateSpec; give the new layout its own shape
// (another tag, a #Desc, one more element).
//
// A migration can be stopped at any time (a cancelled ctx, a crash, the
// Steps option) and resumed with the last Token from its result or its
// Progress, in this process or another; a token older than the last
// committed step, or none, only reads again what is already moved.
// Writers may go on meanwhile: a step's write holds only if its keys,
// their values and the index definitions are as it read them (under the
// store's write lock, or as conditions of the commit on a shared
// backend, where a failed condition reads the step again). A key that a
// writer adds in the old layout behind the scan is not moved; running
// the migration again moves it.
//
// The error, if any, comes with the result so far, whose Token resumes
// after the last committed step.
func (s *Store) Migrate(ctx context.Context, spec *matchspec.Spec, opts MigrateOptions) (MigrateResult, error) {
	res := MigrateResult{Token: opts.After}
	if s.closed.Load() {
		return res, ErrClosed
	}
	shapes, err := migrationShapes(spec.Term())
	if err != nil {
		return res, err
	}
	var after []byte
	if opts.After != "" {
		if after, err = decodeMigrateToken(opts.After, spec.ID(), opts.DryRun); err != nil {
			return res, err
		}
	}
	r := &migration{s: s, spec: spec, plan: spec.Plan(), shapes: shapes, m: spec.NewMatcher(), opts: opts,
		samples: opts.Samples, targets: map[string]struct{}{}}
	if r.samples == 0 {
		r.samples = 10
	}
	for opts.Steps <= 0 || res.Steps < opts.Steps {
		st, err := r.step(ctx, after, &res)
		for attempt := 0; errors.Is(err, ErrPrecondition) && attempt < maxCatalogRetries; attempt++ {
			st, err = r.step(ctx, after, &res) // a writer came between: read the step again
		}
		if opts.OnBadKey != nil {
			for _, b := range st.bad {
				opts.OnBadKey(b.key, b.err)
			}
		}
		if err != nil {
			return res, err
		}
		res.add(&st)
		if st.done {
			res.Token, res.Done = "", true
		} else {
			after = st.last
			res.Token = encodeMigrateToken(spec.ID(), opts.DryRun, after)
		}
		if opts.Progress != nil {
			opts.Progress(res)
		}
		if st.done {
			break
		}
	}
	return res, nil
}

// migration is one call of Migrate.
type migration struct {
	s       *Store
	spec    *matchspec.Spec
	plan    []matchspec.Range
	shapes  []shape
	m       *matchspec.Matcher
	opts    MigrateOptions
	samples int
	// targets are the new keys of the moves so far: of the step, or of
	// the whole run for a dry run, which writes none of them, so that
	// two keys with one new key are one move and one conflict as in a
	// migration.
	targets map[string]struct{}
	cands   []candidate // the step's keys to move, in key order
	order   []int       // cands by new key
	arena   []byte      // the candidates' keys, values and new keys
	eb      []byte      // scratch: an index entry
}

// stepResult is what one step read and would write; it counts once its
// write is committed.
type stepResult struct {
	read, matched, migrated, conflicts, settled int64
	moves, conflicting                          []Move
	bad                                         []badKey
	last                                        []byte // the last key read
	done                                        bool   // the plan is read to its end
}

type badKey struct {
	key []byte
	err error
}

func (res *MigrateResult) add(st *stepResult) {
	res.Steps++
	res.Read += st.read
	res.Matched += st.matched
	res.Migrated += st.migrated
	res.Conflicts += st.conflicts
	res.Settled += st.settled
	res.Moves = append(res.Moves, st.moves...)
	res.Conflicting = append(res.Conflicting, st.conflicting...)
}

// settled reports whether t has the shape of some clause's body.
func (r *migration) settled(t term.Term) bool {
	for i := range r.shapes {
		if r.shapes[i].has(t) {
			return true
		}
	}
	return false
}

// step reads up to a step's keys after the key after (nil: from the
// start) and, unless this is a dry run, writes their moves in one atomic
// write: under the store's write lock, so that the store's writers wait
// for it, or, on a shared backend, conditional on every moved key still
// holding the value read, every new key still being absent and the index
// definitions being those used (ErrPrecondition otherwise).
func (r *migration) step(ctx context.Context, after []byte, res *MigrateResult) (st stepResult, err error) {
	s, dry := r.s, r.opts.DryRun
	var c *catalog
	switch {
	case dry:
	case s.ix.shared:
		if c, err = s.readCatalog(ctx); err != nil {
			return st, err
		}
	default:
		s.ix.mu.Lock()
		defer s.ix.mu.Unlock()
		if s.ix.cat == nil {
			if s.ix.cat, err = s.readCatalog(ctx); err != nil {
				return st, err
			}
		}
		c = s.ix.cat
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	size := r.stepSize(c)
	r.cands, r.arena = r.cands[:0], r.arena[:0]
	for _, rg := range r.plan {
		if int(st.read) == size {
			break
		}
		lo, hi, ok := clip(rg.Lower, rg.Upper, after, false)
		if !ok {
			continue
		}
		if len(lo) == 0 {
			lo = seam.ReservedEnd // below it lie the index entries
		}
		it, err := s.openCursor(ctx, lo, hi, false)
		if err != nil {
			return st, err
		}
		err = r.readRange(it, rg.Clauses, size, &st)
		if err = it.finish(err); err != nil {
			return st, err
		}
	}
	st.done = int(st.read) < size
	if err := r.markTaken(ctx); err != nil {
		return st, err
	}
	var wb WriteBatch
	var cb seam.CondBatch
	if !dry {
		wb = s.kv.NewBatch()
		defer wb.Close()
		cb, _ = wb.(seam.CondBatch)
		clear(r.targets)
	}
	moveRoom, conflictRoom := r.samples-len(res.Moves), r.samples-len(res.Conflicting)
	for i := range r.cands {
		m := &r.cands[i]
		nk := r.arena[m.n0:m.n1]
		if _, mine := r.targets[string(nk)]; mine || m.taken {
			st.conflicts++
			if len(st.conflicting) < conflictRoom {
				st.conflicting = append(st.conflicting, Move{From: m.from, To: m.to})
			}
			continue
		}
		r.targets[string(nk)] = struct{}{}
		st.migrated++
		if len(st.moves) < moveRoom {
			st.moves = append(st.moves, Move{From: m.from, To: m.to})
		}
		if dry {
			continue
		}
		k, v := r.arena[m.k0:m.k1], r.arena[m.k1:m.n0]
		if err := wb.Delete(k); err != nil {
			return st, err
		}
		if err := wb.Set(nk, v); err != nil {
			return st, err
		}
		if err := r.moveEntries(wb, c, m.from, k, m.to, nk); err != nil {
			return st, err
		}
		if cb != nil {
			cb.RequireValue(k, v) // never nil: an empty value is arena[i:i]
			cb.RequireAbsent(nk)
		}
	}
	if dry || wb.Count() == 0 {
		return st, nil
	}
	if cb != nil {
		cb.RequireValue(s.catalogKey(), c.raw)
	}
	return st, wb.Commit(ctx, s.sync)
}

// candidate is a key a step would move: its bytes, value and new key
// in the step's arena, [k0,k1) [k1,n0) [n0,n1), and whether the new key
// is stored already.
type candidate struct {
	from, to       term.Term
	k0, k1, n0, n1 int
	taken          bool
}

// readRange reads one range of the plan with it, until the step has read
// size keys, keeping the keys to move as candidates.
func (r *migration) readRange(it *cursor, clauses []int, size int, st *stepResult) error {
	s := r.s
	for int(st.read) < size && it.Next() {
		k := it.Key()
		st.read++
		st.last = append(st.last[:0], k...)
		t, err := s.codec.Decode(k)
		if err != nil {
			st.bad = append(st.bad, badKey{bytes.Clone(k), err})
			continue
		}
		res, ok := r.m.MatchClauses(t, clauses)
		if !ok {
			continue
		}
		st.matched++
		if r.settled(t) {
			st.settled++
			continue
		}
		m := candidate{from: t, k0: len(r.arena)}
		r.arena = append(r.arena, k...)
		m.k1 = len(r.arena)
		if !r.opts.DryRun {
			v := it.Value()
			if v == nil {
				if err := it.Err(); err != nil {
					return err
				}
			}
			r.arena = append(r.arena, v...)
		}
		m.n0 = len(r.arena)
		if r.arena, err = s.codec.Append(r.arena, res.Term); err != nil {
			return fmt.Errorf("store: migrating %v: its new key %v: %w", t, res.Term, err)
		}
		m.n1 = len(r.arena)
		// The new key as the store will read it back, for its index
		// entries and for the promise that it has a body's shape.
		m.to, err = s.codec.Decode(r.arena[m.n0:m.n1])
		if err != nil || !r.settled(m.to) {
			return fmt.Errorf("store: migrating %v: its new key %v does not read back as a key of the new layout (%v)", t, res.Term, err)
		}
		r.cands = append(r.cands, m)
	}
	return nil
}

// markTaken finds which candidates' new keys are stored. New keys lie
// together more often than not (a layout changes a key's tail, not its
// head), so it reads the range from the least to the greatest with one
// cursor, keys only, merging it with them in order; once that read
// meets more keys than a point read apiece would cost, it reads the
// rest point by point.
func (r *migration) markTaken(ctx context.Context) error {
	if len(r.cands) == 0 {
		return nil
	}
	order := r.order[:0]
	for i := range r.cands {
		order = append(order, i)
	}
	nk := func(i int) []byte { m := &r.cands[i]; return r.arena[m.n0:m.n1] }
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(nk(a), nk(b)) })
	r.order = order
	lo, hi := nk(order[0]), append(bytes.Clone(nk(order[len(order)-1])), 0)
	it, err := r.s.openCursor(ctx, lo, hi, false)
	if err != nil {
		return err
	}
	budget := 4*len(order) + 64
	i := 0
	for i < len(order) && budget > 0 && it.Next() {
		budget--
		k := it.Key()
		for i < len(order) && bytes.Compare(nk(order[i]), k) < 0 {
			i++ // not stored
		}
		for i < len(order) && bytes.Equal(nk(order[i]), k) {
			r.cands[order[i]].taken = true
			i++
		}
	}
	if err := it.finish(nil); err != nil {
		return err
	}
	if budget > 0 {
		return nil // the cursor read the whole range
	}
	for ; i < len(order); i++ {
		taken, err := r.s.present(ctx, nk(order[i]))
		if err != nil {
			return err
		}
		r.cands[order[i]].taken = taken
	}
	return nil
}

// moveEntries adds to wb the deletion of the old key's index entries and
// the new key's entries, under the definitions c.
func (r *migration) moveEntries(wb WriteBatch, c *catalog, from term.Term, fromKey []byte, to term.Term, toKey []byte) error {
	var err error
	for _, ix := range c.list {
		if ix.State == IndexDropping {
			continue
		}
		if v, ok := ix.value(from); ok {
			if r.eb, err = r.s.appendEntry(r.eb[:0], ix, v, fromKey); err != nil {
				return fmt.Errorf("store: index %s: %w", ix.Name, err)
			}
			if err := wb.Delete(r.eb); err != nil {
				return err
			}
		}
		if v, ok := ix.value(to); ok {
			if r.eb, err = r.s.appendEntry(r.eb[:0], ix, v, toKey); err != nil {
				return fmt.Errorf("store: index %s: %w", ix.Name, err)
			}
			if err := wb.Set(r.eb, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// stepSize is MigrateOptions.Step, or its default under the definitions
// c (nil in a dry run).
func (r *migration) stepSize(c *catalog) int {
	if r.opts.Step > 0 {
		return r.opts.Step
	}
	if !r.s.ix.shared || c == nil {
		return 1000
	}
	n := 0
	for _, ix := range c.list {
		if ix.State != IndexDropping {
			n++
		}
	}
	return max(1, 60/(1+n))
}
