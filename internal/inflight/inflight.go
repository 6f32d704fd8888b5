// Package inflight sweeps the starts and ends of requests in time order,
// to describe how many were in flight, and describes the gaps between
// their sends.
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

// Lists returns two empty lists with room for n times each, for the
// starts and the ends of requests, mapped apart from Go's heap until
// release is called (see hugepage.Map).
func Lists(n int) (starts, ends []time.Duration, release func()) {
	s, releaseS := hugepage.Map[time.Duration](n)
	e, releaseE := hugepage.Map[time.Duration](n)
	return s[:0], e[:0], func() { releaseS(); releaseE() }
}

// Sweep describes the requests in flight, each from a start to an end, or
// returns false when they cover no time; it sorts the starts and the ends
// (as many of each, in any order) in place, and sweeps the two in time
// order, at one instant ends before starts: a request that ends as
// another begins does not overlap it.
func Sweep(starts, ends []time.Duration) (Level, bool) {
	if len(ends) == 0 {
		return Level{}, false
	}
	if !slices.IsSorted(starts) {
		radix.Sort(starts)
	}
	if !slices.IsSorted(ends) {
		radix.SortNear(ends)
	}
	first, last := min(starts[0], ends[0]), max(starts[len(starts)-1], ends[len(ends)-1])
	if first == last {
		return Level{}, false
	}
	w := sweeper{now: first}
	w.sweep(starts, ends)
	return w.level(last - first), true
}

// SweepRows is Sweep for requests given by where they start and how long
// they last (none less than 0), in segments (none of them empty) that
// hold each request's start and length at the same place. The starts need
// not be in time order, only near it, as a run's records are written when
// their requests end: the requests are swept a window at a time, each
// window's starts and ends sorted with those left from the windows before,
// and both swept up to the least start of the next window of rows (no
// later end can come before it, as no request ends before it begins). A
// window holds at least window requests, and at least as many as the
// starts or the ends left, so that each is sorted and moved a bounded
// number of times. Only the starts and ends ahead of the sweep are kept,
// not one for each request.
//
// It calls each, when not nil, with the starts it sweeps, in time order,
// a window at a time. It returns false for inOrder, and nothing else
// useful, when the starts are further from time order than a window (a
// start comes after the sweep has passed it, or before one a window or
// more earlier, among a few dozen read first: see descends), or when the
// starts and ends ahead of the sweep would outgrow a quarter of the
// requests' (what SweepSpans lists, for requests in any order); otherwise
// the Level is Sweep's for the same requests, to the bit.
func SweepRows(starts, lengths [][]time.Duration, each func(sorted []time.Duration)) (l Level, ok, inOrder bool) {
	n := 0
	for _, seg := range starts {
		n += len(seg)
	}
	// A sixteenth of the requests, within bounds: a run of millions takes
	// windows of 65,536, which its radix sorts handle well; a short one
	// takes little memory.
	w := min(max(n/16, minWindow), window)
	if descends(starts, max(w, n/64)) {
		return Level{}, false, false
	}
	return sweepRows(starts, lengths, w, max(n/4, 4*w), each)
}

// descends reports whether a start comes before the one step requests
// before it, among those step apart: requests shuffled are so found out
// in a few dozen reads, where sweepRows would read and sort windows of
// them first.
func descends(starts [][]time.Duration, step int) bool {
	prev, next := time.Duration(math.MinInt64), 0 // next: the index in the segment of the next start read
	for _, seg := range starts {
		for ; next < len(seg); next += step {
			if seg[next] < prev {
				return true
			}
			prev = seg[next]
		}
		next -= len(seg)
	}
	return false
}

// sweepRows is SweepRows in windows of at least window requests, holding
// at most most starts and ends ahead of the sweep. Rows shuffled would
// otherwise have it hold more and more of them, each window at least as
// long as those held, before one of them came too late.
func sweepRows(starts, lengths [][]time.Duration, window, most int, each func([]time.Duration)) (Level, bool, bool) {
	var w sweeper
	rows := rowCursor{starts: starts, lengths: lengths}
	begun := false                        // whether any start is swept
	var first time.Duration               // the earliest start
	last := time.Duration(math.MinInt64)  // the latest end
	swept := time.Duration(math.MinInt64) // where the sweep is: every start and end at or before it is swept
	// The starts and the ends not yet swept, in time order.
	aheadS, aheadE := make([]time.Duration, 0, window+window/4), make([]time.Duration, 0, window+window/4)
	var scratch []time.Duration
	for !rows.done() {
		fromS, fromE := len(aheadS), len(aheadE)
		m := max(window, fromS, fromE)
		if fromS+fromE+2*m > most {
			return Level{}, false, false
		}
		aheadS, aheadE = rows.take(m, aheadS, aheadE)
		if slices.Min(aheadS[fromS:]) < swept {
			return Level{}, false, false
		}
		scratch = sortAfter(aheadS, fromS, scratch)
		scratch = sortAfter(aheadE, fromE, scratch)
		last = max(last, aheadE[len(aheadE)-1])
		// The starts and the ends up to the next rows' least start, at
		// which the ends come first; a start before where the sweep is
		// comes too late.
		next := rows.leastStart(window)
		if next < swept {
			return Level{}, false, false
		}
		swept = next
		cutS, cutE := upTo(aheadS, swept), upTo(aheadE, swept)
		if !begun && cutS > 0 { // no start left unread is before it
			first, w.now, begun = aheadS[0], aheadS[0], true
		}
		w.sweep(aheadS[:cutS], aheadE[:cutE])
		if each != nil && cutS > 0 {
			each(aheadS[:cutS])
		}
		aheadS, aheadE = append(aheadS[:0], aheadS[cutS:]...), append(aheadE[:0], aheadE[cutE:]...)
	}
	if !begun || first == last {
		return Level{}, false, true
	}
	return w.level(last - first), true, true
}

// sortAfter sorts ts, whose first from are in order already: it sorts the
// rest and merges the two, through scratch, which it returns.
func sortAfter(ts []time.Duration, from int, scratch []time.Duration) []time.Duration {
	radix.SortNear(ts[from:])
	if from == 0 || ts[from-1] <= ts[from] {
		return scratch
	}
	scratch = append(scratch[:0], ts[:from]...)
	i, j, k := 0, from, 0
	for ; i < len(scratch) && j < len(ts); k++ {
		if ts[j] < scratch[i] {
			ts[k], j = ts[j], j+1
		} else {
			ts[k], i = scratch[i], i+1
		}
	}
	copy(ts[k:], scratch[i:])
	return scratch
}

// upTo returns how many of ts (in order) are at or before t.
func upTo(ts []time.Duration, t time.Duration) int {
	n, _ := slices.BinarySearchFunc(ts, t, func(e, t time.Duration) int {
		if e <= t {
			return -1
		}
		return 1
	})
	return n
}

// A rowCursor reads requests, their starts and lengths, in the order of
// their segments.
type rowCursor struct {
	starts, lengths [][]time.Duration
	k, i            int // the next request: starts[k][i]
}

// done says whether every request has been read.
func (c *rowCursor) done() bool { return c.k == len(c.starts) }

// take reads the next n requests (fewer at the end), appending their
// starts to s and their ends to e.
func (c *rowCursor) take(n int, s, e []time.Duration) ([]time.Duration, []time.Duration) {
	for n > 0 && !c.done() {
		m := min(n, len(c.starts[c.k])-c.i)
		seg, lens := c.starts[c.k][c.i:c.i+m], c.lengths[c.k][c.i:c.i+m]
		s = append(s, seg...)
		for r, t := range seg {
			e = append(e, t+lens[r])
		}
		n, c.i = n-m, c.i+m
		if c.i == len(c.starts[c.k]) {
			c.k, c.i = c.k+1, 0
		}
	}
	return s, e
}

// leastStart returns the least start of the next n requests, or the
// latest time there is when none is left.
func (c *rowCursor) leastStart(n int) time.Duration {
	least := time.Duration(math.MaxInt64)
	for k, i := c.k, c.i; n > 0 && k < len(c.starts); k, i = k+1, 0 {
		seg := c.starts[k][i:min(len(c.starts[k]), i+n)]
		least = min(least, slices.Min(seg))
		n -= len(seg)
	}
	return least
}

// window is the fewest requests SweepRows takes at a time in a run of
// millions, minWindow in a short one.
const window, minWindow = 1 << 16, 1 << 12

// A sweeper sweeps starts and ends in time order, and adds up how long
// the run spent at each count of requests in flight.
type sweeper struct {
	timeAt []time.Duration // how long the run spent at each count
	area   float64
	n, max int
	now    time.Duration // the time of the last edge swept
}

// sweep sweeps starts and ends (each in time order), all of them, at one
// instant ends before starts.
func (w *sweeper) sweep(starts, ends []time.Duration) {
	n, now, area, most, timeAt := w.n, w.now, w.area, w.max, w.timeAt
	// Which edge comes next is as likely one as the other, so the choice
	// is made without a branch: past the last of either, the other is
	// taken through a sentinel beyond any valid time, and the indexes move
	// by arithmetic.
	for i, j := 0, 0; i < len(starts) || j < len(ends); {
		s, e := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		if i < len(starts) {
			s = starts[i]
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
