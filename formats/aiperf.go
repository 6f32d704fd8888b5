package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/lineio"
)

// aiperfRecord is one line of AIPerf's profile_export.jsonl.
type aiperfRecord struct {
	Metadata struct {
		TimestampNS int64  `json:"timestamp_ns"`
		RequestID   string `json:"x_request_id"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`

	scalars map[string]float64   // the metrics with a number as value
	ints    map[string]int64     // those whose number is an integer, exactly (timestamps in ns exceed float64's precision)
	lists   map[string][]float64 // the metrics with a list of numbers as value
	line    int
}

// aiperfFile is an AIPerf run: its per-record lines, in file order.
type aiperfFile struct {
	recs []*aiperfRecord
	tags []string // the per-record metric tags, in order of first appearance
}

// ReadAIPerf reads AIPerf's per-record export, profile_export.jsonl: one
// JSON object a line, with the record's metadata (timestamp_ns), its
// metrics ({"value", "unit"} by tag) and its error, if any. The tool's
// summary is in a separate file; see ReadSummary.
func ReadAIPerf(r io.Reader) (*File, error) {
	a := &aiperfFile{}
	seen := map[string]bool{}
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		b, err := lineio.Read(br, nil, 0)
		if err != nil && err != io.EOF {
			return nil, &FieldError{Tool: AIPerf, Line: line, Offset: -1, Err: err}
		}
		if t := bytes.TrimSpace(bytes.TrimPrefix(b, lineio.BOM)); len(t) > 0 {
			rec, ferr := parseAIPerfLine(t, line)
			if ferr != nil {
				return nil, ferr
			}
			a.recs = append(a.recs, rec)
			for _, tag := range slices.Sorted(maps.Keys(rec.Metrics)) {
				if !seen[tag] {
					seen[tag] = true
					a.tags = append(a.tags, tag)
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if len(a.recs) == 0 {
		return nil, &FieldError{Tool: AIPerf, Offset: -1, Err: fmt.Errorf("%w: no records", ErrFormat)}
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	f := &File{Tool: AIPerf, Layout: "profile_export.jsonl"}
	f.Notes = append(f.Notes,
		"AIPerf counts reasoning as output: its TTFT ends at the first content or reasoning chunk, and output_sequence_length (used here as the completion tokens) is reasoning plus content tokens.",
		"Token counts are AIPerf's own tokenizer counts unless the run used --use-server-token-count; the file does not say which.",
	)
	multi, ok, over := 0, 0, 0
	for _, r := range a.recs {
		if r.Error == nil {
			ok++
			chunks, n := len(r.lists["inter_chunk_latency"])+1, int(r.scalars["output_sequence_length"])
			switch {
			case chunks < n:
				multi++
			case chunks > n:
				over++
			}
		}
	}
	if over > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d ok records have more chunks than output tokens: AIPerf counted tokens by re-tokenizing the joined text, which can merge tokens across chunk boundaries. llmmetrics keeps such a request's TTFT and E2E and leaves it out of TPOT and token rates, counted as a request without a usable token count.", over, ok))
	}
	if multi > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d ok records received fewer chunks than tokens: AIPerf's inter_chunk_latency is a chunk gap for them, not a token gap.", multi, ok))
	}
	f.dialect = a.dialect
	f.dialectWith = a.dialectWith
	f.records = a.records
	f.compare = a.compare
	return f, nil
}

func parseAIPerfLine(b []byte, line int) (*aiperfRecord, error) {
	fail := func(field string, err error) (*aiperfRecord, error) {
		return nil, &FieldError{Tool: AIPerf, Field: field, Line: line, Offset: -1, Err: err}
	}
	rec := &aiperfRecord{line: line, scalars: map[string]float64{}, ints: map[string]int64{}, lists: map[string][]float64{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(rec); err != nil {
		return fail("", fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
	}
	if dec.More() {
		return fail("", fmt.Errorf("%w: text after the JSON object", llmmetrics.ErrSyntax))
	}
	if rec.Metrics == nil {
		return fail("metrics", fmt.Errorf("%w: not an AIPerf record (%w)", llmmetrics.ErrMissingField, ErrFormat))
	}
	for tag, m := range rec.Metrics {
		v := bytes.TrimSpace(m.Value)
		if len(v) > 0 && v[0] == '[' {
			var xs []float64
			if err := json.Unmarshal(v, &xs); err != nil {
				return fail("metrics."+tag, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
			}
			rec.lists[tag] = xs
			continue
		}
		var x json.Number
		if err := json.Unmarshal(v, &x); err != nil {
			return fail("metrics."+tag, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
		}
		f, err := x.Float64()
		if err != nil {
			return fail("metrics."+tag, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err))
		}
		rec.scalars[tag] = f
		if n, err := x.Int64(); err == nil {
			rec.ints[tag] = n
		}
	}
	if rec.Error == nil {
		for _, tag := range []string{"ttft", "request_latency", "output_sequence_length", "min_request_timestamp"} {
			if _, ok := rec.scalars[tag]; !ok {
				return fail("metrics."+tag, fmt.Errorf("%w: a record without an error needs it", llmmetrics.ErrMissingField))
			}
		}
	}
	return rec, nil
}

// check refuses a record whose times (in ms) are not finite or out of
// range, whose counts are not token counts, or whose request timestamp (in
// ns) lies out of range of the run's first.
func (a *aiperfFile) check() *FieldError {
	t0 := int64(math.MaxInt64)
	for _, r := range a.recs {
		t0 = min(t0, a.sent(r))
	}
	for i, r := range a.recs {
		fail := func(field string, err error) *FieldError {
			return &FieldError{Tool: AIPerf, Request: i + 1, ID: r.Metadata.RequestID, Line: r.line, Offset: -1, Field: field, Err: err}
		}
		if err := checkTime((float64(a.sent(r)) - float64(t0)) / 1e9); err != nil {
			return fail("metrics.min_request_timestamp", err)
		}
		for _, tag := range []string{"ttft", "request_latency"} {
			if v, ok := r.scalars[tag]; ok {
				if err := checkTime(v / 1e3); err != nil {
					return fail("metrics."+tag, err)
				}
			}
		}
		at := r.scalars["ttft"]
		for k, g := range r.lists["inter_chunk_latency"] {
			if err := checkTime(g / 1e3); err != nil {
				return fail(fmt.Sprintf("metrics.inter_chunk_latency[%d]", k), err)
			}
			at += g
		}
		if err := checkTime(at / 1e3); err != nil {
			return fail("metrics.inter_chunk_latency", fmt.Errorf("%w: the last chunk arrives %v ms after the send", llmmetrics.ErrOutOfRange, at))
		}
		for _, tag := range []string{"input_sequence_length", "output_sequence_length"} {
			if v, ok := r.scalars[tag]; ok {
				if err := checkCount(v); err != nil {
					return fail("metrics."+tag, err)
				}
			}
		}
	}
	return nil
}

// records builds llmmetrics records: a record is sent at its request
// timestamp (from the run's earliest), its first text arrives at ttft and
// each later chunk one inter_chunk_latency later, rounded to the
// nanosecond. A cancellation (code 499) is cancelled; any other error,
// an error.
func (a *aiperfFile) records() *llmmetrics.Run {
	run := &llmmetrics.Run{Records: make([]llmmetrics.Record, len(a.recs)), Lines: make([]int, len(a.recs))}
	t0 := int64(math.MaxInt64)
	for _, r := range a.recs {
		t0 = min(t0, a.sent(r))
	}
	for i, r := range a.recs {
		rec := &run.Records[i]
		run.Lines[i] = r.line
		rec.ID = r.Metadata.RequestID
		rec.Sent = time.Duration(a.sent(r) - t0)
		rec.PromptTokens = int(r.scalars["input_sequence_length"])
		if r.Error != nil {
			rec.Status = llmmetrics.StatusError
			if r.Error.Code == 499 || strings.Contains(r.Error.Type, "Cancel") {
				rec.Status = llmmetrics.StatusCancelled
			}
			rec.Message = strings.TrimSpace(r.Error.Type + ": " + r.Error.Message)
			continue
		}
		rec.CompletionTokens = int(r.scalars["output_sequence_length"])
		if rec.CompletionTokens == 0 {
			continue
		}
		at := r.scalars["ttft"]
		rec.Chunks = append(rec.Chunks, millis(at))
		for _, g := range r.lists["inter_chunk_latency"] {
			at += g
			rec.Chunks = append(rec.Chunks, millis(at))
		}
	}
	return run
}

// sent is the record's request timestamp in ns: min_request_timestamp,
// or the metadata timestamp for a record without metrics of its own.
func (a *aiperfFile) sent(r *aiperfRecord) int64 {
	if v, ok := r.ints["min_request_timestamp"]; ok {
		return v
	}
	return r.Metadata.TimestampNS
}

// aiperfStats are the statistics AIPerf reports for each per-record metric.
var aiperfStats = []string{"avg", "min", "max", "p1", "p5", "p25", "p50", "p75", "p90", "p95", "p99", "std", "count"}

// dialect computes AIPerf's summary (profile_export_aiperf.json) from the
// records, with AIPerf's formulas: each per-record metric over the records
// without an error that have it, with numpy's linear percentiles and the
// population std; the run's aggregates from the same records.
func (a *aiperfFile) dialect() (*Dialect, error) { return a.dialectWith(DialectOptions{}) }

// dialectWith computes AIPerf's summary, with its goodput against opt.SLO
// (AIPerf's --goodput) when given.
func (a *aiperfFile) dialectWith(opt DialectOptions) (*Dialect, error) {
	if opt.Percentiles != nil {
		return nil, fmt.Errorf("%w: AIPerf's summary has no choice of percentiles: %s", ErrUnsupported, toolOf(AIPerf).choices)
	}
	if opt.SLO != nil {
		if err := checkSLOKeys(AIPerf, opt.SLO); err != nil {
			return nil, err
		}
	}
	d := &Dialect{Tool: AIPerf, Missing: map[string]string{}, Rules: []string{
		"records with an error are left out of every metric and counted in error_request_count",
		"each per-record metric is summarized over the records that have it: avg, min, max, p1…p99 (numpy linear), std (population)",
		"inter_token_latency is per record (request_latency − ttft)/(output_sequence_length − 1): what llmmetrics calls TPOT; inter_chunk_latency pools every chunk gap",
		"ttst (time to second token) is the first chunk gap; output_token_throughput_per_user is 1000/inter_token_latency",
		"benchmark_duration runs from the earliest request to the last response of the records without an error",
		"count is the number of values summarized: records for a per-record metric, chunk gaps for inter_chunk_latency, 1 for a run aggregate",
	}}
	add := func(key string, v float64) { d.Figures = append(d.Figures, DialectFigure{Figure: Figure{key, v}}) }
	// A run aggregate is reported as one value: its avg, with count 1.
	aggregate1 := func(tag string, v float64) {
		add(tag+".avg", v)
		add(tag+".count", 1)
	}
	var valid []*aiperfRecord
	errorsN := 0
	for _, r := range a.recs {
		if r.Error != nil {
			errorsN++
		} else {
			valid = append(valid, r)
		}
	}
	// Per-record series, recomputed from the raw values where AIPerf
	// derives them.
	series := map[string]floats{}
	for _, r := range valid {
		for _, tag := range a.tags {
			if xs, ok := r.lists[tag]; ok {
				series[tag] = append(series[tag], xs)
				continue
			}
			v, ok := r.scalars[tag]
			if !ok {
				continue
			}
			switch tag {
			case "inter_token_latency":
				if itl, ok := r.interTokenLatency(); ok {
					v = itl
				}
			case "output_token_throughput_per_user":
				if itl, ok := r.interTokenLatency(); ok {
					v = 1000 / itl
				}
			case "ttst":
				if icl := r.lists["inter_chunk_latency"]; len(icl) > 0 {
					v = icl[0]
				}
			}
			series[tag] = append(series[tag], []float64{v})
		}
	}
	aggregate := map[string]bool{"request_count": true, "error_request_count": true, "min_request_timestamp": true, "max_response_timestamp": true}
	for _, tag := range a.tags {
		xs := series[tag]
		if aggregate[tag] || xs.len() == 0 {
			continue
		}
		st := describe(xs, 0, []float64{1, 5, 25, 50, 75, 90, 95, 99})
		lo, hi := extremes(xs)
		vals := append([]float64{st.mean, lo, hi}, st.pcts...)
		vals = append(vals, st.std, float64(st.n))
		for i, s := range aiperfStats {
			add(tag+"."+s, vals[i])
		}
	}
	if errorsN > 0 {
		aggregate1("error_request_count", float64(errorsN))
	}
	if len(valid) == 0 {
		a.goodput(d, opt.SLO, valid, errorsN, 0, aggregate1)
		return d, nil
	}
	aggregate1("request_count", float64(len(valid)))
	minReq, maxResp := int64(math.MaxInt64), int64(math.MinInt64)
	var isl, osl, out, reasoning float64
	for _, r := range valid {
		minReq = min(minReq, a.sent(r))
		if v, ok := r.ints["max_response_timestamp"]; ok {
			maxResp = max(maxResp, v)
		}
		isl += r.scalars["input_sequence_length"]
		osl += r.scalars["output_sequence_length"]
		out += r.scalars["output_token_count"]
		reasoning += r.scalars["reasoning_token_count"]
	}
	aggregate1("min_request_timestamp", float64(minReq))
	dur := 0.0
	if maxResp > minReq {
		dur = float64(maxResp-minReq) / 1e9
		aggregate1("max_response_timestamp", float64(maxResp))
		aggregate1("benchmark_duration", dur)
		aggregate1("request_throughput", float64(len(valid))/dur)
		aggregate1("output_token_throughput", osl/dur)
	}
	aggregate1("total_isl", isl)
	aggregate1("total_osl", osl)
	if series["output_token_count"].len() > 0 {
		aggregate1("total_output_tokens", out)
	}
	if series["reasoning_token_count"].len() > 0 {
		aggregate1("total_reasoning_tokens", reasoning)
	}
	a.goodput(d, opt.SLO, valid, errorsN, dur, aggregate1)
	return d, nil
}

// goodput adds AIPerf's good_request_count, goodput (good requests per
// second of benchmark_duration) and good_request_fraction (good over valid
// and error records) against slo, or lists them as not reproducible
// without one. AIPerf's rule: a valid record is good when each limited
// metric is at most its limit (inclusive); a record without the metric
// (inter_token_latency of a one-token output) is not good.
func (a *aiperfFile) goodput(d *Dialect, slo *llmmetrics.SLO, valid []*aiperfRecord, errorsN int, dur float64, aggregate1 func(string, float64)) {
	keys := []string{"good_request_count", "goodput", "good_request_fraction"}
	if slo == nil {
		for _, k := range keys {
			d.Missing[k] = "AIPerf's --goodput limits are not in its files; give them (--slo) to compute it"
		}
		return
	}
	good := 0
	for _, r := range valid {
		ok := true
		for _, c := range []struct {
			limit time.Duration
			tag   string
		}{{slo.TTFT, "ttft"}, {slo.TPOT, "inter_token_latency"}, {slo.E2E, "request_latency"}} {
			if c.limit == 0 {
				continue
			}
			v, has := r.scalars[c.tag]
			if c.tag == "inter_token_latency" {
				v, has = r.interTokenLatency()
			}
			if !has || v > float64(c.limit)/1e6 {
				ok = false
			}
		}
		if ok {
			good++
		}
	}
	aggregate1("good_request_count", float64(good))
	if dur > 0 {
		aggregate1("goodput", float64(good)/dur)
	}
	if n := len(valid) + errorsN; n > 0 {
		aggregate1("good_request_fraction", float64(good)/float64(n))
	}
	d.Rules = append(d.Rules, fmt.Sprintf("goodput against %s: a valid record is good when ttft, inter_token_latency (TPOT) and request_latency are each at most their limit (inclusive), and a record without a limited metric (inter_token_latency of a one-token output) is not good; goodput = good_request_count / benchmark_duration; good_request_fraction = good / (valid + error records)", slo))
}

// interTokenLatency is AIPerf's per-record inter_token_latency, in ms:
// (request_latency − ttft)/(output_sequence_length − 1), what llmmetrics
// calls TPOT; a record with fewer than two output tokens has none.
func (r *aiperfRecord) interTokenLatency() (float64, bool) {
	osl := r.scalars["output_sequence_length"]
	if osl <= 1 {
		return 0, false
	}
	return (r.scalars["request_latency"] - r.scalars["ttft"]) / (osl - 1), true
}

// readAIPerfSummary reads profile_export_aiperf.json: each record's
// statistics become figures "<tag>.<stat>"; null statistics are left out.
func readAIPerfSummary(r io.Reader) ([]Figure, error) {
	var doc struct {
		Records map[string]map[string]any `json:"records"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, &FieldError{Tool: AIPerf, Offset: -1, Err: fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)}
	}
	if doc.Records == nil {
		return nil, &FieldError{Tool: AIPerf, Field: "records", Offset: -1, Err: errors.Join(ErrFormat, llmmetrics.ErrMissingField)}
	}
	var figs []Figure
	for _, tag := range slices.Sorted(maps.Keys(doc.Records)) {
		for _, s := range aiperfStats {
			if v, ok := doc.Records[tag][s].(float64); ok {
				figs = append(figs, Figure{tag + "." + s, v})
			}
		}
	}
	return figs, nil
}

// ReadLoad reads the load a tool's summary file states, where the tool
// writes its run's settings there and not in its per-request file:
// AIPerf's profile_export_aiperf.json, whose input_config.loadgen gives a
// request_rate (requests a second) or a concurrency. ok is false when the
// file states neither, or the tool keeps no settings in a summary file.
func ReadLoad(tool Tool, r io.Reader) (l Load, ok bool, err error) {
	d := toolOf(tool)
	if d == nil || d.summary == nil || d.summary.load == nil {
		return Load{}, false, nil
	}
	return d.summary.load(r)
}

// readAIPerfLoad reads the load of profile_export_aiperf.json, from its
// input_config.loadgen.
func readAIPerfLoad(r io.Reader) (l Load, ok bool, err error) {
	var doc struct {
		Config *struct {
			Loadgen struct {
				Concurrency *float64 `json:"concurrency"`
				RequestRate *float64 `json:"request_rate"`
			} `json:"loadgen"`
		} `json:"input_config"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return Load{}, false, &FieldError{Tool: AIPerf, Offset: -1, Err: fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)}
	}
	if doc.Config == nil {
		return Load{}, false, nil
	}
	g := doc.Config.Loadgen
	switch {
	case g.RequestRate != nil && *g.RequestRate > 0 && !math.IsInf(*g.RequestRate, 0):
		return Load{Kind: "rate", Level: *g.RequestRate}, true, nil
	case g.Concurrency != nil && *g.Concurrency > 0:
		return Load{Kind: "concurrency", Level: *g.Concurrency}, true, nil
	}
	return Load{}, false, nil
}
