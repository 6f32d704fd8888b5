package llmmetrics

import (
	"math"
	"slices"
	"time"

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
	w, _ := describeWorkload(recs, cat)
	if w == nil {
		return nil, ErrNoRecords
	}
	return w, nil
}

// describeWorkload describes the records by their categories, and says why
// each absent part is absent. It returns nil when no record is measured.
func describeWorkload(recs []Record, cat []Category) (*Workload, map[string]string) {
	absent := map[string]string{}
	prompts, outputs := make([]int64, 0, len(recs)), make([]int64, 0, len(recs))
	sends, edges := make([]time.Duration, 0, len(recs)), make([]int64, 0, 2*len(recs))
	es := EarlyStop{}
	for i := range recs {
		r := &recs[i]
		switch cat[i] {
		case CategoryRejected, CategoryWarmup:
			continue
		case CategoryOK:
			outputs = append(outputs, int64(r.CompletionTokens))
			if r.PromptTokens > 0 {
				prompts = append(prompts, int64(r.PromptTokens))
			}
			edges = append(edges, int64(r.Sent), int64(r.Sent+r.last()))
			if r.MaxTokens > 0 {
				es.Known++
				if r.CompletionTokens < r.MaxTokens {
					es.Early++
				}
			}
		}
		sends = append(sends, r.Sent)
	}
	if len(sends) == 0 {
		return nil, absent
	}
	w := &Workload{Prompt: lengths(prompts), Output: lengths(outputs), Arrivals: arrivals(sends), Concurrency: concurrency(edges)}
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
	// Nearest rank ⌈p·N/100⌉, from 1, in integers.
	rank := func(p int) int { return max((p*len(xs)+99)/100, 1) - 1 }
	ks := slices.Compact([]int{rank(50), rank(95)})
	at := make([]int64, len(ks))
	order.Select(order.Flat(xs), lo, hi, ks, at)
	l := &Lengths{N: len(xs), P50: int(at[0]), P95: int(at[len(at)-1]), Max: int(hi)}
	// Bins of equal width over [min, max+1), their edges whole tokens.
	width := max(1, (hi+1-lo+histogramBins-1)/histogramBins)
	bins := int((hi + 1 - lo + width - 1) / width)
	counts := make([]int, bins)
	for _, x := range xs {
		counts[(x-lo)/width]++
	}
	for i, c := range counts {
		l.Histogram = append(l.Histogram, Bin{Lo: int(lo + int64(i)*width), Hi: int(lo + int64(i+1)*width), Count: c})
	}
	return l
}

// arrivals describes the gaps between consecutive sends, or returns nil
// for fewer than two gaps. It sorts sends.
func arrivals(sends []time.Duration) *Arrivals {
	if len(sends) < 3 {
		return nil
	}
	if !slices.IsSorted(sends) {
		sortInts(sends)
	}
	gaps := make([]float64, len(sends)-1)
	for i := range gaps {
		gaps[i] = float64(sends[i+1] - sends[i])
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

// Each edge of a request's time in flight is one integer key: its time
// from the earliest edge, doubled, plus one for a start, so that a plain
// sort puts the edges in time order with, at one instant, ends before
// starts (a request that ends as another begins does not overlap it). A
// send is within ±2⁶¹ ns and a last chunk within 2⁶¹ ns of it, so a time
// from the earliest is below 2⁶³ and its double below 2⁶⁴; the key is kept
// in an int64 with its top bit flipped, which keeps the order.
//
// edgeKeys turns the times of pairs, a start and an end for each request,
// into keys in place, and returns the time they are measured from.
func edgeKeys(pairs []int64) time.Duration {
	if len(pairs) == 0 {
		return 0
	}
	base := slices.Min(pairs)
	for i, t := range pairs {
		k := uint64(t-base) << 1
		if i%2 == 0 {
			k |= 1 // a start
		}
		pairs[i] = int64(k ^ 1<<63)
	}
	return time.Duration(base)
}

// edgeAt returns the time of an edge key, and whether it is a start.
func edgeAt(k int64, base time.Duration) (time.Duration, bool) {
	u := uint64(k) ^ 1<<63
	return base + time.Duration(u>>1), u&1 == 1
}

// concurrency describes the requests in flight over their spans, given as
// (start, end) pairs of times, or returns nil when they cover no time. It
// turns the pairs into edge keys and sorts them.
func concurrency(edges []int64) *Concurrency {
	base := edgeKeys(edges)
	sortInts(edges)
	at := func(k int64) time.Duration { t, _ := edgeAt(k, base); return t }
	if len(edges) == 0 || at(edges[len(edges)-1]) == at(edges[0]) {
		return nil
	}
	var timeAt []time.Duration // how long the run spent at each count
	c := &Concurrency{Span: at(edges[len(edges)-1]) - at(edges[0])}
	n := 0
	var area float64
	for i, e := range edges {
		if _, start := edgeAt(e, base); start {
			n++
		} else {
			n--
		}
		c.Max = max(c.Max, n)
		if i+1 < len(edges) {
			// Between the edges of one instant, no time passes (n may dip
			// below 0 there, where a request of no length ends before it
			// begins).
			if dt := at(edges[i+1]) - at(e); dt > 0 {
				for len(timeAt) <= n {
					timeAt = append(timeAt, 0)
				}
				timeAt[n] += dt
				area += float64(n) * float64(dt)
			}
		}
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
