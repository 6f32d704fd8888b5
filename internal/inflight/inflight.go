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
	switch {
	case Sorted(sends):
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

// Sorted says whether sends (segments, none of them empty) are in time
// order.
func Sorted(sends [][]time.Duration) bool {
	for k, seg := range sends {
		if !slices.IsSorted(seg) || k > 0 && seg[0] < sends[k-1][len(sends[k-1])-1] {
			return false
		}
	}
	return true
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
	w := sweeper{now: first}
	w.sweep(starts, ends)
	return w.level(last - first), true
}

// SweepRows is Sweep for requests given by where they start and how long
// they last (none less than 0): the segments of starts are in time order
// (none of them empty), and lengths holds the length of each request at
// its start's place. It keeps the ends still ahead of the sweep, not one
// for each request: the requests are swept a window at a time, each
// window's ends sorted with those left from the windows before, and the
// ends up to the next window's first start swept with its starts (no
// later end can come before that start, as no request ends before it
// begins). A window holds at least window requests, and at least as many
// as the ends left, so that the ends are sorted and moved a bounded number
// of times each. The Level is Sweep's for the same requests, to the bit.
func SweepRows(starts, lengths [][]time.Duration) (Level, bool) {
	return sweepRows(starts, lengths, window)
}

// sweepRows is SweepRows in windows of at least window requests.
func sweepRows(starts, lengths [][]time.Duration, window int) (Level, bool) {
	if len(starts) == 0 {
		return Level{}, false
	}
	first := starts[0][0]
	w := sweeper{now: first}
	last := first
	var ahead []time.Duration // the ends not yet swept, in time order
	var win [][]time.Duration // the window's starts
	k, i := 0, 0              // the next request: starts[k][i]
	for k < len(starts) {
		// The window: the next requests, as many as wanted, taken from
		// their segments with their ends.
		win = win[:0]
		for want := max(window, len(ahead)); want > 0 && k < len(starts); {
			take := min(want, len(starts[k])-i)
			seg, lens := starts[k][i:i+take], lengths[k][i:i+take]
			win = append(win, seg)
			for r, s := range seg {
				ahead = append(ahead, s+lens[r])
			}
			want, i = want-take, i+take
			if i == len(starts[k]) {
				k, i = k+1, 0
			}
		}
		radix.SortNear(ahead) // the ends left are in order; the window's nearly so
		last = max(last, ahead[len(ahead)-1])
		cut := len(ahead)
		if k < len(starts) {
			// The ends up to the next start, at which they come first.
			next := starts[k][i]
			cut, _ = slices.BinarySearchFunc(ahead, next, func(e, t time.Duration) int {
				if e <= t {
					return -1
				}
				return 1
			})
		}
		w.sweep(win, ahead[:cut])
		ahead = append(ahead[:0], ahead[cut:]...)
	}
	if first == last {
		return Level{}, false
	}
	return w.level(last - first), true
}

// window is the fewest requests SweepRows takes at a time.
const window = 1 << 12

// A sweeper sweeps starts and ends in time order, and adds up how long
// the run spent at each count of requests in flight.
type sweeper struct {
	timeAt []time.Duration // how long the run spent at each count
	area   float64
	n, max int
	now    time.Duration // the time of the last edge swept
}

// sweep sweeps starts (segments in time order, none of them empty) and
// ends (in time order), all of them, at one instant ends before starts.
func (w *sweeper) sweep(starts [][]time.Duration, ends []time.Duration) {
	n, now, area, most, timeAt := w.n, w.now, w.area, w.max, w.timeAt
	// Which edge comes next is as likely one as the other, so the choice
	// is made without a branch: past the last of either, the other is
	// taken through a sentinel beyond any valid time, and the indexes move
	// by arithmetic.
	var seg []time.Duration // the segment of starts, and the next
	next := 0
	if len(starts) > 0 {
		seg, next = starts[0], 1
	}
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
		most = max(most, n)
		now = t
	}
	w.n, w.now, w.area, w.max, w.timeAt = n, now, area, most, timeAt
}

// level returns what the sweep found over a span of time.
func (w *sweeper) level(span time.Duration) Level {
	c := Level{Span: span, Mean: w.area / float64(span), Max: w.max}
	var cum time.Duration
	for k, t := range w.timeAt {
		cum += t
		if cum >= span-cum { // 2·cum ≥ Span, which could overflow
			c.P50 = k
			break
		}
	}
	return c
}
