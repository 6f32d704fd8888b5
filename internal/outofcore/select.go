package outofcore

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
)

// Select reads src for the moments of its values (with the sum of their
// squares) and the values of the ranks that ranks returns for the
// sample's size n (from 0, as if the sample were sorted; sorted, distinct
// and below n), holding at most budget bytes of counts and values at
// once. For an empty sample it returns zero moments and no values, and
// does not call ranks. It returns ErrBudget for a budget too small,
// ErrChanged when the source's passes disagree, and src's own errors.
func Select(src Source, budget int, ranks func(n int) []int) (exact.Moments, []time.Duration, Stats, error) {
	bins, ok := binsFor(budget / 2)
	if budget < MinBudget || !ok {
		return exact.Moments{}, nil, Stats{}, fmt.Errorf("%w: %d bytes (want at least %d)", ErrBudget, budget, MinBudget)
	}
	counts := make([]int, bins.len())
	st := Stats{Passes: 1, Held: 8 * len(counts)}
	mo, err := firstPass(src, bins, counts)
	if err != nil || mo.N == 0 {
		return mo, nil, st, err
	}
	ks := ranks(mo.N)
	if 64*len(ks) > budget {
		return mo, nil, st, fmt.Errorf("%w: %d bytes for %d ranks (want %d)", ErrBudget, budget, len(ks), 64*len(ks))
	}
	cells := split(counts, bins.span, ks, 0, 0, mo.Min, mo.Max)
	clear(counts) // now the index of the cells by bin (see index)
	out := make([]time.Duration, len(ks))
	err = refine(src, mo.N, budget-8*len(counts), &index{bins, counts}, cells, out, &st)
	return mo, out, st, err
}

// refine reads src, of n values, until every cell's ranks have their
// values in out: a pass either keeps a cell's values or counts them into
// narrower cells (see cell.plan), the cells sharing the budget, and finds
// each value's cell by the index.
func refine(src Source, n, budget int, ix *index, cells []cell, out []time.Duration, st *Stats) error {
	for {
		cells = settle(cells, out)
		if len(cells) == 0 {
			return nil
		}
		held := 8 * len(ix.first)
		for i := range cells {
			held += cells[i].plan(budget / len(cells))
		}
		st.Held = max(st.Held, held)
		st.Passes++
		ix.set(cells)
		err := pass(src, n, ix, cells)
		ix.unset(cells)
		if err != nil {
			return err
		}
		var next []cell
		for i := range cells {
			more, ok := cells[i].finish(out)
			if !ok {
				return fmt.Errorf("%w: pass %d found %d values in [%d, %d] where the first found %d", ErrChanged, st.Passes, cells[i].seen(), cells[i].lo, cells[i].hi, cells[i].count)
			}
			next = append(next, more...)
		}
		cells = next
	}
}

// settle sets the results of the cells of one value and returns the
// others.
func settle(cells []cell, out []time.Duration) []cell {
	open := cells[:0]
	for _, c := range cells {
		if c.lo < c.hi {
			open = append(open, c)
			continue
		}
		for t := range c.ks {
			out[c.at+t] = c.lo
		}
	}
	return open
}

// pass reads src once, handing each value that lies in one of the cells
// to that cell, found by the index. It returns ErrChanged when src does
// not yield n values.
func pass(src Source, n int, ix *index, cells []cell) error {
	seen := 0
	err := src(func(seg []time.Duration) bool {
		seen += len(seg)
		for _, x := range seg {
			j := ix.first[ix.bins.of(x)]
			if j == 0 {
				continue
			}
			for i := j - 1; i < len(cells) && cells[i].lo <= x; i++ {
				if x <= cells[i].hi {
					cells[i].add(x)
					break
				}
			}
		}
		return true
	})
	if err == nil && seen != n {
		err = fmt.Errorf("%w: a pass read %d values where the first read %d", ErrChanged, seen, n)
	}
	return err
}

// seen returns how many values the cell saw in its pass.
func (c *cell) seen() int {
	if c.counts == nil {
		return len(c.keep)
	}
	n := 0
	for _, m := range c.counts {
		n += m
	}
	return n
}

// An index finds the cells of a value without comparing it with each:
// first[b] is 1 + the index of the first cell within bin b of the first
// pass, or 0 when none is. Every cell lies within one such bin, since it
// is a bin of the first pass or a part of one, and the cells are sorted
// and disjoint, so a value's cell, if any, is among those from first.
// The index takes the place of the first pass's counts.
type index struct {
	bins  logBins
	first []int
}

// set indexes the cells.
func (ix *index) set(cells []cell) {
	for i := len(cells) - 1; i >= 0; i-- {
		ix.first[ix.bins.of(cells[i].lo)] = i + 1
	}
}

// unset clears the cells from the index.
func (ix *index) unset(cells []cell) {
	for _, c := range cells {
		ix.first[ix.bins.of(c.lo)] = 0
	}
}
