package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/erlsext/sext"
	"github.com/erlsext/sext/store/seam"
	"github.com/erlsext/sext/term"
)

// Secondary indexes. An index is a name and a pattern with '$N'
// variables; every data key that matches the pattern has one index entry,
// kept in the store's reserved range (seam.ReservedByte):
//
//	0x00 ++ sext({index, <<Name>>, IndexValue, Key})   value: empty
//	0x00 ++ sext(index_catalog)                        value: the definitions
//
// where IndexValue is what the pattern's variable bound, or the tuple of
// what its variables bound in the order of their numbers ('$1', '$2').
// The entry depends on the key alone, never on the value, so the writer
// of a key knows its entries without reading anything: a put writes
// them, a delete deletes them, and an overwrite rewrites the same ones.
// Entries sort by index, then value, then key, so a look-up by value is
// one prefix range of the reserved space.
//
// The definitions live in one key, so that a writer can make its commit
// depend on the definitions it used (seam.CondBatch): a writer in another
// process whose view of them is stale fails and retries, instead of
// missing an index that was just created.

// Index errors.
var (
	// ErrNoIndex: no index has the name asked for.
	ErrNoIndex = errors.New("store: no such index")
	// ErrIndexExists: CreateIndex was given a name already in use.
	ErrIndexExists = errors.New("store: an index of that name exists")
	// ErrIndexBuilding: the index is not ready for queries: it is being
	// built, or its build was interrupted (CheckIndexes with Fix
	// finishes it).
	ErrIndexBuilding = errors.New("store: the index is not built yet")
	// ErrIndexPattern: a pattern that cannot define an index (no '$N'
	// variable, or not encodable), or a name that cannot name one.
	ErrIndexPattern = errors.New("store: bad index definition")
	// ErrPrecondition: a conditional write found the store changed under
	// it (see seam.CondBatch). The store retries on it; it reaches a
	// caller only when another process kept changing the same keys.
	ErrPrecondition = seam.ErrPrecondition
)

// IndexState says what an index is doing.
type IndexState uint8

// The states of an index.
const (
	// IndexBuilding: writers maintain its entries, and a build is adding
	// those of the keys that were there before; queries refuse it.
	IndexBuilding IndexState = iota
	// IndexReady: complete; queries use it.
	IndexReady
	// IndexDropping: its entries are being deleted; writers ignore it.
	IndexDropping
)

var stateNames = [...]string{"building", "ready", "dropping"}

func (st IndexState) String() string {
	if int(st) < len(stateNames) {
		return stateNames[st]
	}
	return "state(" + strconv.Itoa(int(st)) + ")"
}

// IndexInfo describes an index.
type IndexInfo struct {
	Name    string
	Pattern term.Term // the keys it indexes; its '$N' variables make the value
	State   IndexState
}

// maxIndexName bounds an index's name, which every entry repeats.
const maxIndexName = 200

// index is a definition ready for use.
type index struct {
	IndexInfo
	vars         []string // the '$N' names, by number
	lower, upper []byte   // the data keys that can match: PrefixRange(Pattern)
	head         []byte   // 0x00 and the entry tuple's prefix up to the value
}

// catalog is the index definitions as one version of the catalog key
// holds them.
type catalog struct {
	raw  []byte // the catalog key's value; nil when there is none
	gen  int64  // bumped by every change
	list []*index
}

func (c *catalog) find(name string) *index {
	for _, ix := range c.list {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// maintained reports whether writers keep any index's entries.
func (c *catalog) maintained() bool {
	for _, ix := range c.list {
		if ix.State != IndexDropping {
			return true
		}
	}
	return false
}

// indexes is the Store's part for indexes. mu serialises the store's own
// writers (RLock, around computing entries and committing) against
// changes of the definitions and build steps (Lock): that is all the
// guarding a backend that one process opens needs. cat caches the
// definitions; nil means not loaded.
type indexes struct {
	mu  sync.RWMutex
	cat *catalog
	// shared: the backend's batches are seam.CondBatch, so other
	// processes may write too, and commits carry conditions.
	shared bool
}

var (
	atomIndex   = term.Atom("index")
	catalogAtom = term.Atom("index_catalog")
	wildcard    = term.Atom("_")
	stateAtoms  = [...]term.Term{term.Atom("building"), term.Atom("ready"), term.Atom("dropping")}
	// errBadCatalog: the definitions do not decode. Writes then fail (the
	// store cannot know which entries they owe); it wraps ErrCorrupt.
	errBadCatalog = fmt.Errorf("%w: the index catalog (the key 00 ++ sext(index_catalog)) does not decode", ErrCorrupt)
)

// reserved returns the reserved key for t: 0x00 and t's encoding.
func (s *Store) reserved(t term.Term) ([]byte, error) {
	return s.codec.Append([]byte{seam.ReservedByte}, t)
}

func (s *Store) catalogKey() []byte {
	k, _ := s.reserved(catalogAtom) // an atom always encodes
	return k
}

// compile checks a definition and prepares it.
func (s *Store) compile(info IndexInfo) (*index, error) {
	if info.Name == "" || len(info.Name) > maxIndexName {
		return nil, fmt.Errorf("%w: a name must have 1 to %d bytes", ErrIndexPattern, maxIndexName)
	}
	vars := patternVars(info.Pattern)
	if len(vars) == 0 {
		return nil, fmt.Errorf("%w: %v has no '$N' variable to index by", ErrIndexPattern, info.Pattern)
	}
	lower, upper, err := s.codec.PrefixRange(info.Pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIndexPattern, err)
	}
	head, err := s.codec.Prefix(term.Tuple(atomIndex, term.Binary([]byte(info.Name)), wildcard, wildcard))
	if err != nil {
		return nil, err
	}
	if len(lower) == 0 {
		lower = nil
	}
	return &index{IndexInfo: info, vars: vars, lower: lower, upper: upper,
		head: append([]byte{seam.ReservedByte}, head...)}, nil
}

// patternVars returns the distinct '$N' wildcards of p, by number.
func patternVars(p term.Term) []string {
	var names []string
	var walk func(t term.Term)
	walk = func(t term.Term) {
		switch t.Kind() {
		case term.KindAtom:
			if n := t.Atom(); n != "_" && sext.IsWildcard(t) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		case term.KindTuple:
			for _, e := range t.Elems() {
				walk(e)
			}
		case term.KindList:
			for _, e := range t.Elems() {
				walk(e)
			}
			if !t.IsProper() { // a proper list's Tail is [], itself a list
				walk(t.Tail())
			}
		case term.KindMap:
			for _, e := range t.Entries() {
				walk(e.Key)
				walk(e.Value)
			}
		case term.KindDesc:
			walk(t.Inner())
		}
	}
	walk(p)
	slices.SortStableFunc(names, func(a, b string) int {
		x, _ := strconv.Atoi(a[1:])
		y, _ := strconv.Atoi(b[1:])
		return x - y
	})
	return names
}

// value returns the index value of key, and whether key matches the
// index at all.
func (ix *index) value(key term.Term) (term.Term, bool) {
	bs, ok := sext.Match(ix.Pattern, key)
	if !ok {
		return term.Term{}, false
	}
	if len(ix.vars) == 1 {
		v, _ := bs.Get(ix.vars[0])
		return v, true
	}
	elems := make([]term.Term, len(ix.vars))
	for i, n := range ix.vars {
		elems[i], _ = bs.Get(n)
	}
	return term.Tuple(elems...), true
}

// appendEntry appends the entry key of (v, keyBytes), keyBytes being the
// data key's encoding.
func (s *Store) appendEntry(dst []byte, ix *index, v term.Term, keyBytes []byte) ([]byte, error) {
	dst = append(dst, ix.head...)
	dst, err := s.codec.Append(dst, v)
	if err != nil {
		return dst, err
	}
	return append(dst, keyBytes...), nil
}

// encodeCatalog writes the definitions: {Gen, [{<<Name>>, Pattern, State}]}.
func (s *Store) encodeCatalog(gen int64, list []*index) ([]byte, error) {
	defs := make([]term.Term, len(list))
	for i, ix := range list {
		defs[i] = term.Tuple(term.Binary([]byte(ix.Name)), ix.Pattern, stateAtoms[ix.State])
	}
	return s.codec.Encode(term.Tuple(term.Int(gen), term.List(defs...)))
}

func (s *Store) decodeCatalog(raw []byte) (*catalog, error) {
	t, err := s.codec.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBadCatalog, err)
	}
	bad := fmt.Errorf("%w: %v is not {Gen, [{Name, Pattern, State}]}", errBadCatalog, t)
	if t.Kind() != term.KindTuple || t.Len() != 2 || !t.Elems()[1].IsProper() {
		return nil, bad
	}
	if !t.Elems()[0].IsInt64() {
		return nil, bad
	}
	gen := t.Elems()[0].Int64()
	c := &catalog{raw: raw, gen: gen}
	for _, d := range t.Elems()[1].Elems() {
		if d.Kind() != term.KindTuple || d.Len() != 3 || d.Elems()[0].Kind() != term.KindBinary {
			return nil, bad
		}
		st := slices.IndexFunc(stateAtoms[:], func(a term.Term) bool { return term.Equal(a, d.Elems()[2]) })
		if st < 0 {
			return nil, bad
		}
		ix, err := s.compile(IndexInfo{Name: string(d.Elems()[0].Bytes()), Pattern: d.Elems()[1], State: IndexState(st)})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errBadCatalog, err)
		}
		c.list = append(c.list, ix)
	}
	return c, nil
}

// readCatalog reads the definitions from the backend.
func (s *Store) readCatalog(ctx context.Context) (*catalog, error) {
	raw, err := s.kv.Get(ctx, s.catalogKey())
	if errors.Is(err, ErrNotFound) {
		return &catalog{}, nil
	}
	if err != nil {
		return nil, err
	}
	return s.decodeCatalog(raw)
}

// readLocked returns the cached definitions with s.ix.mu read-locked,
// loading them first if need be; the caller calls the returned unlock.
func (s *Store) readLocked(ctx context.Context) (*catalog, func(), error) {
	for {
		s.ix.mu.RLock()
		if c := s.ix.cat; c != nil {
			return c, s.ix.mu.RUnlock, nil
		}
		s.ix.mu.RUnlock()
		s.ix.mu.Lock()
		if s.ix.cat == nil {
			c, err := s.readCatalog(ctx)
			if err != nil {
				s.ix.mu.Unlock()
				return nil, nil, err
			}
			s.ix.cat = c
		}
		s.ix.mu.Unlock()
	}
}

// current returns the definitions for a query: the cache, or on a shared
// backend a fresh read (another process may have changed them).
func (s *Store) current(ctx context.Context) (*catalog, error) {
	if s.ix.shared {
		c, err := s.readCatalog(ctx)
		if err == nil {
			s.ix.mu.Lock()
			s.ix.cat = c
			s.ix.mu.Unlock()
		}
		return c, err
	}
	c, unlock, err := s.readLocked(ctx)
	if err != nil {
		return nil, err
	}
	unlock()
	return c, nil
}

// forget drops the cached definitions if they are still c.
func (s *Store) forget(c *catalog) {
	s.ix.mu.Lock()
	if s.ix.cat == c {
		s.ix.cat = nil
	}
	s.ix.mu.Unlock()
}

// Indexes lists the store's indexes, in the order they were created.
func (s *Store) Indexes(ctx context.Context) ([]IndexInfo, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	c, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]IndexInfo, len(c.list))
	for i, ix := range c.list {
		out[i] = ix.IndexInfo
	}
	return out, nil
}

// maxCatalogRetries bounds the retries of a write whose definitions
// another process changed meanwhile.
const maxCatalogRetries = 20

// changeCatalog applies f to fresh definitions and writes the result,
// conditional on the definitions not having changed since they were
// read. It holds s.ix.mu, so the store's own writers wait for it.
func (s *Store) changeCatalog(ctx context.Context, f func(c *catalog) ([]*index, error)) (*catalog, error) {
	s.ix.mu.Lock()
	defer s.ix.mu.Unlock()
	for attempt := 0; ; attempt++ {
		old, err := s.readCatalog(ctx)
		if err != nil {
			return nil, err
		}
		list, err := f(old)
		if err != nil {
			s.ix.cat = old
			return nil, err
		}
		raw, err := s.encodeCatalog(old.gen+1, list)
		if err != nil {
			return nil, err
		}
		wb := s.kv.NewBatch()
		if cb, ok := wb.(seam.CondBatch); ok {
			cb.RequireValue(s.catalogKey(), old.raw)
		}
		err = wb.Set(s.catalogKey(), raw)
		if err == nil {
			err = wb.Commit(ctx, true)
		}
		wb.Close()
		if err == nil {
			s.ix.cat = &catalog{raw: raw, gen: old.gen + 1, list: list}
			return s.ix.cat, nil
		}
		if !errors.Is(err, ErrPrecondition) || attempt >= maxCatalogRetries {
			s.ix.cat = nil
			return nil, err
		}
	}
}

// withState returns c's list with the named index in state st, or
// removed when st is negative.
func withState(c *catalog, name string, st int) []*index {
	var out []*index
	for _, ix := range c.list {
		if ix.Name != name {
			out = append(out, ix)
			continue
		}
		if st >= 0 {
			cp := *ix
			cp.State = IndexState(st)
			out = append(out, &cp)
		}
	}
	return out
}
