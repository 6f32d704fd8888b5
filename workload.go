package llmmetrics

import (
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/lengths"
	"github.com/llmmetrics/llmmetrics/internal/radix"
	"github.com/llmmetrics/llmmetrics/internal/table"
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
	// column where they can be (see table.OKColumns), or else a list.
	var starts [][]time.Duration
	if src.tab != nil {
		if segs, fits := table.OKColumns(src.tab, cat, table.SentColumn); fits {
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
				outputs.add(r.CompletionTokens)
				if r.PromptTokens > 0 {
					prompts.add(r.PromptTokens)
				}
				if starts == nil {
					list = append(list, r.Sent)
				}
				ends = append(ends, r.Sent+r.last())
				if r.MaxTokens > 0 {
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

// A lengthSample holds token counts (see lengths.Sample).
type lengthSample struct{ s lengths.Sample }

// add adds a count.
func (l *lengthSample) add(v int) { l.s.Add(v) }

// describe describes the counts, or returns nil for none.
func (l *lengthSample) describe() *Lengths { return asLengths(l.s.Describe(lengthRanks)) }

// The length percentiles, and lengthRanks, the index (from 0) of each in
// n sorted lengths: nearest rank, as percentile.go defines it.
var lengthP50, lengthP95 = MustPercentile(50), MustPercentile(95)

func lengthRanks(n int) (p50, p95 int) {
	p50, _ = NearestRank.position(lengthP50, n)
	p95, _ = NearestRank.position(lengthP95, n)
	return p50, p95
}

// asLengths returns the Lengths of a description, or nil for none.
func asLengths(d lengths.Description, some bool) *Lengths {
	if !some {
		return nil
	}
	l := &Lengths{N: d.N, P50: d.P50, P95: d.P95, Max: d.Max, Histogram: make([]Bin, len(d.Counts))}
	for i, c := range d.Counts {
		lo := d.Min + int64(i)*d.Width
		l.Histogram[i] = Bin{Lo: int(lo), Hi: int(lo + d.Width), Count: c}
	}
	return l
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

// sendGaps appends to gaps the gaps between consecutive sends, in time
// order, of the sends of a (segments in time order, none empty) and b
// (any order, sorted here) merged, and returns them.
func sendGaps(a [][]time.Duration, b []time.Duration, gaps []float64) []float64 {
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
		radix.Sort(ends)
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
