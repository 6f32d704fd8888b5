package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// ReportQuantiles are the quantiles a report gives for each histogram.
var ReportQuantiles = []float64{0.5, 0.95, 0.99}

// FewObservations is the count of observations below which a report flags
// a histogram's quantiles: from a handful of observations a bucketed
// quantile is mostly the bucket layout (p50 of one observation of 73 µs is
// the middle of its bucket, 0.15 s say), not the data.
const FewObservations = 20

// unit returns the unit of a metric's values for a report: the
// catalogue's, or one read from the name.
func unit(name string) string {
	if m, ok := Describe(name); ok && m.Unit != "" {
		return m.Unit
	}
	switch {
	case strings.HasSuffix(name, "_seconds"):
		return "seconds"
	case strings.Contains(name, "tokens"):
		return "tokens"
	}
	return "—"
}

// flags returns what a reader of a histogram's quantiles must know.
func flags(h Histogram) []string {
	var f []string
	if !h.Monotonic() {
		f = append(f, "cumulative buckets not monotonic: read on their running maximum, as PromQL does")
	}
	if h.Count > 0 && h.Count < FewObservations {
		f = append(f, fmt.Sprintf("only %g observations: the quantiles reflect the bucket layout more than the data", h.Count))
	}
	return f
}

// A Report is the server side of a run: a window, and optionally the
// known-output check against the client's records. Every figure in it is
// labelled server; it is never merged with client figures.
type Report struct {
	Window *Window
	Known  *KnownOutput
	// TTFT is the per-request decomposition of client TTFT, where the
	// server's per-request timings were given.
	TTFT *TTFTReport
}

// A TTFTReport holds the decomposition of every request that had server
// timings, and their summaries by prompt length.
type TTFTReport struct {
	Rows      []Decomposition
	Buckets   []Bucket
	Unmatched int // client records with no timings, or timings with no record
}

// MarshalJSON writes the report as one object:
//
//	{"side": "server", "window_s": …, "selector": {…},
//	 "counters": {"generation_tokens": {"delta": …, "per_s": …, "series": …}, …},
//	 "finished": {"stop": …, "length": …},
//	 "histograms": {"time_to_first_token_seconds": {"count": …, "mean_s": …, "p50_s": …,
//	                "p95_s": …, "p99_s": …, "lower_bound": false}, …},
//	 "known_output": {…}}
//
// Metric names drop "vllm:" and, for counters, "_total". Histograms of
// seconds give their figures in seconds under keys ending in _s; others
// (token counts) under plain keys. A quantile that could not be computed is
// left out and its reason given under "error".
func (r *Report) MarshalJSON() ([]byte, error) {
	w := r.Window
	type kv = map[string]any
	counters := kv{}
	for _, name := range slices.Sorted(maps.Keys(w.Counters)) {
		c := w.Counters[name]
		counters[name] = kv{"delta": c.Delta, "per_s": c.PerSecond, "series": c.Series, "unit": unit(c.Name)}
	}
	hists := kv{}
	for _, name := range slices.Sorted(maps.Keys(w.Histograms)) {
		hists[name] = histogramJSON(name, w.Histograms[name])
	}
	out := kv{"side": "server", "window_s": w.Elapsed.Seconds(), "selector": w.Selector,
		"counters": counters, "finished": w.Finished, "histograms": hists,
		"note": "server histograms are aggregate distributions over the window: they cannot be joined to client records, and their quantiles are not comparable by subtraction with client quantiles"}
	if d := r.TTFT; d != nil {
		out["ttft_decomposition"] = decompositionJSON(d)
	}
	if k := r.Known; k != nil {
		out["known_output"] = kv{"server_generation_tokens": k.ServerTokens, "client_completion_tokens": k.ClientTokens,
			"server_finished_requests": k.ServerRequests, "client_requests": k.ClientRequests, "client_failed": k.Failed,
			"agree": k.Agree, "candidate_causes": k.Causes}
		if k.Uncounted > 0 {
			out["known_output"].(kv)["client_uncounted"] = k.Uncounted
		}
		if k.Unknown != "" {
			out["known_output"].(kv)["unknown"] = k.Unknown
		}
	}
	return json.Marshal(out)
}

func decompositionJSON(d *TTFTReport) map[string]any {
	msp := func(p *time.Duration) any {
		if p == nil {
			return nil // unknown
		}
		return float64(*p) / 1e6
	}
	rows := make([]map[string]any, len(d.Rows))
	for i, x := range d.Rows {
		rows[i] = map[string]any{"id": x.ID, "prompt_tokens": x.PromptTokens, "client_ttft_ms": msp(&x.ClientTTFT),
			"queue_ms": msp(x.Queue), "prefill_ms": msp(x.Prefill), "residual_ms": msp(x.Residual),
			"client_overhead_ms": msp(x.ClientOverhead), "clamped": x.Clamped}
	}
	var buckets []map[string]any
	for _, b := range d.Buckets {
		comps := map[string]any{}
		for _, c := range b.Components {
			o := map[string]any{"n": c.N, "unknown": c.Unknown}
			if s := c.Stats; s != nil {
				o["mean_ms"], o["min_ms"], o["max_ms"] = msp(&s.Mean), msp(&s.Min), msp(&s.Max)
				for _, p := range s.Points {
					o[p.P.Key()+"_ms"] = msp(&p.Value)
				}
			}
			comps[c.Name] = o
		}
		bk := map[string]any{"requests": b.Requests, "clamped": b.Clamped, "components": comps}
		if b.MinTokens != math.MinInt {
			bk["prompt_tokens_above"] = b.MinTokens
		}
		if b.MaxTokens != math.MaxInt {
			bk["prompt_tokens_at_most"] = b.MaxTokens
		}
		buckets = append(buckets, bk)
	}
	return map[string]any{"rows": rows, "buckets": buckets, "unmatched": d.Unmatched,
		"note": "client TTFT = queue + prefill (which produces token 1) + residual (sampling, detokenization, scheduling) + client overhead (network, HTTP server, client); null is unknown; a negative residual is clamped to 0 and counted"}
}

func histogramJSON(name string, h Histogram) map[string]any {
	suffix := ""
	if strings.HasSuffix(name, "_seconds") {
		suffix = "_s"
	}
	o := map[string]any{"count": h.Count, "series": h.Series, "unit": unit(h.Name)}
	if f := flags(h); f != nil {
		o["flags"] = f
	}
	if m, err := h.Mean(); err == nil {
		o["mean"+suffix] = m
	}
	lower := false
	var errs []string
	for _, q := range ReportQuantiles {
		v, lb, err := h.Quantile(q)
		if err != nil {
			errs = append(errs, err.Error())
			break
		}
		lower = lower || lb
		o[fmt.Sprintf("p%g%s", q*100, suffix)] = v
	}
	o["lower_bound"] = lower
	if errs != nil {
		o["error"] = errs[0]
	}
	return o
}

// WriteTable writes the report for people.
func (r *Report) WriteTable(out io.Writer) error {
	w := r.Window
	var b bytes.Buffer
	fmt.Fprintf(&b, "server side, over a window of %v", w.Elapsed)
	if len(w.Selector) > 0 {
		fmt.Fprintf(&b, ", series with %v", map[string]string(w.Selector))
	}
	b.WriteString("\n\ncounters (delta over the window, and per second):\n")
	width := 0
	for name := range w.Counters {
		width = max(width, len(name))
	}
	for name := range w.Histograms {
		width = max(width, len(name))
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-*s\tdelta\tper second\tunit\t\n", width, "metric")
	for _, name := range slices.Sorted(maps.Keys(w.Counters)) {
		c := w.Counters[name]
		fmt.Fprintf(tw, "  %-*s\t%.6g\t%.4f/s\t%s\t\n", width, name, c.Delta, c.PerSecond, unit(c.Name))
	}
	tw.Flush()
	if g, ok := w.Counters["generation_tokens"]; ok {
		fmt.Fprintf(&b, "  output tokens/s (generation_tokens) %.4f", g.PerSecond)
		if p, ok := w.Counters["prompt_tokens"]; ok {
			fmt.Fprintf(&b, "; prompt tokens/s (prompt_tokens) %.4f, a separate figure", p.PerSecond)
		}
		b.WriteString("\n")
	}
	if len(w.Finished) > 0 {
		b.WriteString("  finished requests by reason:")
		for _, k := range slices.Sorted(maps.Keys(w.Finished)) {
			fmt.Fprintf(&b, " %s %g", k, w.Finished[k])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nhistograms (over the window; quantiles as PromQL's histogram_quantile):\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %-*s\tcount\tmean\tp50\tp95\tp99\tunit\t\n", width, "metric")
	var flagged []string
	for _, name := range slices.Sorted(maps.Keys(w.Histograms)) {
		h := w.Histograms[name]
		for _, f := range flags(h) {
			flagged = append(flagged, fmt.Sprintf("  %s: %s\n", name, f))
		}
		cells := []string{fmt.Sprintf("%-*s", width, name), fmt.Sprintf("%g", h.Count)}
		if m, err := h.Mean(); err == nil {
			cells = append(cells, fmt.Sprintf("%.6g", m))
		} else {
			cells = append(cells, "—")
		}
		for _, q := range ReportQuantiles {
			v, lb, err := h.Quantile(q)
			switch {
			case err != nil:
				cells = append(cells, "—")
			case lb:
				cells = append(cells, fmt.Sprintf("≥%.6g", v))
			default:
				cells = append(cells, fmt.Sprintf("%.6g", v))
			}
		}
		cells = append(cells, unit(h.Name))
		fmt.Fprintf(tw, "  %s\t\n", strings.Join(cells, "\t"))
	}
	tw.Flush()
	for _, f := range flagged {
		b.WriteString(f)
	}
	b.WriteString("\n≥: the quantile falls in the +Inf bucket; the highest finite bound is a lower bound.\n")
	b.WriteString("These are server figures: aggregate distributions that cannot be joined to client records; do not subtract their quantiles from client ones.\n")
	for _, name := range []string{"iteration_tokens_total", "inter_token_latency_seconds", "request_time_per_output_token_seconds"} {
		if _, ok := w.Histograms[name]; ok {
			m, _ := Describe(name)
			fmt.Fprintf(&b, "  %s: %s\n", name, m.Caveat)
		}
	}
	if d := r.TTFT; d != nil {
		writeDecomposition(&b, d)
	}
	if k := r.Known; k != nil {
		fmt.Fprintf(&b, "\nknown-output check: server generation_tokens %g, client completion tokens %d", k.ServerTokens, k.ClientTokens)
		if k.Uncounted > 0 {
			fmt.Fprintf(&b, " over the %d of %d answers with a count", k.ClientRequests-k.Uncounted, k.ClientRequests)
		}
		b.WriteString(": ")
		if k.Unknown != "" {
			fmt.Fprintf(&b, "cannot be checked: %s\n", k.Unknown)
		} else if k.Agree {
			b.WriteString("they agree\n")
		} else {
			b.WriteString("they DISAGREE; candidate causes:\n")
			for _, c := range k.Causes {
				fmt.Fprintf(&b, "  - %s\n", c)
			}
		}
	}
	_, err := out.Write(b.Bytes())
	return err
}

// MarshalJSON writes the decomposition as one object: "rows" (one a
// request: id, prompt_tokens, client_ttft_ms, queue_ms, prefill_ms,
// residual_ms, client_overhead_ms, clamped; null where unknown), "buckets"
// (per prompt-length bucket: requests, clamped, and per component n,
// unknown, mean_ms, p50_ms, p95_ms, p99_ms, min_ms, max_ms), "unmatched"
// and a "note" stating the decomposition.
func (d *TTFTReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(decompositionJSON(d))
}

// WriteTable writes the decomposition as text, in milliseconds: a row for
// each request (— where a part is unknown), then the summary of each
// prompt-length bucket (mean, nearest-rank p50, p95 and p99, min, max).
func (d *TTFTReport) WriteTable(out io.Writer) error {
	var b bytes.Buffer
	b.WriteString("client TTFT = queue + prefill (produces token 1) + residual (sampling, detokenization, scheduling) + client overhead (network, HTTP server, client), in ms; — is unknown\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  request\tprompt tokens\tclient TTFT\tqueue\tprefill\tresidual\tclient overhead\t\n")
	msp := func(p *time.Duration) string {
		if p == nil {
			return "—"
		}
		return fmt.Sprintf("%.3f", float64(*p)/1e6)
	}
	for _, r := range d.Rows {
		res := msp(r.Residual)
		if r.Clamped {
			res += " (clamped)"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.ID, r.PromptTokens, msp(&r.ClientTTFT), msp(r.Queue), msp(r.Prefill), res, msp(r.ClientOverhead))
	}
	tw.Flush()
	writeBuckets(&b, d)
	_, err := out.Write(b.Bytes())
	return err
}

func writeDecomposition(b *bytes.Buffer, d *TTFTReport) {
	b.WriteString("\nclient TTFT decomposed with the server's per-request timings (ms):\n")
	b.WriteString("  client TTFT = queue + prefill (produces token 1) + residual (sampling, detokenization, scheduling) + client overhead (network, HTTP server, client)\n")
	writeBuckets(b, d)
}

// writeBuckets writes the summary of each bucket of a decomposition.
func writeBuckets(b *bytes.Buffer, d *TTFTReport) {
	for _, bk := range d.Buckets {
		lo, hi := "", ""
		if bk.MinTokens != math.MinInt {
			lo = fmt.Sprintf("%d < ", bk.MinTokens)
		}
		if bk.MaxTokens != math.MaxInt {
			hi = fmt.Sprintf(" ≤ %d", bk.MaxTokens)
		}
		which := fmt.Sprintf("prompt tokens %sn%s", lo, hi)
		if lo == "" && hi == "" {
			which = "all prompt lengths"
		}
		fmt.Fprintf(b, "  %s: %d requests, %d residuals clamped at 0\n", which, bk.Requests, bk.Clamped)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "    component\tn\tunknown\tmean\tp50\tp95\tp99\tmin\tmax\t\n")
		for _, c := range bk.Components {
			cells := []string{c.Name, fmt.Sprint(c.N), fmt.Sprint(c.Unknown)}
			if s := c.Stats; s != nil {
				vals := []time.Duration{s.Mean}
				for _, p := range s.Points {
					vals = append(vals, p.Value)
				}
				vals = append(vals, s.Min, s.Max)
				for _, v := range vals {
					cells = append(cells, fmt.Sprintf("%.3f", float64(v)/1e6))
				}
			} else {
				cells = append(cells, "—", "—", "—", "—", "—", "—")
			}
			fmt.Fprintf(tw, "    %s\t\n", strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	if d.Unmatched > 0 {
		fmt.Fprintf(b, "  %d client records or timings had no partner\n", d.Unmatched)
	}
}
