// Package lengths describes token counts, many of them, without sorting
// them: two percentiles, the maximum and a histogram of equal bins.
package lengths

import (
	"slices"

	"github.com/llmmetrics/llmmetrics/internal/order"
)

// A Description describes token counts: how many, the counts at two
// ranks (P50 and P95, as Ranks placed them), the maximum, and a histogram
// of bins of equal width over [Min, Max+1), their edges whole tokens: bin i
// counts the lengths in [Min + i·Width, Min + (i+1)·Width).
type Description struct {
	N, P50, P95, Max int
	Min, Width       int64
	Counts           []int
}

// Ranks returns the indexes (from 0) of the 50th and 95th percentiles in
// n sorted counts.
type Ranks func(n int) (p50, p95 int)

// Bins is the number of bins of a histogram, at most.
const Bins = 8

// A Sample holds token counts: as a count of each value while their range
// is small (Range values at most), which needs no list of them, and as a
// list once it is not. The zero Sample is empty.
type Sample struct {
	base   int   // the value counted by counts[0]
	counts []int // counts[v−base] is the number of v's
	list   []int64
}

// Range bounds the range of values a Sample counts by value.
const Range = 1 << 16

// Add adds a count: at once when its value is counted already, as most
// are (a list of them has no counts).
func (l *Sample) Add(v int) {
	if k := uint(v - l.base); k < uint(len(l.counts)) {
		l.counts[k]++
		return
	}
	l.add(v)
}

// add adds a count that the counts do not cover yet.
func (l *Sample) add(v int) {
	if l.list != nil {
		l.list = append(l.list, int64(v))
		return
	}
	if l.counts == nil {
		l.base, l.counts = v, make([]int, 1, 64)
	}
	if v >= l.base+len(l.counts) && v < l.base+cap(l.counts) {
		l.counts = l.counts[:v-l.base+1] // room above, and zero
	}
	if v < l.base || v >= l.base+len(l.counts) {
		lo, hi := min(v, l.base), max(v, l.base+len(l.counts)-1)
		if hi-lo >= Range {
			// Too wide a range: list the values counted so far, then on.
			for k, c := range l.counts {
				for range c {
					l.list = append(l.list, int64(l.base+k))
				}
			}
			l.counts = nil
			l.list = append(l.list, int64(v))
			return
		}
		grown := make([]int, hi-lo+1, max(2*(hi-lo+1), 64))
		copy(grown[l.base-lo:], l.counts)
		l.base, l.counts = lo, grown
	}
	l.counts[v-l.base]++
}

// Describe describes the counts, or returns false for none.
func (l *Sample) Describe(ranks Ranks) (Description, bool) {
	if l.list != nil || l.counts == nil {
		return Describe(l.list, ranks)
	}
	n := 0
	for _, c := range l.counts {
		n += c
	}
	// The range only grows to take a value, so its ends are both counted.
	lo, hi := int64(l.base), int64(l.base+len(l.counts)-1)
	// The value at a rank (from 0) is where the counts up to it pass it.
	at := func(k int) int {
		for v, c := range l.counts {
			if k < c {
				return l.base + v
			}
			k -= c
		}
		return int(hi)
	}
	d := newDescription(lo, hi, n)
	k50, k95 := ranks(n)
	d.P50, d.P95 = at(k50), at(k95)
	for k, c := range l.counts {
		d.Counts[int64(k)/d.Width] += c // the value base+k is k from the lowest
	}
	return d, true
}

// Describe describes token counts, or returns false for none. It does not
// sort them: the two percentiles are selected (see order.Select), and the
// histogram's bins are equal in width, so each count's bin is found by one
// division (gonum's stat.Histogram, which takes bins of any width, needs
// the counts sorted).
func Describe(xs []int64, ranks Ranks) (Description, bool) {
	if len(xs) == 0 {
		return Description{}, false
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	k50, k95 := ranks(len(xs))
	ks := slices.Compact([]int{k50, k95})
	at := make([]int64, len(ks))
	order.Select(order.Flat(xs), lo, hi, ks, at)
	d := newDescription(lo, hi, len(xs))
	d.P50, d.P95 = int(at[0]), int(at[len(at)-1])
	for _, x := range xs {
		d.Counts[(x-lo)/d.Width]++
	}
	return d, true
}

// newDescription returns the description of n counts in [lo, hi], with
// its bins empty: at most Bins of them, their edges whole tokens.
func newDescription(lo, hi int64, n int) Description {
	width := max(1, (hi+1-lo+Bins-1)/Bins)
	return Description{N: n, Max: int(hi), Min: lo, Width: width, Counts: make([]int, (hi+1-lo+width-1)/width)}
}
