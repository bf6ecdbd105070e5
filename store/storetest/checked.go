package storetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/erlsext/sext/store"
	"github.com/erlsext/sext/store/seam"
)

// ErrMisuse is what a checked iterator or batch returns when it is used
// against the seam's rules, beside the test failure it reports.
var ErrMisuse = errors.New("storetest: seam misuse")

// Checked wraps kv in a backend that holds its callers to the seam's
// rules for cursors and batches, and fails t (t.Errorf, from any
// goroutine) when one is broken:
//
//   - an Iter closed twice, or used (Next, Key, Value, Err) after Close;
//   - Key or Value called when the cursor is not on a key (before the
//     first Next, or after Next returned false);
//   - an Iter or a WriteBatch used by two goroutines at once;
//   - a WriteBatch closed twice, or used after Close, or used after
//     Commit for anything but Close;
//   - an Iter still open when the KV is closed or the test ends.
//
// A call that breaks a rule is not passed on: the backend never sees a
// second Close (which, for Pebble, puts the same iterator in its pool
// twice and corrupts other goroutines' reads). Keys and values are
// handed out as copies that the next Next or Close overwrites, so that
// a caller that keeps one past its lifetime reads garbage and fails
// rather than pass by luck. Each report names where the object was
// opened and, for a second Close, where it was first closed.
//
// The wrapper has StatsKV and WarningsKV whatever kv has (answering as
// the Store does for a backend without them), and its batches are
// seam.CondBatch exactly when kv's are, so the Store takes the same
// paths over it as over kv.
func Checked(t testing.TB, kv store.KV) store.KV {
	c := &CheckedKV{kv: kv, t: t, iters: map[*checkedIter]struct{}{}}
	t.Cleanup(func() { c.leaks("the test ended") })
	return c
}

// checkedOpen wraps every KV that open returns with Checked.
func checkedOpen(open func(t *testing.T) store.KV) func(t *testing.T) store.KV {
	return func(t *testing.T) store.KV { return Checked(t, open(t)) }
}

// CheckedKV is the KV that Checked returns.
type CheckedKV struct {
	kv store.KV
	t  testing.TB

	mu     sync.Mutex
	iters  map[*checkedIter]struct{} // open iterators
	closed bool
	faults atomic.Int64
	keys   atomic.Int64 // keys the cursors stepped onto
}

// Unwrap returns the backend under the checks.
func (c *CheckedKV) Unwrap() store.KV { return c.kv }

// KeysRead returns the number of keys its cursors have stepped onto so
// far (Next calls that returned true), in all: what a scan read.
func (c *CheckedKV) KeysRead() int64 { return c.keys.Load() }

// Faults returns the number of misuses reported so far.
func (c *CheckedKV) Faults() int64 { return c.faults.Load() }

func (c *CheckedKV) fail(format string, args ...any) {
	c.faults.Add(1)
	c.t.Errorf("seam misuse: "+format, args...)
}

// Get passes through.
func (c *CheckedKV) Get(ctx context.Context, key []byte) ([]byte, error) { return c.kv.Get(ctx, key) }

// NewIter opens a checked cursor.
func (c *CheckedKV) NewIter(ctx context.Context, lower, upper []byte, reverse bool) (seam.Iter, error) {
	it, err := c.kv.NewIter(ctx, lower, upper, reverse)
	if err != nil {
		return nil, err
	}
	ci := &checkedIter{c: c, it: it, opened: callers()}
	c.mu.Lock()
	c.iters[ci] = struct{}{}
	c.mu.Unlock()
	return ci, nil
}

// NewBatch opens a checked batch.
func (c *CheckedKV) NewBatch() seam.WriteBatch {
	wb := c.kv.NewBatch()
	b := &checkedBatch{c: c, wb: wb, opened: callers()}
	if cb, ok := wb.(seam.CondBatch); ok {
		return &checkedCondBatch{checkedBatch: b, cb: cb}
	}
	return b
}

// Close reports the iterators still open, then closes the backend.
func (c *CheckedKV) Close() error {
	c.leaks("the KV was closed")
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return c.kv.Close()
}

// Stats passes through, or returns ErrUnsupported as the Store would.
func (c *CheckedKV) Stats(ctx context.Context) (seam.Stats, error) {
	if sk, ok := c.kv.(seam.StatsKV); ok {
		return sk.Stats(ctx)
	}
	return seam.Stats{}, seam.ErrUnsupported
}

// Warnings passes through; a backend without them has none.
func (c *CheckedKV) Warnings() []error {
	if w, ok := c.kv.(seam.WarningsKV); ok {
		return w.Warnings()
	}
	return nil
}

// ClearWarnings passes through.
func (c *CheckedKV) ClearWarnings() error {
	if w, ok := c.kv.(seam.WarningsKV); ok {
		return w.ClearWarnings()
	}
	return nil
}

// leaks reports every iterator still open, once each.
func (c *CheckedKV) leaks(when string) {
	c.mu.Lock()
	var open []*checkedIter
	for it := range c.iters {
		open = append(open, it)
		delete(c.iters, it)
	}
	c.mu.Unlock()
	for _, it := range open {
		c.fail("an iterator was still open when %s; opened at\n%s", when, it.opened)
	}
}

// checkedIter is a seam.Iter held to its rules.
type checkedIter struct {
	c      *CheckedKV
	it     seam.Iter
	opened stack

	busy   atomic.Int32
	on     bool // on a key: the last Next returned true
	closed stack
	key    []byte // the copy handed out by Key, overwritten by Next and Close
	val    []byte
}

// enter marks the iterator in use by one call, or reports a second
// goroutine.
func (i *checkedIter) enter(op string) bool {
	if !i.busy.CompareAndSwap(0, 1) {
		i.c.fail("Iter.%s while another goroutine is using the iterator; opened at\n%s", op, i.opened)
		return false
	}
	return true
}

func (i *checkedIter) leave() { i.busy.Store(0) }

// usable reports whether the iterator is open, or reports the misuse.
func (i *checkedIter) usable(op string) bool {
	if i.closed != nil {
		i.c.fail("Iter.%s after Close; opened at\n%s\nclosed at\n%s\nused at\n%s", op, i.opened, i.closed, callers())
		return false
	}
	return true
}

// spoil overwrites the key and value last handed out.
func (i *checkedIter) spoil() {
	for j := range i.key {
		i.key[j] = 0xEE
	}
	for j := range i.val {
		i.val[j] = 0xEE
	}
	i.key, i.val = nil, nil
}

func (i *checkedIter) Next() bool {
	if !i.enter("Next") {
		return false
	}
	defer i.leave()
	if !i.usable("Next") {
		return false
	}
	i.spoil()
	i.on = i.it.Next()
	if i.on {
		i.c.keys.Add(1)
	}
	return i.on
}

func (i *checkedIter) Key() []byte {
	if !i.enter("Key") {
		return nil
	}
	defer i.leave()
	if !i.usable("Key") {
		return nil
	}
	if !i.on {
		i.c.fail("Iter.Key when the cursor is on no key; opened at\n%s\nused at\n%s", i.opened, callers())
		return nil
	}
	if i.key == nil {
		i.key = append([]byte{}, i.it.Key()...)
	}
	return i.key
}

func (i *checkedIter) Value() []byte {
	if !i.enter("Value") {
		return nil
	}
	defer i.leave()
	if !i.usable("Value") {
		return nil
	}
	if !i.on {
		i.c.fail("Iter.Value when the cursor is on no key; opened at\n%s\nused at\n%s", i.opened, callers())
		return nil
	}
	if i.val == nil {
		v := i.it.Value()
		if v == nil {
			return nil // an error reading it (Err says), or an empty value
		}
		i.val = append([]byte{}, v...)
	}
	return i.val
}

func (i *checkedIter) Err() error {
	if !i.enter("Err") {
		return ErrMisuse
	}
	defer i.leave()
	if !i.usable("Err") {
		return ErrMisuse
	}
	return i.it.Err()
}

func (i *checkedIter) Close() error {
	if !i.enter("Close") {
		return ErrMisuse
	}
	defer i.leave()
	if i.closed != nil {
		i.c.fail("Iter.Close twice; opened at\n%s\nfirst closed at\n%s\nclosed again at\n%s", i.opened, i.closed, callers())
		return ErrMisuse
	}
	i.closed = callers()
	i.spoil()
	i.on = false
	i.c.mu.Lock()
	delete(i.c.iters, i)
	i.c.mu.Unlock()
	return i.it.Close()
}

// checkedBatch is a seam.WriteBatch held to its rules.
type checkedBatch struct {
	c      *CheckedKV
	wb     seam.WriteBatch
	opened stack

	busy      atomic.Int32
	committed stack
	closed    stack
}

// use checks a call other than Close and marks the batch in use; the
// caller must call leave if it returns true.
func (b *checkedBatch) use(op string) bool {
	if !b.busy.CompareAndSwap(0, 1) {
		b.c.fail("WriteBatch.%s while another goroutine is using the batch; opened at\n%s", op, b.opened)
		return false
	}
	switch {
	case b.closed != nil:
		b.c.fail("WriteBatch.%s after Close; opened at\n%s\nclosed at\n%s\nused at\n%s", op, b.opened, b.closed, callers())
	case b.committed != nil:
		b.c.fail("WriteBatch.%s after Commit; opened at\n%s\ncommitted at\n%s\nused at\n%s", op, b.opened, b.committed, callers())
	default:
		return true
	}
	b.busy.Store(0)
	return false
}

func (b *checkedBatch) leave() { b.busy.Store(0) }

func (b *checkedBatch) Set(key, value []byte) error {
	if !b.use("Set") {
		return ErrMisuse
	}
	defer b.leave()
	return b.wb.Set(key, value)
}

func (b *checkedBatch) Delete(key []byte) error {
	if !b.use("Delete") {
		return ErrMisuse
	}
	defer b.leave()
	return b.wb.Delete(key)
}

func (b *checkedBatch) Count() int {
	if !b.use("Count") {
		return 0
	}
	defer b.leave()
	return b.wb.Count()
}

func (b *checkedBatch) Commit(ctx context.Context, sync bool) error {
	if !b.use("Commit") {
		return ErrMisuse
	}
	defer b.leave()
	b.committed = callers()
	return b.wb.Commit(ctx, sync)
}

func (b *checkedBatch) Close() error {
	if !b.busy.CompareAndSwap(0, 1) {
		b.c.fail("WriteBatch.Close while another goroutine is using the batch; opened at\n%s", b.opened)
		return ErrMisuse
	}
	defer b.leave()
	if b.closed != nil {
		b.c.fail("WriteBatch.Close twice; opened at\n%s\nfirst closed at\n%s\nclosed again at\n%s", b.opened, b.closed, callers())
		return ErrMisuse
	}
	b.closed = callers()
	return b.wb.Close()
}

// checkedCondBatch is a checked batch of a backend whose batches carry
// conditions.
type checkedCondBatch struct {
	*checkedBatch
	cb seam.CondBatch
}

func (b *checkedCondBatch) RequireValue(key, value []byte) {
	if b.use("RequireValue") {
		defer b.leave()
		b.cb.RequireValue(key, value)
	}
}

func (b *checkedCondBatch) RequirePresent(key []byte) {
	if b.use("RequirePresent") {
		defer b.leave()
		b.cb.RequirePresent(key)
	}
}

func (b *checkedCondBatch) RequireAbsent(key []byte) {
	if b.use("RequireAbsent") {
		defer b.leave()
		b.cb.RequireAbsent(key)
	}
}

// stack is a call stack, formatted only when a report needs it; nil
// means the event has not happened.
type stack []uintptr

// callers returns the stack of the caller's caller.
func callers() stack {
	pc := make([]uintptr, 24)
	return stack(pc[:runtime.Callers(3, pc)])
}

// String formats the stack without the runtime's and the testing
// package's frames.
func (s stack) String() string {
	var b strings.Builder
	frames := runtime.CallersFrames(s)
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "testing.") {
			fmt.Fprintf(&b, "\t%s\n\t\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			break
		}
	}
	if b.Len() == 0 {
		return "\t(unknown)\n"
	}
	return b.String()
}
