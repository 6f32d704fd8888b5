package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// guidellmRequest is one request of a GuideLLM benchmark, in any status
// group. Times are wall-clock seconds.
type guidellmRequest struct {
	ID             string   `json:"request_id"`
	PromptTokens   *float64 `json:"prompt_tokens"`
	OutputTokens   *float64 `json:"output_tokens"`
	StartTime      *float64 `json:"start_time"`
	EndTime        *float64 `json:"end_time"`
	FirstTokenTime *float64 `json:"first_token_time"`
	LastTokenTime  *float64 `json:"last_token_time"`
	RequestLatency *float64 `json:"request_latency"`
	TTFT           *float64 `json:"time_to_first_token_ms"`
	TPOT           *float64 `json:"time_per_output_token_ms"`
	ITL            *float64 `json:"inter_token_latency_ms"`
	Error          string   `json:"error"`
	group          string
}

type guidellmBenchmark struct {
	Requests map[string][]guidellmRequest `json:"requests"`
	Totals   map[string]float64           `json:"request_totals"`
	Metrics  map[string]map[string]*struct {
		Mean        float64            `json:"mean"`
		Median      float64            `json:"median"`
		Variance    float64            `json:"variance"`
		StdDev      float64            `json:"std_dev"`
		Min         float64            `json:"min"`
		Max         float64            `json:"max"`
		Count       float64            `json:"count"`
		TotalSum    float64            `json:"total_sum"`
		Percentiles map[string]float64 `json:"percentiles"`
	} `json:"metrics"`
	Duration float64 `json:"duration"`
	// Args holds the benchmark's strategy; it is read leniently (see
	// guidellmBenchmarkFile), as a shape this package does not know states
	// no load rather than refusing the file.
	Args json.RawMessage `json:"args"`
}

// guidellmStrategy is how GuideLLM scheduled a benchmark's requests:
// synchronous (one at a time), concurrent (a fixed number of streams),
// throughput (as many as possible), constant or poisson (at a rate).
type guidellmStrategy struct {
	Type    string   `json:"type_"`
	Rate    *float64 `json:"rate"`
	Streams *float64 `json:"streams"`
}

// load is the load the strategy put on the server, nil for throughput
// (as many requests as it could: no level) or an unknown strategy.
func (s guidellmStrategy) load() *Load {
	switch {
	case s.Type == "synchronous":
		return &Load{Kind: "concurrency", Level: 1}
	case s.Type == "concurrent" && s.Streams != nil && *s.Streams > 0:
		return &Load{Kind: "concurrency", Level: *s.Streams}
	case (s.Type == "constant" || s.Type == "poisson") && s.Rate != nil && *s.Rate > 0 && !math.IsInf(*s.Rate, 0):
		return &Load{Kind: "rate", Level: *s.Rate}
	}
	return nil
}

// String names the strategy as GuideLLM's options do.
func (s guidellmStrategy) String() string {
	switch {
	case s.Type == "":
		return "strategy not stated"
	case s.Rate != nil:
		return fmt.Sprintf("%s at %g requests/s", s.Type, *s.Rate)
	case s.Streams != nil:
		return fmt.Sprintf("%s, %g streams", s.Type, *s.Streams)
	}
	return s.Type
}

// guidellmGroups are GuideLLM's status groups, in its order; "total" is
// the three together.
var guidellmGroups = []string{"successful", "incomplete", "errored", "total"}

// guidellmMetrics are the per-request metrics this package recomputes, with
// the request field each comes from.
var guidellmMetrics = []string{"request_latency", "prompt_token_count", "output_token_count",
	"time_to_first_token_ms", "time_per_output_token_ms", "inter_token_latency_ms"}

var guidellmPercentiles = []struct {
	key string
	p   float64
}{{"p001", 0.1}, {"p01", 1}, {"p05", 5}, {"p10", 10}, {"p25", 25}, {"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}}

type guidellmFile struct {
	b       *guidellmBenchmark
	all     []*guidellmRequest // successful, incomplete, errored
	sampled string             // why the request lists do not hold every request, or ""
	sample  *Sample            // how many they hold, nil for every request
}

// guidellmSample returns how many of a benchmark's requests its request
// lists keep, where request_totals counts more in some group; nil when
// they keep every request (or the file counts none).
func guidellmSample(b *guidellmBenchmark) *Sample {
	s := &Sample{}
	var detail []string
	for _, group := range guidellmGroups[:3] {
		kept := len(b.Requests[group])
		of := kept
		if n, ok := b.Totals[group]; ok {
			of = int(n)
		}
		s.Kept, s.Of = s.Kept+kept, s.Of+of
		if of != kept {
			detail = append(detail, fmt.Sprintf("%d of %d %s", kept, of, group))
		}
	}
	if detail == nil {
		return nil
	}
	s.Detail = strings.Join(detail, ", ")
	return s
}

// ReadGuideLLM reads GuideLLM's benchmarks.json and returns its first
// benchmark (the note says how many the file holds; ReadAll returns them
// all). Its per-request records are in the requests groups successful,
// incomplete and errored; its summary is each metric's distribution per
// group.
func ReadGuideLLM(r io.Reader) (*File, error) {
	files, err := readGuideLLM(r, 1)
	if err != nil {
		return nil, err
	}
	return files[0], nil
}

// readGuideLLM reads the first limit benchmarks of a benchmarks.json, all
// of them for a limit of 0 or less.
func readGuideLLM(r io.Reader, limit int) ([]*File, error) {
	var doc struct {
		Benchmarks []json.RawMessage `json:"benchmarks"`
	}
	if err := decodeDocument(GuideLLM, r, &doc); err != nil {
		return nil, err
	}
	if len(doc.Benchmarks) == 0 {
		return nil, &FieldError{Tool: GuideLLM, Field: "benchmarks", Offset: -1, Err: fmt.Errorf("%w: no benchmarks (%w)", llmmetrics.ErrMissingField, ErrFormat)}
	}
	n := len(doc.Benchmarks)
	if limit > 0 {
		n = min(n, limit)
	}
	var files []*File
	for k, raw := range doc.Benchmarks[:n] {
		f, err := guidellmBenchmarkFile(raw, k, len(doc.Benchmarks))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// guidellmBenchmarkFile reads benchmark k of a file of n.
func guidellmBenchmarkFile(raw json.RawMessage, k, n int) (*File, error) {
	at := fmt.Sprintf("benchmarks[%d]", k)
	var b guidellmBenchmark
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, &FieldError{Tool: GuideLLM, Field: at, Offset: -1, Err: fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)}
	}
	if b.Requests == nil {
		return nil, &FieldError{Tool: GuideLLM, Field: at + ".requests", Offset: -1, Err: llmmetrics.ErrMissingField}
	}
	g := &guidellmFile{b: &b}
	position := 0
	for _, group := range guidellmGroups[:3] {
		for i := range b.Requests[group] {
			position++
			r := &b.Requests[group][i]
			r.group = group
			if err := r.check(); err != nil {
				err.Request, err.ID = position, r.ID
				err.Field = fmt.Sprintf("%s.requests.%s[%d].%s", at, group, i, err.Field)
				return nil, err
			}
			g.all = append(g.all, r)
		}
	}
	if err := g.checkSpan(); err != nil {
		return nil, err
	}
	f := &File{Tool: GuideLLM, Layout: "benchmarks.json", Summary: guidellmFigures(&b), Benchmark: k + 1, Benchmarks: n}
	// The strategy is read leniently: a version that writes it otherwise
	// states no load, which is not a reason to refuse its requests.
	var args struct {
		Strategy guidellmStrategy `json:"strategy"`
	}
	if json.Unmarshal(b.Args, &args) != nil {
		args.Strategy = guidellmStrategy{}
	}
	st := args.Strategy
	f.load = st.load()
	f.Strategy = st.String()
	if n > 1 {
		f.Notes = append(f.Notes, fmt.Sprintf("The file holds %d benchmarks; this is benchmark %d (%s).", n, k+1, f.Strategy))
	}
	if f.Sample = guidellmSample(&b); f.Sample != nil {
		g.sample = f.Sample
		g.sampled = "the file keeps a sample of its requests (" + f.Sample.Detail + "); its figures cover them all"
		f.Notes = append(f.Notes, "The request lists are a sample: "+g.sampled+", so figures recomputed from the records describe the sample only, and rates over the window are no figures of the run.")
	}
	if inc := b.Requests["incomplete"]; len(inc) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d requests are incomplete: GuideLLM cancelled them at the benchmark's end (its words: %s). llmmetrics counts them apart, as unfinished at the run's end: not failed, not judged by an SLO, and in no latency or rate (their sends are among the arrivals).", len(inc), guidellmMessages(inc)))
	}
	f.Notes = append(f.Notes,
		"GuideLLM stores per request the first and last token times and the token count, not chunk arrivals: TTFT, E2E and TPOT are rebuilt exactly; the gap distribution and the largest gap are not.",
		"Names differ: GuideLLM's inter_token_latency_ms is (last − first token)/(n − 1), llmmetrics' TPOT; its time_per_output_token_ms divides the same span by n in this version (newer versions include the TTFT), which is neither.",
		"GuideLLM's request_latency ends when the stream ends, after the last token; output_tokens come from server usage, or from the chunk count where the server sent none.",
	)
	f.dialect = g.dialect
	f.records = g.records
	f.compare = g.compare
	return f, nil
}

// guidellmMessages lists the distinct errors of requests, quoted, in order
// of first appearance, each with its count when it is not every request's.
func guidellmMessages(rs []guidellmRequest) string {
	var order []string
	n := map[string]int{}
	for _, r := range rs {
		if n[r.Error] == 0 {
			order = append(order, r.Error)
		}
		n[r.Error]++
	}
	parts := make([]string, len(order))
	for i, m := range order {
		parts[i] = fmt.Sprintf("%q", m)
		if m == "" {
			parts[i] = "no message"
		}
		if len(order) > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n[m])
		}
	}
	return strings.Join(parts, "; ")
}

// check refuses a request with a missing time or count, a time that is not
// finite or out of range, or a count that is not a token count. A
// successful request needs its first and last token times.
func (r *guidellmRequest) check() *FieldError {
	type value struct {
		name  string
		v     *float64
		count bool
	}
	values := []value{{"start_time", r.StartTime, false}, {"end_time", r.EndTime, false},
		{"prompt_tokens", r.PromptTokens, true}, {"output_tokens", r.OutputTokens, true}}
	if r.group == "successful" {
		values = append(values, value{"first_token_time", r.FirstTokenTime, false}, value{"last_token_time", r.LastTokenTime, false})
	}
	for _, x := range values {
		var err error
		switch {
		case x.v == nil:
			err = llmmetrics.ErrMissingField
		case x.count:
			err = checkCount(*x.v)
		default:
			err = checkTime(*x.v)
		}
		if err != nil {
			return &FieldError{Tool: GuideLLM, Field: x.name, Offset: -1, Err: err}
		}
	}
	return nil
}

// checkSpan refuses requests whose times, taken from the earliest start,
// lie out of llmmetrics' range.
func (g *guidellmFile) checkSpan() *FieldError {
	t0 := math.Inf(1)
	for _, r := range g.all {
		t0 = min(t0, *r.StartTime)
	}
	for i, r := range g.all {
		last := *r.EndTime
		if r.LastTokenTime != nil {
			last = max(last, *r.LastTokenTime)
		}
		if err := checkTime(last - t0); err != nil {
			return &FieldError{Tool: GuideLLM, Request: i + 1, ID: r.ID, Field: "end_time", Offset: -1, Err: err}
		}
	}
	return nil
}

// records builds llmmetrics records: each request sent at its start time
// (from the earliest), its first and last text at its first and last token
// times. Incomplete requests were cancelled by GuideLLM at the benchmark's
// end, whatever their error says ("TimeoutError"): unfinished, counted
// apart, neither failed nor judged; errored ones are errors.
func (g *guidellmFile) records() *llmmetrics.Run {
	run := &llmmetrics.Run{Records: make([]llmmetrics.Record, len(g.all))}
	t0 := math.Inf(1)
	for _, r := range g.all {
		t0 = min(t0, *r.StartTime)
	}
	for i, r := range g.all {
		rec := &run.Records[i]
		rec.ID = r.ID
		rec.Sent = seconds(*r.StartTime - t0)
		rec.PromptTokens = int(*r.PromptTokens)
		switch r.group {
		case "incomplete":
			rec.Status, rec.Unfinished, rec.Message = llmmetrics.StatusCancelled, true, r.Error
			continue
		case "errored":
			rec.Status, rec.Message = llmmetrics.StatusError, r.Error
			continue
		}
		rec.CompletionTokens = int(*r.OutputTokens)
		if rec.CompletionTokens > 0 {
			rec.FirstText = seconds(*r.FirstTokenTime - *r.StartTime)
			rec.LastText = seconds(*r.LastTokenTime - *r.StartTime)
		}
	}
	return run
}

// value returns a request's value of a metric, with GuideLLM's weight for
// it: output tokens for time_per_output_token_ms, output tokens − 1 for
// inter_token_latency_ms, 1 otherwise. A missing value counts as 0, as
// GuideLLM's aggregation takes it.
func (r *guidellmRequest) value(metric string) (v, w float64) {
	get := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	switch metric {
	case "request_latency":
		return get(r.RequestLatency), 1
	case "prompt_token_count":
		return get(r.PromptTokens), 1
	case "output_token_count":
		return get(r.OutputTokens), 1
	case "time_to_first_token_ms":
		return get(r.TTFT), 1
	case "time_per_output_token_ms":
		return get(r.TPOT), get(r.OutputTokens)
	case "inter_token_latency_ms":
		return get(r.ITL), max(get(r.OutputTokens)-1, 0)
	}
	return 0, 0
}

// dialect computes GuideLLM's distribution summaries of the per-request
// metrics, per status group, with its formulas: weighted by the metric's
// weight; mean and population variance weighted; percentiles by the
// weighted inverse CDF without interpolation (nearest rank when the weights
// are equal); median = p50; total_sum and count unweighted.
func (g *guidellmFile) dialect() (*Dialect, error) {
	d := &Dialect{Tool: GuideLLM, Rules: []string{
		"each metric is summarized per status group (successful, incomplete, errored, total), a missing value counting as 0",
		"time_per_output_token_ms is weighted by output tokens and inter_token_latency_ms by output tokens − 1; other metrics weigh each request equally",
		"percentiles by the weighted inverse CDF, no interpolation (nearest rank for equal weights); median is p50; variance and std are the weighted population ones",
		"an empty group reports zeros",
	}, Missing: map[string]string{}}
	for _, m := range []string{"requests_per_second", "request_concurrency", "output_tokens_per_second", "tokens_per_second"} {
		d.Missing[m] = "a rate over the scheduler's measurement window, built from request and token events the file does not keep"
	}
	add := func(key string, v float64) {
		d.Figures = append(d.Figures, DialectFigure{Figure: Figure{key, v}, Approx: g.sampled})
	}
	for _, m := range guidellmMetrics {
		for _, group := range guidellmGroups {
			var vs, ws []float64
			for _, r := range g.all {
				if group == "total" || r.group == group {
					v, w := r.value(m)
					vs, ws = append(vs, v), append(ws, w)
				}
			}
			st := weightedSummary(vs, ws)
			prefix := m + "." + group + "."
			weightedKeys := []string{"mean", "median", "variance", "std_dev"}
			for _, p := range guidellmPercentiles {
				weightedKeys = append(weightedKeys, "percentiles."+p.key)
			}
			if st.noWeight {
				// Every request of the group weighs 0 (one output token, for
				// inter_token_latency_ms): GuideLLM divides by a total weight
				// of 0. Its NaN cannot be written in JSON, and a figure of no
				// data is not one llmmetrics reports.
				for _, k := range weightedKeys {
					d.Missing[prefix+k] = "every request of the group has weight 0 (for inter_token_latency_ms, one output token): GuideLLM divides by a total weight of 0 and reports NaN for the mean, variance and std_dev and one of the values for every percentile; llmmetrics reports no figure where there is no data"
				}
			} else {
				add(prefix+"mean", st.mean)
				add(prefix+"median", st.pcts[5])
				add(prefix+"variance", st.variance)
				add(prefix+"std_dev", math.Sqrt(st.variance))
				for i, p := range guidellmPercentiles {
					add(prefix+"percentiles."+p.key, st.pcts[i])
				}
			}
			add(prefix+"min", st.min)
			add(prefix+"max", st.max)
			add(prefix+"count", float64(len(vs)))
			add(prefix+"total_sum", st.sum)
			d.Missing[prefix+"mode"] = "GuideLLM's mode of a continuous sample is not reproduced"
		}
	}
	return d, nil
}

type weighted struct {
	mean, variance, min, max, sum float64
	pcts                          []float64 // at guidellmPercentiles
	noWeight                      bool      // values whose weights sum to 0: no weighted figure
}

// weightedSummary is GuideLLM's summary of values with weights; zeros for
// no values.
func weightedSummary(vs, ws []float64) weighted {
	st := weighted{pcts: make([]float64, len(guidellmPercentiles))}
	if len(vs) == 0 {
		return st
	}
	st.min, st.max = math.Inf(1), math.Inf(-1)
	var sw float64
	for i, v := range vs {
		st.sum += v
		st.min, st.max = min(st.min, v), max(st.max, v)
		sw += ws[i]
		st.mean += v * ws[i]
	}
	if sw == 0 {
		return weighted{pcts: st.pcts, min: st.min, max: st.max, sum: st.sum, noWeight: true}
	}
	st.mean /= sw
	for i, v := range vs {
		st.variance += ws[i] * (v - st.mean) * (v - st.mean)
	}
	st.variance /= sw
	idx := make([]int, len(vs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return vs[idx[a]] < vs[idx[b]] })
	cum := make([]float64, len(vs))
	var c float64
	for k, i := range idx {
		c += ws[i] / sw
		cum[k] = c
	}
	for j, p := range guidellmPercentiles {
		q := p.p / 100
		k := sort.SearchFloat64s(cum, q) // the first cumulative probability ≥ q
		st.pcts[j] = vs[idx[min(k, len(idx)-1)]]
	}
	return st
}

// guidellmFigures flattens a benchmark's own figures: every distribution
// of its metrics, under its path in the file below "metrics":
// "<metric>.<group>.<stat>", and "<metric>.<group>.percentiles.<pNN>".
func guidellmFigures(b *guidellmBenchmark) []Figure {
	var figs []Figure
	for _, m := range slices.Sorted(maps.Keys(b.Metrics)) {
		for _, group := range guidellmGroups {
			s := b.Metrics[m][group]
			if s == nil {
				continue
			}
			prefix := m + "." + group + "."
			figs = append(figs,
				Figure{prefix + "mean", s.Mean}, Figure{prefix + "median", s.Median}, Figure{prefix + "variance", s.Variance},
				Figure{prefix + "std_dev", s.StdDev}, Figure{prefix + "min", s.Min}, Figure{prefix + "max", s.Max},
				Figure{prefix + "count", s.Count}, Figure{prefix + "total_sum", s.TotalSum})
			for _, p := range guidellmPercentiles {
				if v, ok := s.Percentiles[p.key]; ok {
					figs = append(figs, Figure{prefix + "percentiles." + p.key, v})
				}
			}
		}
	}
	return figs
}
