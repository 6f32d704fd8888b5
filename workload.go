package llmmetrics

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/inflight"
	"github.com/llmmetrics/llmmetrics/internal/lengths"
	"github.com/llmmetrics/llmmetrics/internal/table"
)

// A Workload describes what a run asked of the server, which every latency
// figure depends on (the specification's seed 000, §1): the prompt and output lengths, the
// arrival process, the concurrency the server saw, and how often requests
// stopped before max_tokens. A nil part had no data; Summary.Absent says
// why.
type Workload struct {
	Prompt      *Lengths     // prompt tokens of the ok requests that carry a count
	Output      *Lengths     // output tokens (n, from usage) of the ok requests
	Arrivals    *Arrivals    // gaps between consecutive sends of the measured requests and the unfinished ones
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
	Reading string // "Poisson-like" (0.8 ≤ CV ≤ 1.2), "bursty" (CV > 1.2), "paced" (CV < 0.8), "all at once" (every gap 0: no CV), or, for a header's closed loop, "closed loop: …"
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

// describeWorkload describes the records by their categories, and says why
// each absent part is absent. It returns nil when no record is measured.
// It notes in facts what the summary needs to know of the ok records
// (see okFacts). With noSends (sends all at 0 would read as
// one burst) it leaves out the arrivals and the requests in flight.
func describeWorkload(src *source, cat []Category, facts *okFacts, noSends bool) (*Workload, map[string]string) {
	absent := map[string]string{}
	var prompts, outputs lengths.Sample
	n := src.len()
	// A table's ok rows are swept in its own columns, their sends and
	// lengths (see table.OKColumns); records' sends and ends are listed.
	// Without sends, neither.
	var rows [][][]time.Duration
	if src.tab != nil && !noSends {
		rows, _ = table.OKColumns(src.tab, cat, table.SentColumn, table.LastColumn)
	}
	var starts, ends []time.Duration
	listing := rows == nil && !noSends
	if listing {
		var release func()
		starts, ends, release = inflight.Lists(n)
		defer release()
	}
	var others []time.Duration // the sends of the measured records that are not ok, and of the unfinished
	es := EarlyStop{}
	for base, w := range src.windows(0, n, noIDs) {
		for k := range w {
			r := &w[k]
			switch cat[base+k] {
			case CategoryRejected:
			case CategoryWarmup:
				if r.Unfinished { // sent during the load, which it was part of
					others = append(others, r.Sent)
				}
			case CategoryOK:
				facts.see(r)
				counted := r.counted()
				if counted {
					outputs.Add(r.CompletionTokens)
				}
				if r.PromptTokens > 0 {
					prompts.Add(r.PromptTokens)
				}
				if listing {
					starts, ends = append(starts, r.Sent), append(ends, r.Sent+r.last())
				}
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
	if facts.ok+len(others) == 0 {
		return nil, absent
	}
	w := &Workload{Prompt: asLengths(prompts.Describe(lengthRanks)), Output: asLengths(outputs.Describe(lengthRanks))}
	if !noSends {
		w.Concurrency, w.Arrivals = sweepSends(rows, starts, ends, others)
	}
	if w.Arrivals != nil && w.Arrivals.Reading == inflight.AllAtOnce {
		absent["workload.arrivals.cv"] = "every gap between sends is 0: a deviation over a mean of 0 is undefined"
	}
	if w.Prompt == nil {
		absent["workload.prompt"] = "no ok request carries a prompt token count"
	}
	if w.Output == nil {
		absent["workload.output"] = "no ok request"
		if facts.ok > 0 {
			absent["workload.output"] = fmt.Sprintf("none of the %d ok requests has an output token count", facts.ok)
		}
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
	} else if facts.noCountMax > 0 {
		absent["workload.early_stop"] = fmt.Sprintf("%d ok requests say their max_tokens, but none of them has an output token count to compare it with", facts.noCountMax)
	} else {
		absent["workload.early_stop"] = "no ok request says its max_tokens"
	}
	return w, absent
}

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

// sweepSends describes the ok requests in flight and the gaps between
// all sends (inflight.SweepSends, Sweep and Sends), of a table's rows in
// its columns, sends and lengths, or of lists of the ok requests' starts
// and ends; others are the other sends. Rows further from send order than
// SweepRows takes are swept a span of time at a time (SweepSpans).
func sweepSends(rows [][][]time.Duration, starts, ends, others []time.Duration) (*Concurrency, *Arrivals) {
	if rows != nil {
		l, ok, a, some := inflight.SweepSends(rows[0], rows[1], others)
		return inFlight(l, ok), asArrivals(a, some)
	}
	c := inFlight(inflight.Sweep(starts, ends)) // sorts the starts, as Sends takes them
	sends := inflight.NewSends(others)
	sends.Add(starts)
	return c, asArrivals(sends.Describe())
}

// inFlight returns the requests in flight that a sweep found, or nil when
// they cover no time or none of them lasts any.
func inFlight(l inflight.Level, ok bool) *Concurrency {
	if !ok || l.Max == 0 {
		return nil
	}
	c := Concurrency(l)
	return &c
}

// asArrivals returns the arrivals described, or nil for fewer than two gaps.
func asArrivals(a inflight.Arrivals, ok bool) *Arrivals {
	if !ok {
		return nil
	}
	b := Arrivals(a)
	return &b
}
