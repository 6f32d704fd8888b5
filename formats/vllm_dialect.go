package formats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// serveMetrics are the latency metrics each tool summarizes, in its order
// and under its names: vLLM calls E2E "e2el", SGLang "e2e_latency".
var serveMetrics = map[Tool][]string{
	VLLM:   {"ttft", "tpot", "itl", "e2el"},
	SGLang: {"ttft", "tpot", "itl", "e2e_latency"},
}

// dialect computes vLLM's summary of the file with vLLM's formulas
// (vllm/benchmarks/serve.py, calculate_metrics):
//
//   - only requests with an empty error count; completed is their number;
//   - TTFT and E2E are one value per request; ITL pools every chunk gap of
//     every request; TPOT is (latency − ttft)/(output_len − 1) for requests
//     with output_len > 1 only;
//   - mean, median, population std and numpy-linear percentiles, in ms;
//     an empty list is reported as 0;
//   - throughputs divide by the run's duration.
func (v *serveFile) dialect() (*Dialect, error) {
	return v.dialectOf(v.selectedMetrics(), v.percentiles(), nil)
}

// dialectWith computes vLLM's summary with its user's choices: the
// percentiles (--metric-percentiles) and the goodput limits (--goodput).
func (v *serveFile) dialectWith(opt DialectOptions) (*Dialect, error) {
	ps := opt.Percentiles
	if ps == nil {
		ps = v.percentiles()
	}
	if opt.SLO != nil {
		if err := checkSLOKeys(v.tool, opt.SLO); err != nil {
			return nil, err
		}
	}
	return v.dialectOf(v.selectedMetrics(), ps, opt.SLO)
}

// dialectOf computes the dialect for the given metrics and percentiles,
// and vLLM's request_goodput when slo is not nil.
func (v *serveFile) dialectOf(metrics []string, ps []float64, slo *llmmetrics.SLO) (*Dialect, error) {
	d := &Dialect{Tool: v.tool, Rules: []string{
		"only requests without an error count; failed requests are left out of every latency list",
		"ITL pools the gaps between all chunks of all requests (chunk-weighted), whatever the chunks carried",
		"TPOT = (latency − ttft)/(output_len − 1), per request, for output_len > 1; its mean is request-weighted",
		"percentiles by numpy's linear interpolation (Hyndman–Fan type 7); std is the population std; an empty list reports 0",
		"throughputs divide by the duration from the first dispatch to the last response",
	}}
	if v.tool == SGLang {
		d.Rules = append(d.Rules, "concurrency = Σ e2e latency / duration (the mean number of requests in flight)")
		d.Missing = map[string]string{
			"total_output_tokens_retokenized": "re-tokenizes the generated texts with the model's tokenizer",
			"request_goodput":                 "not in SGLang's formulas",
		}
	}
	rebuilt := ""
	if v.latencies == nil {
		rebuilt = "the file stores no latency; rebuilt as ttft + Σ itls"
	}
	var ttfts, tpots, e2els []float64
	var itls floats
	var completed int
	var totalIn, totalOut float64
	latency := func(i int) float64 {
		if v.latencies != nil {
			return v.latencies[i]
		}
		l := v.ttfts[i]
		for _, g := range v.gaps(i) {
			l += g
		}
		return l
	}
	for i := range v.ttfts {
		if v.errors[i] != "" {
			continue
		}
		completed++
		totalIn += v.inputLens[i]
		totalOut += v.outputLens[i]
		ttfts = append(ttfts, v.ttfts[i])
		itls = append(itls, v.gaps(i))
		lat := latency(i)
		e2els = append(e2els, lat)
		if tpot, ok := v.tpot(i, lat); ok {
			tpots = append(tpots, tpot)
		}
	}
	add := func(key string, val float64, approx string) {
		d.Figures = append(d.Figures, DialectFigure{Figure{key, val}, approx})
	}
	dur := v.duration
	add("duration", dur, "")
	add("completed", float64(completed), "")
	if v.hasSummary["failed"] {
		add("failed", float64(len(v.ttfts)-completed), "")
	}
	add("total_input_tokens", totalIn, "")
	add("total_output_tokens", totalOut, "")
	add("request_throughput", float64(completed)/dur, "")
	if v.tool == SGLang {
		add("input_throughput", totalIn/dur, "")
	}
	add("output_throughput", totalOut/dur, "")
	if v.tool == SGLang {
		add("total_throughput", (totalIn+totalOut)/dur, "")
		var sum float64
		for _, e := range e2els {
			sum += e
		}
		add("concurrency", sum/dur, rebuilt)
	} else {
		add("total_token_throughput", (totalIn+totalOut)/dur, "")
	}

	names := serveMetrics[v.tool]
	lists := map[string]floats{names[0]: {ttfts}, names[1]: {tpots}, names[2]: itls, names[3]: {e2els}}
	approx := map[string]string{names[1]: rebuilt, names[3]: rebuilt}
	// The metrics are summarized concurrently: the pooled ITLs are most of
	// the work.
	stats := make([]npStats, len(metrics))
	var wg sync.WaitGroup
	for i, m := range metrics {
		if xs := lists[m]; xs.len() > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stats[i] = describe(xs, 0, append([]float64{50}, ps...))
			}()
		}
	}
	wg.Wait()
	for i, m := range metrics {
		st := stats[i]
		mean, median, std := 0.0, 0.0, 0.0 // vLLM reports an empty list as 0
		pv := make([]float64, len(ps))
		if st.n > 0 {
			mean, std, median, pv = st.mean, st.std, st.pcts[0], st.pcts[1:]
		}
		add("mean_"+m+"_ms", mean*1000, approx[m])
		add("median_"+m+"_ms", median*1000, approx[m])
		add("std_"+m+"_ms", std*1000, approx[m])
		for i, p := range ps {
			add("p"+strconv.FormatFloat(p, 'f', -1, 64)+"_"+m+"_ms", pv[i]*1000, approx[m])
		}
	}
	if v.tool == VLLM {
		v.goodput(d, slo, latency, rebuilt)
	}
	if v.startTimes != nil && completed > 0 {
		tok, conc := v.peaks(latency)
		add("max_output_tokens_per_s", tok, "")
		add("max_concurrent_requests", conc, rebuilt)
		d.Rules = append(d.Rules, fmt.Sprintf("max_concurrent_requests counts each completed request in every one-second bucket from its start to its end, as older vLLM releases did and as the files read here were written; current vllm bench serve sweeps the exact intervals [start, start + latency) instead, which gives %g for this file", v.sweepConcurrency(latency)))
	}
	return d, nil
}

// tpot is vLLM's TPOT of request i whose latency is lat:
// (latency − ttft)/(output_len − 1), for output_len > 1 only.
func (v *serveFile) tpot(i int, lat float64) (float64, bool) {
	n := v.outputLens[i]
	if n <= 1 {
		return 0, false
	}
	return (lat - v.ttfts[i]) / (n - 1), true
}

// goodput adds vLLM's request_goodput against slo, or lists it as not
// reproducible without one: vLLM does not store its --goodput limits.
func (v *serveFile) goodput(d *Dialect, slo *llmmetrics.SLO, latency func(int) float64, rebuilt string) {
	if slo == nil {
		if d.Missing == nil {
			d.Missing = map[string]string{}
		}
		d.Missing["request_goodput"] = "vLLM does not store its --goodput limits in the file; give them (--slo) to compute it"
		return
	}
	good := 0
	for i := range v.ttfts {
		if v.errors[i] != "" {
			continue
		}
		lat := latency(i)
		tpot, _ := v.tpot(i, lat) // 0 for outputs of one token or none, as vLLM counts it for goodput
		ok := true
		for _, c := range []struct {
			limit time.Duration
			value float64
		}{{slo.TTFT, v.ttfts[i]}, {slo.TPOT, tpot}, {slo.E2E, lat}} {
			if c.limit > 0 && c.value > c.limit.Seconds() {
				ok = false
			}
		}
		if ok {
			good++
		}
	}
	approx := ""
	if slo.TPOT > 0 || slo.E2E > 0 {
		approx = rebuilt
	}
	d.Figures = append(d.Figures, DialectFigure{Figure{"request_goodput", float64(good) / v.duration}, approx})
	d.Rules = append(d.Rules, fmt.Sprintf("request_goodput = completed requests that meet every limit of %s / duration; a limit is met at or below it (inclusive); TPOT counts as 0 for outputs of one token or none, so a zero-token success within its TTFT limit is good for vLLM, where llmmetrics never counts a zero-token request as good; failed requests are left out", slo))
}

// sweepConcurrency is the largest number of completed requests in flight
// at once, over the exact intervals [start, start + latency): current vLLM's
// max_concurrent_requests.
func (v *serveFile) sweepConcurrency(latency func(int) float64) float64 {
	type event struct {
		t     float64
		delta int
	}
	var evs []event
	for i := range v.ttfts {
		if v.errors[i] == "" {
			evs = append(evs, event{v.startTimes[i], 1}, event{v.startTimes[i] + latency(i), -1})
		}
	}
	// At equal times an end comes before a start: the intervals are half-open.
	slices.SortFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.delta
		peak = max(peak, cur)
	}
	return float64(peak)
}

// selectedMetrics returns the metrics the file summarizes: for vLLM, those
// with a mean_<metric>_ms key, or its default ones (ttft, tpot, itl) when
// the file has no summary; for SGLang, all four.
func (v *serveFile) selectedMetrics() []string {
	if v.tool == SGLang {
		return serveMetrics[SGLang] // SGLang always summarizes all four
	}
	var ms []string
	for _, m := range serveMetrics[v.tool] {
		if v.hasSummary["mean_"+m+"_ms"] || v.hasSummary["median_"+m+"_ms"] {
			ms = append(ms, m)
		}
	}
	if ms == nil {
		ms = serveMetrics[VLLM][:3]
	}
	return ms
}

// percentiles returns the percentiles the file reports (from its
// p<P>_ttft_ms keys and the like), or vLLM's default, 99.
func (v *serveFile) percentiles() []float64 {
	var ps []float64
	seen := map[float64]bool{}
	for _, f := range v.summary {
		k, ok := strings.CutPrefix(f.Key, "p")
		if !ok || !strings.HasSuffix(k, "_ms") {
			continue
		}
		num, _, _ := strings.Cut(k, "_")
		p, err := strconv.ParseFloat(num, 64)
		if err == nil && !seen[p] && p >= 0 && p <= 100 {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	switch {
	case ps != nil:
	case v.tool == SGLang:
		ps = []float64{90, 95, 99}
	default:
		ps = []float64{99}
	}
	return ps
}

// peaks computes vLLM's max_output_tokens_per_s and max_concurrent_requests:
// chunk arrival times start + ttft + Σ gaps counted in one-second buckets
// from the earliest start of an ok request, and each ok request counted in
// every bucket from its start to its start + latency.
func (v *serveFile) peaks(latency func(int) float64) (float64, float64) {
	minStart, maxEnd := math.Inf(1), math.Inf(-1)
	for i := range v.ttfts {
		if v.errors[i] == "" {
			minStart = min(minStart, v.startTimes[i])
			maxEnd = max(maxEnd, v.startTimes[i]+latency(i))
		}
	}
	buckets := int(math.Ceil(maxEnd-minStart)) + 1
	if buckets <= 0 || buckets > 1<<26 {
		return 0, 0
	}
	tokens := make([]float64, buckets)
	conc := make([]float64, buckets)
	for i := range v.ttfts {
		if v.errors[i] != "" {
			continue
		}
		t := v.startTimes[i] + v.ttfts[i]
		count := func(t float64) {
			if b := int(t - minStart); b >= 0 && b < buckets {
				tokens[b]++
			}
		}
		count(t)
		for _, g := range v.gaps(i) {
			t += g
			count(t)
		}
		from := int(v.startTimes[i] - minStart)
		to := int(v.startTimes[i] + latency(i) - minStart)
		for b := max(from, 0); b <= to && b < buckets; b++ {
			conc[b]++
		}
	}
	var mt, mc float64
	for b := range tokens {
		mt, mc = max(mt, tokens[b]), max(mc, conc[b])
	}
	return mt, mc
}
