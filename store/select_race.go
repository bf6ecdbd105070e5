package store

import (
	"bytes"
	"slices"

	"github.com/erlsext/sext/matchspec"
)

// A select over an index's ranges of values (selectByIndex). The entries
// of many values come in value order, so one page of rows in key order
// must read every entry in the ranges, and paging through M rows p at a
// time would read M²/p entries. A select with a Limit therefore reads its
// plan beside the entries, a key of each in turn, and yields the rows of
// whichever ends first: the plan once it has the page's rows, the entries
// once all are read. A page then reads at most twice the keys of the
// cheaper of the two, and a whole paging reads at most twice the plan's
// keys, each once, since every page's plan starts where the last page's
// rows ended.

// race runs a select over the ranges of ix's entries, against the plan
// when there is a Limit; it reports false when the entries held more
// keys than a select sorts, having yielded nothing (the caller then reads
// the plan, without holding its rows).
func (sel *selection) race(ix *index, entries []matchspec.Range, after []byte, yield func(Row, error) bool) bool {
	g := &gather{ranges: ranges{sel: sel, todo: entries}, ix: ix, after: after}
	defer g.close()
	var p *planSteps
	if sel.opts.Limit > 0 {
		p = &planSteps{ranges: ranges{sel: sel, todo: sel.planRanges(after), reverse: sel.opts.Reverse}}
		defer p.close()
	}
	for {
		if err := sel.ctx.Err(); err != nil {
			yield(Row{}, err)
			return true
		}
		if p != nil {
			done, err := p.step()
			if err != nil {
				yield(Row{}, err)
				return true
			}
			if done {
				p.flush(yield)
				return true
			}
		}
		done, err := g.step()
		switch {
		case err == errTooManyKeys:
			return false // the plan, read again from the start, holds no rows
		case err != nil:
			yield(Row{}, err)
			return true
		case done:
			if p != nil {
				p.close()
			}
			sel.stats.Index = ix.Name
			err = sel.readKeys(g.sorted(), yield)
			if err == nil {
				err = sel.s.stillReady(sel.ctx, ix.Name)
			}
			if err != nil && err != errStopped {
				yield(Row{}, err)
			}
			return true
		}
	}
}

// gather reads the entries of ranges of an index's values, one a step,
// and keeps the data keys that lie after the token's key (after, if
// any) in the select's direction.
type gather struct {
	ranges
	ix    *index
	after []byte
	keys  [][]byte
}

// step reads an entry; it reports done once every range is read, and
// errTooManyKeys past maxIndexRangeKeys.
func (g *gather) step() (done bool, err error) {
	more, err := g.next()
	if !more || err != nil {
		return err == nil, err
	}
	sel := g.sel
	sel.stats.KeysRead++
	// An entry is head, the value's encoding, then the data key.
	_, kb, derr := sel.s.codec.DecodeNext(g.it.Key()[len(g.ix.head):])
	if derr != nil || len(kb) == 0 {
		return false, nil // not an entry: CheckIndexes reports it
	}
	if g.after != nil {
		if c := bytes.Compare(kb, g.after); c == 0 || (c < 0) != sel.opts.Reverse {
			return false, nil
		}
	}
	if len(g.keys) == maxIndexRangeKeys {
		return false, errTooManyKeys
	}
	g.keys = append(g.keys, bytes.Clone(kb))
	return false, nil
}

// sorted returns the keys gathered in the select's order, each once (a
// key comes twice only where entries are stale).
func (g *gather) sorted() [][]byte {
	keys := slices.SortedFunc(slices.Values(g.keys), bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	if g.sel.opts.Reverse {
		slices.Reverse(keys)
	}
	return keys
}

// planSteps reads the plan's ranges, one key a step, and keeps the rows
// of a page (and the keys that are no encoding, for OnBadKey) until it
// yields them.
type planSteps struct {
	ranges
	rows []Row
	bad  []badKey
}

// step reads a key; it reports done once it has a page of rows or has
// read every range.
func (p *planSteps) step() (done bool, err error) {
	more, err := p.next()
	if !more || err != nil {
		return err == nil, err
	}
	sel := p.sel
	row, ok, bad := sel.match(p.it, p.clauses)
	switch {
	case bad != nil:
		if sel.opts.OnBadKey != nil {
			p.bad = append(p.bad, badKey{bytes.Clone(p.it.Key()), bad})
		}
	case ok:
		p.rows = append(p.rows, row)
		if len(p.rows) == sel.opts.Limit {
			p.close()
			return true, nil
		}
	default:
		return false, p.it.Err()
	}
	return false, nil
}

// flush hands the bad keys to OnBadKey and yields the rows.
func (p *planSteps) flush(yield func(Row, error) bool) {
	for _, b := range p.bad {
		p.sel.opts.OnBadKey(b.key, b.err)
	}
	for _, r := range p.rows {
		p.sel.stats.Rows++
		if !yield(r, nil) {
			return
		}
	}
}
