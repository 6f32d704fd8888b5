package charts

import (
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
)

// An XY is one plotted point.
type XY struct{ X, Y float64 }

// millis converts a duration to milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// CDF returns the empirical distribution function of xs, in milliseconds:
// for the sorted values v₁ ≤ … ≤ v_N, the points (v_i, i/N), so that the
// curve at a value is the fraction of samples at or below it. It does not
// modify xs.
func CDF(xs []time.Duration) []XY {
	s := slices.Clone(xs)
	slices.Sort(s)
	out := make([]XY, len(s))
	for i, v := range s {
		out[i] = XY{millis(v), float64(i+1) / float64(len(s))}
	}
	return out
}

// A Series is one run's per-request values of one metric.
type Series struct {
	Name   string
	Values []time.Duration
}

// Samples returns the per-request values of a latency metric (by its key,
// of a metric of llmmetrics.Metrics with a value per request) of the ok
// requests of recs, in input order: TPOT only for requests of two or more
// tokens, the largest gap only for requests of two or more chunks, TTFT
// and TPOT only for answers that were streamed. The requests are those
// llmmetrics.Samples keeps, as Summarize counts them: warm-up and invalid
// records, and those that repeat an earlier id, are left out, and so is
// every record for a key the charts do not draw.
func Samples(recs []llmmetrics.Record, metric string) []time.Duration {
	m, ok := chartMetric(metric)
	if !ok {
		return nil
	}
	oks, err := llmmetrics.Samples(recs, llmmetrics.Options{})
	if err != nil {
		return nil // no warm-up cut asked: never
	}
	var out []time.Duration
	for i := range oks {
		if v, err := m.Value(&oks[i]); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// GapData holds the gaps between the chunks of ok requests, in
// milliseconds, apart for the requests whose chunks carried one token each
// (Token: inter-token latencies) and the others (Chunk: gaps between
// chunks of several tokens, not per-token latencies); and each request's
// largest gap (MaxGap), where stalls show.
type GapData struct {
	Token, Chunk, MaxGap []float64
}

// Gaps gathers the gap data of recs.
func Gaps(recs []llmmetrics.Record) GapData {
	var g GapData
	var buf []time.Duration
	for i := range recs {
		r := &recs[i]
		if r.Category() != llmmetrics.CategoryOK || len(r.Chunks) < 2 || r.Validate() != nil {
			continue
		}
		basis, _ := r.GapBasis()
		buf, _ = r.AppendGaps(buf[:0])
		dst := &g.Chunk
		if basis == llmmetrics.BasisToken {
			dst = &g.Token
		}
		for _, d := range buf {
			*dst = append(*dst, millis(d))
		}
		if m, err := r.MaxGap(); err == nil {
			g.MaxGap = append(g.MaxGap, millis(m))
		}
	}
	return g
}

// A Bar is one request of a timeline: from its send to its last text
// chunk (or its send alone, when it has none), in seconds from the run's
// first send.
type Bar struct {
	ID         string
	Start, End float64
	Outcome    string // "ok", "failed", "zero-token", "warm-up" or "rejected"
}

// TimelineData is a run on one time axis: a bar per request, in send
// order, the requests in flight (ok ones, send to last text) as a step
// function, and the warm-up cut where one was made.
type TimelineData struct {
	Bars      []Bar
	InFlight  []XY     // (t, n) at each change; n holds until the next point
	WarmupEnd *float64 // seconds; nil without a cut
}

// TimelineOf lays recs out on one time axis. warmupEnd, when not nil, is
// the send time from which requests are measured (a WarmupCut's Start).
func TimelineOf(recs []llmmetrics.Record, warmupEnd *time.Duration) TimelineData {
	var t TimelineData
	if len(recs) == 0 {
		return t
	}
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(recs[a].Sent-recs[b].Sent, -1), 1)) })
	t0 := recs[order[0]].Sent
	type edge struct {
		at float64
		d  int
	}
	var edges []edge
	for _, i := range order {
		r := &recs[i]
		b := Bar{ID: r.ID, Start: (r.Sent - t0).Seconds(), Outcome: outcome(r)}
		b.End = b.Start
		if e, err := r.E2E(); err == nil && r.Validate() == nil {
			b.End = (r.Sent + e - t0).Seconds()
		}
		if warmupEnd != nil && r.Sent < *warmupEnd && b.Outcome != "rejected" {
			b.Outcome = "warm-up"
		}
		t.Bars = append(t.Bars, b)
		if b.Outcome == "ok" || b.Outcome == "warm-up" && r.Category() != llmmetrics.CategoryFailed {
			if b.End > b.Start {
				edges = append(edges, edge{b.Start, 1}, edge{b.End, -1})
			}
		}
	}
	slices.SortStableFunc(edges, func(a, b edge) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return a.d - b.d // ends before starts at one instant
	})
	n := 0
	for i, e := range edges {
		n += e.d
		if i+1 < len(edges) && edges[i+1].at == e.at {
			continue // one point per instant
		}
		t.InFlight = append(t.InFlight, XY{e.at, float64(n)})
	}
	if warmupEnd != nil {
		w := (*warmupEnd - t0).Seconds()
		t.WarmupEnd = &w
	}
	return t
}

func outcome(r *llmmetrics.Record) string {
	if r.Validate() != nil {
		return "rejected"
	}
	switch r.Category() {
	case llmmetrics.CategoryWarmup:
		return "warm-up"
	case llmmetrics.CategoryFailed:
		return "failed"
	case llmmetrics.CategoryZeroToken:
		return "zero-token"
	}
	return "ok"
}

// A Part is one component of a TTFT decomposition; an unknown part is
// left out of a Stack rather than drawn as 0.
type Part struct {
	Name  string
	Value time.Duration
}

// A Stack is one request's latency split into its parts, in order.
type Stack struct {
	Label string
	Parts []Part
}

// An ErrPoint is a sweep level's figure: the median across the level's
// runs, with its MAD as the error bar.
type ErrPoint struct {
	X, Y, Err float64
}

// SweepPoints returns a sweep's figure at each level, as median ± MAD, for
// the levels that have it.
func SweepPoints(sw *compare.Sweep, figure string) []ErrPoint {
	var out []ErrPoint
	for _, lv := range sw.Levels {
		if f, ok := lv.Figure(figure); ok {
			out = append(out, ErrPoint{lv.Level, f.Spread.Median, f.Spread.MAD})
		}
	}
	return out
}

// ThroughputLatency returns the throughput–latency curve of a sweep: at
// each level with both, the median p99 of the latency figure (x, ms)
// against the median output tokens a second (y).
func ThroughputLatency(sw *compare.Sweep, latency string) []XY {
	pts, _ := throughputLatency(sw, latency)
	return pts
}

// throughputLatency returns the curve's points and the level of each.
func throughputLatency(sw *compare.Sweep, latency string) (pts []XY, levels []float64) {
	for _, lv := range sw.Levels {
		l, ok1 := lv.Figure(latency)
		r, ok2 := lv.Figure("output_tokens_per_s")
		if ok1 && ok2 {
			pts = append(pts, XY{l.Spread.Median, r.Spread.Median})
			levels = append(levels, lv.Level)
		}
	}
	return pts, levels
}
