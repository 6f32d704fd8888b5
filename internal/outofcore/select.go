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
	each := func(yield func(int, []time.Duration) bool) error {
		return src(func(seg []time.Duration) bool { return yield(0, seg) })
	}
	mos, outs, st, err := SelectEach(each, 1, budget, func(_, n int) []int { return ranks(n) })
	var mo exact.Moments
	var out []time.Duration
	if mos != nil {
		mo = mos[0]
	}
	if outs != nil {
		out = outs[0]
	}
	return mo, out, st, err
}

// A Samples source yields the values of k samples read together, a
// segment of sample i at a time, as a Source does.
type Samples func(yield func(i int, seg []time.Duration) bool) error

// SelectEach is Select for k samples read together, so that each pass of
// src serves them all: mos[i] and outs[i] are sample i's moments and the
// values of the ranks ranks(i, n) returns for its size n (not called for
// an empty sample). The samples share the budget.
func SelectEach(src Samples, k, budget int, ranks func(i, n int) []int) (mos []exact.Moments, outs [][]time.Duration, st Stats, err error) {
	bins, ok := binsFor(budget / 2 / max(k, 1))
	if budget < MinBudget || !ok {
		return nil, nil, st, fmt.Errorf("%w: %d bytes for %d samples (want at least %d)", ErrBudget, budget, k, max(MinBudget, 2*k*8*logBins{}.len()))
	}
	ss := make([]selection, k)
	for i := range ss {
		ss[i] = selection{ix: index{bins, make([]int, bins.len())}, mo: exact.Moments{Squared: true}}
	}
	st = Stats{Passes: 1, Held: k * 8 * bins.len()}
	err = firstPass(src, ss)
	for i := range ss {
		mos = append(mos, ss[i].mo)
	}
	if err != nil {
		return mos, nil, st, err
	}
	if err = start(ss, budget, ranks); err == nil {
		err = refine(src, budget-st.Held, ss, &st)
	}
	for i := range ss {
		outs = append(outs, ss[i].out)
	}
	return mos, outs, st, err
}

// A selection is what the passes know of one sample: its moments, the
// cells of its wanted ranks, their values as they are found, and the
// first pass's counts, then the index of the cells by bin.
type selection struct {
	mo    exact.Moments
	ix    index
	cells []cell
	out   []time.Duration
	seen  int // values in the current pass
}

// start finds the cells of each sample's ranks in the first pass's counts
// and turns the counts into the index.
func start(ss []selection, budget int, ranks func(i, n int) []int) error {
	asked := 0
	for i := range ss {
		s := &ss[i]
		if s.mo.N == 0 {
			continue
		}
		ks := ranks(i, s.mo.N)
		asked += len(ks)
		s.cells = split(s.ix.first, s.ix.bins.span, ks, 0, 0, s.mo.Min, s.mo.Max)
		s.out = make([]time.Duration, len(ks))
		clear(s.ix.first)
	}
	if 64*asked > budget {
		return fmt.Errorf("%w: %d bytes for %d ranks (want %d)", ErrBudget, budget, asked, 64*asked)
	}
	return nil
}

// refine reads src until every cell's ranks have their values: a pass
// either keeps a cell's values or counts them into narrower cells (see
// cell.plan), the cells of all samples sharing the budget.
func refine(src Samples, budget int, ss []selection, st *Stats) error {
	fixed := st.Held
	for {
		open := 0
		for i := range ss {
			ss[i].cells = settle(ss[i].cells, ss[i].out)
			open += len(ss[i].cells)
		}
		if open == 0 {
			return nil
		}
		held := fixed
		for i := range ss {
			held += ss[i].plan(budget / open)
		}
		st.Held = max(st.Held, held)
		st.Passes++
		if err := pass(src, ss); err != nil {
			return err
		}
		for i := range ss {
			if err := ss[i].finish(st.Passes); err != nil {
				return err
			}
		}
	}
}

// plan readies the sample's cells for a pass, each holding share bytes,
// and returns the bytes they hold.
func (s *selection) plan(share int) int {
	held := 0
	for i := range s.cells {
		held += s.cells[i].plan(share)
	}
	s.ix.set(s.cells)
	s.seen = 0
	return held
}

// finish ends a pass for the sample: the cells that kept their values set
// their results, the others give way to their narrower cells.
func (s *selection) finish(passes int) error {
	s.ix.unset(s.cells)
	if len(s.cells) > 0 && s.seen != s.mo.N {
		return fmt.Errorf("%w: pass %d read %d values where the first read %d", ErrChanged, passes, s.seen, s.mo.N)
	}
	var next []cell
	for i := range s.cells {
		c := &s.cells[i]
		more, ok := c.finish(s.out)
		if !ok {
			return fmt.Errorf("%w: pass %d found %d values in [%d, %d] where the first found %d", ErrChanged, passes, c.seen(), c.lo, c.hi, c.count)
		}
		next = append(next, more...)
	}
	s.cells = next
	return nil
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

// pass reads src once, handing each value that lies in one of its
// sample's cells to that cell.
func pass(src Samples, ss []selection) error {
	return src(func(i int, seg []time.Duration) bool {
		ss[i].take(seg)
		return true
	})
}

// take hands each value of seg that lies in one of the cells to that
// cell, found by the index.
func (s *selection) take(seg []time.Duration) {
	s.seen += len(seg)
	first, bins, cells := s.ix.first, s.ix.bins, s.cells
	for _, x := range seg {
		j := first[bins.of(x)]
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
