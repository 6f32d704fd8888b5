// Package inflight sweeps the starts and ends of requests in time order,
// to describe how many were in flight, and merges the sorted segments of
// times it sweeps.
package inflight

import (
	"math"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/radix"
)

// A Level describes how many requests were in flight, weighted by time
// over Span, from the first start to the last end: the time-weighted mean,
// the time-weighted median (the smallest count the requests spent at least
// half the span at or below) and the most at once.
type Level struct {
	Span time.Duration
	Mean float64
	P50  int
	Max  int
}

// InOrder returns sends (segments, none of them empty but a lone one), in
// time order: themselves when they are, or else sorted, in place when own
// says that they are one list of the caller's own, or else in a list of
// their own (a table's column is never reordered).
func InOrder(sends [][]time.Duration, own bool) [][]time.Duration {
	sorted := true
	for k, seg := range sends {
		if !slices.IsSorted(seg) || k > 0 && seg[0] < sends[k-1][len(sends[k-1])-1] {
			sorted = false
			break
		}
	}
	switch {
	case sorted:
		return sends
	case own && len(sends) == 1:
		radix.Sort(sends[0])
		return sends
	}
	n := 0
	for _, seg := range sends {
		n += len(seg)
	}
	list := hugepage.Make[time.Duration](0, n)
	for _, seg := range sends {
		list = append(list, seg...)
	}
	radix.Sort(list)
	return [][]time.Duration{list}
}

// Gaps appends to gaps the gaps between consecutive sends, in time
// order, of the sends of a (segments in time order, none empty) and b
// (any order, sorted here) merged, and returns them.
func Gaps(a [][]time.Duration, b []time.Duration, gaps []float64) []float64 {
	if !slices.IsSorted(b) {
		radix.Sort(b)
	}
	var prev time.Duration
	seg, next := []time.Duration(nil), 0 // a's segment, and the next
	i, j := 0, 0                         // in seg, and in b
	for taken := 0; ; taken++ {
		if i == len(seg) && next < len(a) {
			seg, i, next = a[next], 0, next+1
		}
		var t time.Duration
		switch {
		case i < len(seg) && (j == len(b) || seg[i] <= b[j]):
			t, i = seg[i], i+1
		case j < len(b):
			t, j = b[j], j+1
		default:
			return gaps
		}
		if taken > 0 {
			gaps = append(gaps, float64(t-prev))
		}
		prev = t
	}
}

// Sweep describes the requests in flight, each from a start to an end, or
// returns false when they cover no time; starts are in time order in
// segments (none of them empty, see InOrder), and as many ends in any
// order, which it sorts. It sweeps the two in time order, at one instant
// ends before starts: a request that ends as another begins does not
// overlap it.
func Sweep(starts [][]time.Duration, ends []time.Duration) (Level, bool) {
	if len(ends) == 0 {
		return Level{}, false
	}
	if !slices.IsSorted(ends) {
		radix.SortNear(ends)
	}
	lastSeg := starts[len(starts)-1]
	first, last := min(starts[0][0], ends[0]), max(lastSeg[len(lastSeg)-1], ends[len(ends)-1])
	if first == last {
		return Level{}, false
	}
	c := Level{Span: last - first}
	var timeAt []time.Duration // how long the run spent at each count
	var area float64
	n, now := 0, first
	// Which edge comes next is as likely one as the other, so the choice
	// is made without a branch: past the last of either, the other is
	// taken through a sentinel beyond any valid time, and the indexes move
	// by arithmetic.
	seg, next := starts[0], 1 // the segment of starts, and the next
	for i, j := 0, 0; i < len(seg) || j < len(ends); {
		s, e := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		if i < len(seg) {
			s = seg[i]
		}
		if j < len(ends) {
			e = ends[j]
		}
		// end is 1 for an end, 0 for a start: set so, with the edge's
		// time taken by min, the compiler makes no branch of the choice.
		t := min(s, e)
		end := 0
		if e <= s {
			end = 1
		}
		// The time since the last edge is spent at n (none passes between
		// the edges of one instant, where n may dip below 0 as a request
		// of no length ends before it begins).
		if dt := t - now; dt > 0 {
			if n >= len(timeAt) {
				timeAt = append(timeAt, make([]time.Duration, n+1-len(timeAt))...)
			}
			timeAt[n] += dt
			area += float64(n) * float64(dt)
		}
		n += 1 - 2*end
		i, j = i+1-end, j+end
		if i == len(seg) && next < len(starts) {
			seg, i, next = starts[next], 0, next+1
		}
		c.Max = max(c.Max, n)
		now = t
	}
	c.Mean = area / float64(c.Span)
	var cum time.Duration
	for k, t := range timeAt {
		cum += t
		if cum >= c.Span-cum { // 2·cum ≥ Span, which could overflow
			c.P50 = k
			break
		}
	}
	return c, true
}
