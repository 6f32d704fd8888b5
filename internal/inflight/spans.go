package inflight

import (
	"math"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/radix"
)

// SweepSends describes the requests in flight and the gaps between their
// sends merged with others (see Sends), of requests given as SweepRows
// takes them, in any order: by SweepRows when they are near time order,
// else by SweepSpans. Either way the Level is Sweep's, to the bit, and the
// Arrivals those of the sorted sends.
func SweepSends(starts, lengths [][]time.Duration, others []time.Duration) (l Level, ok bool, a Arrivals, some bool) {
	sends := NewSends(others)
	l, ok, inOrder := SweepRows(starts, lengths, sends.Add)
	if !inOrder {
		sends = NewSends(others)
		l, ok = SweepSpans(starts, lengths, sends.Add)
	}
	a, some = sends.Describe()
	return l, ok, a, some
}

// SweepSpans is SweepRows for requests in any order (a shuffled file, or
// one sorted by another column): it sweeps them a span of time at a time,
// in spans cut at times drawn from a systematic sample of their starts and
// ends so that each holds about an eighth of them. For each span it lists
// the starts and ends within it from every request, sorts and sweeps them:
// only one span's are listed at a time, some 2 bytes a request where a
// list of every start and end takes 16, for a pass over the requests a
// span. The same edges are swept in the same order as Sweep sweeps them,
// so the Level is Sweep's, to the bit. It calls each, when not nil, with
// each span's starts, in time order.
func SweepSpans(starts, lengths [][]time.Duration, each func(sorted []time.Duration)) (Level, bool) {
	n := 0
	for _, seg := range starts {
		n += len(seg)
	}
	return sweepSpans(starts, lengths, n, min(maxSpans, max(1, n/minWindow)), each)
}

// sweepSpans is SweepSpans of n requests in at most spans spans.
func sweepSpans(starts, lengths [][]time.Duration, n, spans int, each func([]time.Duration)) (Level, bool) {
	if n == 0 {
		return Level{}, false
	}
	cuts := spanCuts(starts, lengths, n, spans)
	// How many starts and ends each span holds, the first start and the
	// last end.
	nS, nE := make([]int, len(cuts)+1), make([]int, len(cuts)+1)
	first, last := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	for k, seg := range starts {
		for i, s := range seg {
			e := s + lengths[k][i]
			nS[spanOf(cuts, s)]++
			nE[spanOf(cuts, e)]++
			first, last = min(first, s), max(last, e)
		}
	}
	// A start or end is written at the end of its list whatever its span,
	// and kept by moving the end past it when it is in the span: the
	// requests' order makes a branch on it a guess. The lists have room
	// for the one written past the last kept.
	listS, releaseS := hugepage.Map[time.Duration](slices.Max(nS) + 1)
	defer releaseS()
	listE, releaseE := hugepage.Map[time.Duration](slices.Max(nE) + 1)
	defer releaseE()
	w := sweeper{now: first}
	for j := range len(cuts) + 1 {
		// The span from lo to hi, both in: from one cut to before the next.
		lo, hi := time.Duration(math.MinInt64), time.Duration(math.MaxInt64)
		if j > 0 {
			lo = cuts[j-1]
		}
		if j < len(cuts) {
			hi = cuts[j] - 1
		}
		width := uint64(hi - lo) // t is in the span when uint64(t−lo) ≤ width
		ns, ne := 0, 0
		for k, seg := range starts {
			lens := lengths[k][:len(seg)]
			for i, t := range seg {
				listS[ns] = t
				ns += b2i(uint64(t-lo) <= width)
				t += lens[i]
				listE[ne] = t
				ne += b2i(uint64(t-lo) <= width)
			}
		}
		s, e := listS[:ns], listE[:ne]
		radix.Sort(s)
		radix.SortNear(e)
		w.sweep(s, e)
		if each != nil && ns > 0 {
			each(s)
		}
	}
	if first == last { // swept all the same, for each
		return Level{}, false
	}
	return w.level(last - first), true
}

// maxSpans is the most spans SweepSpans sweeps requests in, each a pass
// over them.
const maxSpans = 8

// spanCuts returns the times, in increasing order, at which SweepSpans
// cuts the time of n requests into at most spans spans, each from one cut
// up to the next: the quantiles of a systematic sample of their starts and
// ends (those of 4,096 to 8,191 requests, evenly spaced, or of all of
// fewer), which cut the starts and ends into spans of about equal counts
// whatever the requests' order. Many at one time may leave fewer spans, or
// one span holding more.
func spanCuts(starts, lengths [][]time.Duration, n, spans int) []time.Duration {
	if spans <= 1 {
		return nil
	}
	step := max(1, n/sampleRows)
	sample := make([]time.Duration, 0, 2*(n/step+1))
	next := 0 // the next sampled request's index in the segment
	for k, seg := range starts {
		for ; next < len(seg); next += step {
			sample = append(sample, seg[next], seg[next]+lengths[k][next])
		}
		next -= len(seg)
	}
	slices.Sort(sample)
	var cuts []time.Duration
	for j := 1; j < spans; j++ {
		if c := sample[j*len(sample)/spans]; c > sample[0] && (len(cuts) == 0 || c > cuts[len(cuts)-1]) {
			cuts = append(cuts, c)
		}
	}
	return cuts
}

// sampleRows is about how many requests spanCuts samples.
const sampleRows = 1 << 12

// spanOf returns the index of the span of t: the number of cuts at or
// before it.
func spanOf(cuts []time.Duration, t time.Duration) int {
	j := 0
	for _, c := range cuts {
		j += b2i(c <= t)
	}
	return j
}

// b2i returns 1 for true and 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
