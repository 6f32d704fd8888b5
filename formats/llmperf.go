package formats

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// llmperfRecord is one entry of LLMPerf's *_individual_responses.json.
type llmperfRecord struct {
	ErrorCode    *float64 `json:"error_code"`
	ErrorMsg     string   `json:"error_msg"`
	ITL          *float64 `json:"inter_token_latency_s"`
	TTFT         *float64 `json:"ttft_s"`
	E2E          *float64 `json:"end_to_end_latency_s"`
	OutputTPS    *float64 `json:"request_output_throughput_token_per_s"`
	TotalTokens  *float64 `json:"number_total_tokens"`
	OutputTokens *float64 `json:"number_output_tokens"`
	InputTokens  *float64 `json:"number_input_tokens"`
}

// llmperfMetrics are the per-request values LLMPerf summarizes, in the
// order of its summary.
var llmperfMetrics = []string{"inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
	"request_output_throughput_token_per_s", "number_input_tokens", "number_output_tokens"}

func (r *llmperfRecord) value(metric string) *float64 {
	switch metric {
	case "inter_token_latency_s":
		return r.ITL
	case "ttft_s":
		return r.TTFT
	case "end_to_end_latency_s":
		return r.E2E
	case "request_output_throughput_token_per_s":
		return r.OutputTPS
	case "number_input_tokens":
		return r.InputTokens
	case "number_output_tokens":
		return r.OutputTokens
	}
	return nil
}

func (r *llmperfRecord) failed() bool { return r.ErrorCode != nil }

type llmperfFile struct{ recs []llmperfRecord }

// ReadLLMPerf reads LLMPerf's per-request file, *_individual_responses.json:
// a JSON array of objects with ttft_s, end_to_end_latency_s,
// inter_token_latency_s, request_output_throughput_token_per_s, the token
// counts, and error_code/error_msg. LLMPerf stores per-request means only;
// the tool's summary is a separate file (see ReadSummary).
func ReadLLMPerf(r io.Reader) (*File, error) {
	var recs []llmperfRecord
	if err := decodeDocument(LLMPerf, r, &recs); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, &FieldError{Tool: LLMPerf, Offset: -1, Err: fmt.Errorf("%w: no records", ErrFormat)}
	}
	for i := range recs {
		if err := recs[i].check(); err != nil {
			err.Request = i + 1
			err.Field = fmt.Sprintf("[%d].%s", i, err.Field)
			return nil, err
		}
	}
	l := &llmperfFile{recs: recs}
	f := &File{Tool: LLMPerf, Layout: "individual_responses.json", NoSendTimes: true}
	f.Notes = []string{
		"LLMPerf stores one line of means per request: no send times and no chunk arrivals. TTFT and E2E are rebuilt exactly; TPOT from them and the token count; the gap distribution (ITL), the largest gap and any window-based rate cannot be rebuilt.",
		"LLMPerf's inter_token_latency_s is (TTFT + Σ chunk gaps) divided by the number of chunks, about E2E/n: it includes the first token's wait, so it is neither TPOT nor a gap.",
		"Its E2E ends when the stream closes, after the last token; token counts come from a fixed Llama tokenizer, whatever the model.",
	}
	f.dialect = l.dialect
	f.records = l.records
	f.compare = l.compare
	return f, nil
}

// check refuses a successful record with a missing value, a time that is
// not finite or out of range, or a count that is not a token count.
func (r *llmperfRecord) check() *FieldError {
	if r.failed() {
		return nil
	}
	for _, m := range llmperfMetrics {
		v := r.value(m)
		var err error
		switch {
		case v == nil:
			err = llmmetrics.ErrMissingField
		case m == "number_input_tokens" || m == "number_output_tokens":
			err = checkCount(*v)
		case m == "request_output_throughput_token_per_s":
			if math.IsNaN(*v) || math.IsInf(*v, 0) {
				err = fmt.Errorf("%w: %v", llmmetrics.ErrNonFinite, *v)
			}
		default:
			err = checkTime(*v)
		}
		if err != nil {
			return &FieldError{Tool: LLMPerf, Field: m, Offset: -1, Err: err}
		}
	}
	return nil
}

// records builds llmmetrics records: minimal ones, with the first text at
// ttft_s and the last at end_to_end_latency_s, all sent at 0.
func (l *llmperfFile) records() *llmmetrics.Run {
	run := &llmmetrics.Run{Records: make([]llmmetrics.Record, len(l.recs))}
	for i := range l.recs {
		r, rec := &l.recs[i], &run.Records[i]
		rec.ID = strconv.Itoa(i)
		if r.failed() {
			rec.Status = llmmetrics.StatusError
			rec.Message = strings.TrimSpace(fmt.Sprintf("error %v: %s", *r.ErrorCode, r.ErrorMsg))
			continue
		}
		rec.PromptTokens = int(*r.InputTokens)
		rec.CompletionTokens = int(*r.OutputTokens)
		rec.FirstText = seconds(*r.TTFT)
		rec.LastText = seconds(*r.E2E)
	}
	return run
}

// dialect computes LLMPerf's summary with its formulas: each per-request
// value over the requests without an error, with pandas' quantiles (linear,
// as numpy's) and the sample standard deviation (ddof = 1).
func (l *llmperfFile) dialect() (*Dialect, error) {
	d := &Dialect{Tool: LLMPerf, Rules: []string{
		"requests with an error_code are left out of every metric; error_rate = errors / requests started",
		"each per-request value is summarized with pandas: quantiles p25…p99 (linear), mean, min, max, and the sample std (ddof = 1)",
		"inter_token_latency_s is per request about E2E/n, the first token's wait included",
	}, Missing: map[string]string{
		"results_mean_output_throughput_token_per_s": "divides by the test's wall-clock time, which the per-request file does not hold",
		"results_num_completed_requests_per_min":     "divides by the test's wall-clock time, which the per-request file does not hold",
	}}
	add := func(key string, v float64) { d.Figures = append(d.Figures, DialectFigure{Figure: Figure{key, v}}) }
	var ok []*llmperfRecord
	for i := range l.recs {
		if !l.recs[i].failed() {
			ok = append(ok, &l.recs[i])
		}
	}
	if len(ok) > 0 {
		for _, m := range llmperfMetrics {
			xs := make([]float64, len(ok))
			for i, r := range ok {
				xs[i] = *r.value(m)
			}
			st := describe(floats{xs}, 1, []float64{25, 50, 75, 90, 95, 99})
			for i, p := range []string{"p25", "p50", "p75", "p90", "p95", "p99"} {
				add("results_"+m+"_quantiles_"+p, st.pcts[i])
			}
			lo, hi := extremes(floats{xs})
			add("results_"+m+"_mean", st.mean)
			add("results_"+m+"_min", lo)
			add("results_"+m+"_max", hi)
			if len(ok) > 1 {
				add("results_"+m+"_stddev", st.std)
			}
		}
	}
	n := float64(len(l.recs))
	add("results_num_requests_started", n)
	add("results_number_errors", n-float64(len(ok)))
	add("results_error_rate", (n-float64(len(ok)))/n)
	add("results_num_completed_requests", float64(len(ok)))
	return d, nil
}

// readLLMPerfSummary reads *_summary.json: every number, and every string
// that holds one (LLMPerf writes some minima and maxima as strings).
func readLLMPerfSummary(r io.Reader) ([]Figure, error) {
	var doc map[string]any
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, &FieldError{Tool: LLMPerf, Offset: -1, Err: fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)}
	}
	var figs []Figure
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		var s string
		switch v := doc[k].(type) {
		case json.Number:
			s = v.String()
		case string:
			s = v
		default:
			continue
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			figs = append(figs, Figure{k, f})
		}
	}
	return figs, nil
}
