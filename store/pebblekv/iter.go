package pebblekv

import (
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/erlsext/sext/store/seam"
)

// Get returns a copy of the value under key. Pebble's point read takes no
// context; ctx is checked before it, which is as soon as a local read can
// be stopped.
func (p *KV) Get(ctx context.Context, key []byte) (out []byte, err error) {
	defer p.faults.recover(&err)
	if err := p.faults.failed(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, closer, err := p.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, seam.ErrNotFound
	}
	if err != nil {
		return nil, p.faults.convert(err)
	}
	out = append([]byte{}, v...)
	return out, closer.Close()
}

// NewIter returns a cursor over [lower, upper), made with Pebble's
// NewIterWithContext so that ctx reaches Pebble's own reads. Pebble does
// not stop on cancellation, so the cursor checks ctx itself every
// checkEvery keys.
func (p *KV) NewIter(ctx context.Context, lower, upper []byte, reverse bool) (_ seam.Iter, err error) {
	defer p.faults.recover(&err)
	if err := p.faults.failed(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	it, err := p.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, p.faults.convert(err)
	}
	return &iterator{it: it, ctx: ctx, f: p.faults, reverse: reverse}, nil
}

// checkEvery is how many keys a cursor yields between looks at its
// context: often enough to stop within microseconds, rarely enough to
// cost nothing measurable.
const checkEvery = 256

// iterator adapts pebble.Iterator to the one-way seam.Iter.
type iterator struct {
	it      *pebble.Iterator
	ctx     context.Context
	f       *faults
	reverse bool
	started bool
	n       int
	err     error // an error reading a value, a cancellation or a Fatalf
}

func (i *iterator) Next() (ok bool) {
	if i.err != nil {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			i.err, ok = i.f.recovered(r), false
		}
	}()
	if i.n++; i.n%checkEvery == 0 {
		if err := i.ctx.Err(); err != nil {
			i.err = err
			return false
		}
	}
	if !i.started {
		i.started = true
		if err := i.ctx.Err(); err != nil {
			i.err = err
			return false
		}
		if i.reverse {
			return i.it.Last()
		}
		return i.it.First()
	}
	if i.reverse {
		return i.it.Prev()
	}
	return i.it.Next()
}

func (i *iterator) Key() []byte { return i.it.Key() }

func (i *iterator) Value() (v []byte) {
	defer func() {
		if r := recover(); r != nil {
			i.err, v = i.f.recovered(r), nil
		}
	}()
	v, err := i.it.ValueAndErr()
	if err != nil {
		i.err = i.f.convert(err)
		return nil
	}
	return v
}

func (i *iterator) Err() error {
	if i.err != nil {
		return i.err
	}
	return i.f.convert(i.it.Error())
}

func (i *iterator) Close() (err error) {
	defer i.f.recover(&err)
	err = i.f.convert(i.it.Close())
	if i.err != nil {
		return i.err
	}
	return err
}
