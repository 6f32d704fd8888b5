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
	bins, ok := binsFor(budget)
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
	counts = nil // the later passes' counts and values take the budget
	out := make([]time.Duration, len(ks))
	err = refine(src, mo.N, budget, cells, out, &st)
	return mo, out, st, err
}

// refine reads src, of n values, until every cell's ranks have their
// values in out: a pass either keeps a cell's values or counts them into
// narrower cells (see cell.plan), the cells sharing the budget.
func refine(src Source, n, budget int, cells []cell, out []time.Duration, st *Stats) error {
	for {
		cells = settle(cells, out)
		if len(cells) == 0 {
			return nil
		}
		held := 0
		for i := range cells {
			held += cells[i].plan(budget / len(cells))
		}
		st.Held = max(st.Held, held)
		st.Passes++
		if err := pass(src, n, cells); err != nil {
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
// (which are sorted and disjoint) to that cell. It returns ErrChanged when
// src does not yield n values.
func pass(src Source, n int, cells []cell) error {
	lo, hi := cells[0].lo, cells[len(cells)-1].hi
	seen := 0
	err := src(func(seg []time.Duration) bool {
		seen += len(seg)
		for _, x := range seg {
			if x < lo || x > hi {
				continue
			}
			for i := range cells {
				if x <= cells[i].hi {
					if x >= cells[i].lo {
						cells[i].add(x)
					}
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
