package formats

import (
	"math"
	"strconv"
	"strings"
	"sync"
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
	return v.dialectOf(v.selectedMetrics(), v.percentiles())
}

// dialectOf computes the dialect for the given metrics and percentiles.
func (v *serveFile) dialectOf(metrics []string, ps []float64) (*Dialect, error) {
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
		if n := v.outputLens[i]; n > 1 {
			tpots = append(tpots, (lat-v.ttfts[i])/(n-1))
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
	if v.startTimes != nil && completed > 0 {
		tok, conc := v.peaks(latency)
		add("max_output_tokens_per_s", tok, "")
		add("max_concurrent_requests", conc, rebuilt)
	}
	return d, nil
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
