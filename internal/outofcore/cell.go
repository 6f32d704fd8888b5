package outofcore

import (
	"math/bits"
	"slices"
	"time"
)

// A cell is a range of values, [lo, hi], that holds some of the wanted
// ranks: count values of the sample lie in it and below lie under lo.
// ks are the wanted ranks (from 0, in the whole sample) that fall in it,
// at the index at of the results.
//
// For a pass, a cell either keeps its values (keep, with room for count
// of them), if they fit its share of the budget, or counts them in
// equal-width bins of 2^shift values from lo.
type cell struct {
	lo, hi       time.Duration
	below, count int
	ks           []int
	at           int

	keep   []time.Duration
	over   bool // more values came than count: the source changed
	counts []int
	shift  uint
}

// add takes x, which lies in the cell, for its pass.
func (c *cell) add(x time.Duration) {
	switch {
	case c.counts != nil:
		c.counts[uint64(x-c.lo)>>c.shift]++
	case len(c.keep) < cap(c.keep):
		c.keep = append(c.keep, x)
	default:
		c.over = true
	}
}

// plan readies the cell for a pass in which it may hold share bytes, and
// returns the bytes it holds.
func (c *cell) plan(share int) int {
	if 8*c.count <= share {
		c.keep = make([]time.Duration, 0, c.count)
		return 8 * c.count
	}
	most := bits.Len64(uint64(share/8)) - 1 // 2^most bins fit in share
	span := uint64(c.hi - c.lo)             // hi > lo: a cell of one value is settled without a pass
	c.shift = uint(max(0, bits.Len64(span)-most))
	c.counts = make([]int, span>>c.shift+1)
	return 8 * len(c.counts)
}

// finish ends the cell's pass: a cell that kept its values sets the
// results of its ranks and returns no cells; one that counted them
// returns the cells of its bins that hold its ranks. ok is false when the
// pass did not see the values the first one did.
func (c *cell) finish(out []time.Duration) (next []cell, ok bool) {
	if c.counts == nil {
		if c.over || len(c.keep) != c.count {
			return nil, false
		}
		slices.Sort(c.keep)
		for t, k := range c.ks {
			out[c.at+t] = c.keep[k-c.below]
		}
		return nil, true
	}
	n := 0
	for _, m := range c.counts {
		n += m
	}
	if n != c.count {
		return nil, false
	}
	return split(c.counts, c.binSpan, c.ks, c.at, c.below, c.lo, c.hi), true
}

// binSpan returns the least and greatest values of bin i of the cell's
// counts.
func (c *cell) binSpan(i int) (lo, hi time.Duration) {
	lo = c.lo + time.Duration(uint64(i)<<c.shift)
	hi = lo + time.Duration(uint64(1)<<c.shift-1)
	if hi < lo || hi > c.hi { // the last bin, or an overflow at the top of the range
		hi = c.hi
	}
	return lo, hi
}

// split returns the cells of the bins, counted in counts, that hold the
// ranks ks: bin i spans the values span(i) returns, within [lo, hi]. The
// bins hold the values from rank below, and ks are at index at of the
// results.
func split(counts []int, span func(i int) (lo, hi time.Duration), ks []int, at, below int, lo, hi time.Duration) []cell {
	var cells []cell
	b, cum := 0, below
	for i, k := range ks {
		for cum+counts[b] <= k {
			cum += counts[b]
			b++
		}
		if last := len(cells) - 1; last >= 0 && cells[last].below == cum {
			cells[last].ks = ks[i-len(cells[last].ks) : i+1]
			continue
		}
		blo, bhi := span(b)
		cells = append(cells, cell{lo: max(blo, lo), hi: min(bhi, hi), below: cum, count: counts[b], ks: ks[i : i+1], at: at + i})
	}
	return cells
}
