package llmmetrics

import (
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/order"
	"gonum.org/v1/gonum/stat"
)

// A Workload describes what a run asked of the server, which every latency
// figure depends on (the lessons' §1): the prompt and output lengths, the
// arrival process, the concurrency the server saw, and how often requests
// stopped before max_tokens. A nil part had no data; Summary.Absent says
// why.
type Workload struct {
	Prompt      *Lengths     // prompt tokens of the ok requests that carry a count
	Output      *Lengths     // output tokens (n, from usage) of the ok requests
	Arrivals    *Arrivals    // gaps between consecutive sends of the measured requests
	Concurrency *Concurrency // requests in flight over time
	EarlyStop   *EarlyStop   // ok requests that ended before max_tokens
}

// Lengths is a distribution of token counts: nearest-rank p50 and p95,
// the maximum, and a compact histogram.
type Lengths struct {
	N             int
	P50, P95, Max int
	Histogram     []Bin
}

// A Bin counts the lengths in [Lo, Hi).
type Bin struct {
	Lo, Hi int
	Count  int
}

// Arrivals describes the arrival process by the gaps between consecutive
// sends, in send order: their mean and coefficient of variation (standard
// deviation over mean). CV near 1 is what Poisson arrivals give; above it
// the arrivals are burstier, below it more evenly paced (a closed loop
// usually is).
type Arrivals struct {
	Gaps    int
	Mean    time.Duration
	CV      float64
	Reading string // "Poisson-like" (0.8 ≤ CV ≤ 1.2), "bursty" (CV > 1.2) or "paced" (CV < 0.8)
}

// Concurrency describes how many ok requests were in flight, from each
// one's send to its last text chunk, weighted by time over the span from
// the first send to the last text: the time-weighted mean, the
// time-weighted median (the smallest count the run spent at least half its
// span at or below) and the most at once. Failed requests have no last
// text and are not counted.
type Concurrency struct {
	Span time.Duration
	Mean float64
	P50  int
	Max  int
}

// EarlyStop counts the ok requests whose max_tokens is known (Known) and
// those of them that ended with fewer output tokens (Early): the output
// length was not fixed, so latency per request varies with it.
type EarlyStop struct {
	Known, Early int
	Rate         float64 // Early / Known
}

// DescribeWorkload describes the workload of the valid, measured records
// of recs (warm-up and invalid records are left out). It returns
// ErrNoRecords when none is left. It does not modify recs.
func DescribeWorkload(recs []Record) (*Workload, error) {
	cat, _ := classify(recs, nil)
	w, _ := describeWorkload(&source{recs: recs}, cat, nil)
	if w == nil {
		return nil, ErrNoRecords
	}
	return w, nil
}

// describeWorkload describes the records by their categories, and says why
// each absent part is absent; spare, when it has room for a duration for
// each record, holds their ends. It returns nil when no record is
// measured.
//
// The send times are kept in two lists, the ok records' (the requests'
// starts) and the others', and the gaps between sends are taken from the
// two merged, in the ends' memory once concurrency is done with it: for a
// run of millions of requests, a list of gaps of its own would be 40 MB
// more memory to take.
func describeWorkload(src *source, cat []Category, spare []time.Duration) (*Workload, map[string]string) {
	absent := map[string]string{}
	var prompts, outputs lengthSample
	n := src.len()
	ends := spare[:0]
	if cap(ends) < n {
		room, release := hugepage.Map[time.Duration](n)
		defer release()
		ends = room[:0]
	}
	// The ok records' sends, the requests' starts, are a table's own
	// column where they can be (see table.okColumns), or else a list.
	var starts [][]time.Duration
	if src.tab != nil {
		if segs, fits := src.tab.okColumns(cat, sentColumn); fits {
			starts = segs[0]
		}
	}
	var list []time.Duration
	if starts == nil {
		room, release := hugepage.Map[time.Duration](n)
		defer release()
		list = room[:0]
	}
	var others []time.Duration // the sends of the measured records that are not ok
	es := EarlyStop{}
	for base, w := range src.windows(0, n, noIDs) {
		for k := range w {
			r := &w[k]
			switch cat[base+k] {
			case CategoryRejected, CategoryWarmup:
			case CategoryOK:
				counted := r.counted()
				if counted {
					outputs.add(r.CompletionTokens)
				}
				if r.PromptTokens > 0 {
					prompts.add(r.PromptTokens)
				}
				if starts == nil {
					list = append(list, r.Sent)
				}
				ends = append(ends, r.Sent+r.last())
				if r.MaxTokens > 0 && counted {
					es.Known++
					if r.CompletionTokens < r.MaxTokens {
						es.Early++
					}
				}
			default:
				others = append(others, r.Sent)
			}
		}
	}
	if len(ends)+len(others) == 0 {
		return nil, absent
	}
	if starts == nil {
		starts = [][]time.Duration{list}
	}
	starts = inOrder(starts, list != nil)
	w := &Workload{Prompt: prompts.describe(), Output: outputs.describe(), Concurrency: sweep(starts, ends)}
	w.Arrivals = arrivals(sendGaps(starts, others, floatRoom(ends)))
	if w.Prompt == nil {
		absent["workload.prompt"] = "no ok request carries a prompt token count"
	}
	if w.Output == nil {
		absent["workload.output"] = "no ok request"
	}
	if w.Arrivals == nil {
		absent["workload.arrivals"] = "fewer than three measured requests"
	}
	if w.Concurrency == nil {
		absent["workload.concurrency"] = "no ok request spans any time"
	}
	if es.Known > 0 {
		es.Rate = float64(es.Early) / float64(es.Known)
		w.EarlyStop = &es
	} else {
		absent["workload.early_stop"] = "no ok request says its max_tokens"
	}
	return w, absent
}

// histogramBins is the number of bins of a length histogram.
const histogramBins = 8

// A lengthSample holds token counts: as a count of each value while their
// range is small (lengthRange values at most), which needs no list of
// them, and as a list once it is not.
type lengthSample struct {
	base   int   // the value counted by counts[0]
	counts []int // counts[v−base] is the number of v's
	list   []int64
}

// lengthRange bounds the range of values counted by value.
const lengthRange = 1 << 16

// add adds a count.
func (l *lengthSample) add(v int) {
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
		if hi-lo >= lengthRange {
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

// describe describes the counts, or returns nil for none.
func (l *lengthSample) describe() *Lengths {
	if l.list != nil || l.counts == nil {
		return lengths(l.list)
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
	h := newLengthBins(lo, hi, n)
	h.l.P50, h.l.P95 = at(lengthRank(lengthP50, n)), at(lengthRank(lengthP95, n))
	for k, c := range l.counts {
		h.counts[int64(k)/h.width] += c // the value base+k is k from the lowest
	}
	return h.done()
}

// lengths describes token counts, or returns nil for none. It does not
// sort them: the two percentiles are selected (see order.Select), and the
// histogram's bins are equal in width, so each count's bin is found by one
// division (gonum's stat.Histogram, which takes bins of any width, needs
// the counts sorted).
func lengths(xs []int64) *Lengths {
	if len(xs) == 0 {
		return nil
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	ks := slices.Compact([]int{lengthRank(lengthP50, len(xs)), lengthRank(lengthP95, len(xs))})
	at := make([]int64, len(ks))
	order.Select(order.Flat(xs), lo, hi, ks, at)
	h := newLengthBins(lo, hi, len(xs))
	h.l.P50, h.l.P95 = int(at[0]), int(at[len(at)-1])
	for _, x := range xs {
		h.counts[(x-lo)/h.width]++
	}
	return h.done()
}

// The length percentiles, and the index (from 0) of each in n sorted
// lengths: nearest rank, as percentile.go defines it.
var lengthP50, lengthP95 = MustPercentile(50), MustPercentile(95)

func lengthRank(p Percentile, n int) int {
	k, _ := NearestRank.position(p, n)
	return k
}

// lengthBins is a length histogram being counted: bins of equal width over
// [min, max+1), their edges whole tokens.
type lengthBins struct {
	l      *Lengths
	lo     int64
	width  int64
	counts []int
}

func newLengthBins(lo, hi int64, n int) *lengthBins {
	width := max(1, (hi+1-lo+histogramBins-1)/histogramBins)
	return &lengthBins{
		l:  &Lengths{N: n, Max: int(hi)},
		lo: lo, width: width,
		counts: make([]int, (hi+1-lo+width-1)/width),
	}
}

// done returns the lengths with their histogram.
func (h *lengthBins) done() *Lengths {
	for i, c := range h.counts {
		h.l.Histogram = append(h.l.Histogram, Bin{Lo: int(h.lo + int64(i)*h.width), Hi: int(h.lo + int64(i+1)*h.width), Count: c})
	}
	return h.l
}

// floatRoom returns the memory of ds, which is free, as empty room for
// as many float64s.
func floatRoom(ds []time.Duration) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(ds))), cap(ds))[:0]
}

// inOrder returns sends (segments, none of them empty but a lone one), in
// time order: themselves when they are, or else sorted, in place when own
// says that they are one list of the caller's own, or else in a list of
// their own (a table's column is never reordered).
func inOrder(sends [][]time.Duration, own bool) [][]time.Duration {
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
		sortInts(sends[0])
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
	sortInts(list)
	return [][]time.Duration{list}
}

// sendGaps appends to gaps the gaps between consecutive sends, in time
// order, of the sends of a (segments in time order, none empty) and b
// (any order, sorted here) merged, and returns them.
func sendGaps(a [][]time.Duration, b []time.Duration, gaps []float64) []float64 {
	if !slices.IsSorted(b) {
		sortInts(b)
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

// arrivals describes the gaps between consecutive sends, or returns nil
// for fewer than two gaps.
func arrivals(gaps []float64) *Arrivals {
	if len(gaps) < 2 {
		return nil
	}
	mean, std := stat.PopMeanStdDev(gaps, nil)
	a := &Arrivals{Gaps: len(gaps), Mean: time.Duration(math.Round(mean))}
	switch {
	case mean == 0:
		a.Reading = "all at once"
		return a
	default:
		a.CV = std / mean
	}
	switch {
	case a.CV > 1.2:
		a.Reading = "bursty"
	case a.CV < 0.8:
		a.Reading = "paced"
	default:
		a.Reading = "Poisson-like"
	}
	return a
}

// sweep describes the requests in flight, each from a start to an end, or
// returns nil when they cover no time; starts are in time order in
// segments (none of them empty, see inOrder), and as many ends in any
// order, which it sorts. It sweeps the two in time order, at one instant
// ends before starts: a request that ends as another begins does not
// overlap it.
func sweep(starts [][]time.Duration, ends []time.Duration) *Concurrency {
	if len(ends) == 0 {
		return nil
	}
	if !slices.IsSorted(ends) {
		sortInts(ends)
	}
	lastSeg := starts[len(starts)-1]
	first, last := min(starts[0][0], ends[0]), max(lastSeg[len(lastSeg)-1], ends[len(ends)-1])
	if first == last {
		return nil
	}
	c := &Concurrency{Span: last - first}
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
	return c
}
