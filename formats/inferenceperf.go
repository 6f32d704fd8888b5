package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// InferencePerf is kubernetes-sigs/inference-perf. Its per-stage reports
// hold summaries, not requests: a sweep reads them as a level's figures
// (ReadStage); Read gives a File with the report's figures as its Summary
// and as a Dialect that states them (Dialect.Stated), and no records.
const InferencePerf Tool = "inference-perf"

// A Stage is one load stage of an inference-perf run, as one of its two
// reports gives it: the client's (stage_N_lifecycle_metrics.json, from
// per-request lifecycles) or the server's (stage_N_prometheus_metrics.json,
// from vLLM's Prometheus series over the stage window).
type Stage struct {
	Side string // "client" or "server"
	// RequestedRate is the stage's arrival rate in requests a second
	// (client reports only; 0 when absent).
	RequestedRate float64
	// Figures are the report's figures under the names llmmetrics' sweep
	// uses: "ttft p50", "tpot p99", "e2e p95" (ms), "output_tokens_per_s",
	// "prompt_tokens_per_s", "requests_per_s", "error_rate",
	// "prompt_tokens p50", "output_tokens p50"; a server report's names
	// begin with "server ", and its p50 is the report's median.
	Figures map[string]float64
	Notes   []string
}

// stageDist is a distribution as inference-perf writes it, in seconds (or
// tokens).
type stageDist struct {
	Mean   *float64 `json:"mean"`
	Median *float64 `json:"median"`
	P90    *float64 `json:"p90"`
	P95    *float64 `json:"p95"`
	P99    *float64 `json:"p99"`
}

// IsStage reports whether the head of a file is an inference-perf stage
// report: a load_summary and a successes object at its top.
func IsStage(head []byte) bool {
	keys, top := headKeys(head)
	return toolOf(InferencePerf).detect(keys, top)
}

// ReadStage reads an inference-perf stage report, client or server. Its
// percentiles are inference-perf's own (numpy's linear interpolation for
// the client report; PromQL's histogram_quantile over the stage for the
// server's), and are taken as given. A figure the report does not hold is
// left out, never set to 0.
func ReadStage(r io.Reader) (*Stage, error) {
	var doc struct {
		Load struct {
			RequestedRate *float64 `json:"requested_rate"`
		} `json:"load_summary"`
		Successes struct {
			Count   *float64 `json:"count"`
			Rate    *float64 `json:"rate"`
			Latency *struct {
				E2E  *stageDist `json:"request_latency"`
				TTFT *stageDist `json:"time_to_first_token"`
				TPOT *stageDist `json:"time_per_output_token"`
			} `json:"latency"`
			E2E        *stageDist `json:"request_latency"`
			TTFT       *stageDist `json:"time_to_first_token"`
			TPOT       *stageDist `json:"time_per_output_token"`
			Throughput *struct {
				Input    *float64 `json:"input_tokens_per_sec"`
				Output   *float64 `json:"output_tokens_per_sec"`
				Requests *float64 `json:"requests_per_sec"`
			} `json:"throughput"`
			PromptLen *stageDist `json:"prompt_len"`
			OutputLen *stageDist `json:"output_len"`
		} `json:"successes"`
		Failures struct {
			Count *float64 `json:"count"`
		} `json:"failures"`
	}
	if err := decodeDocument(InferencePerf, r, &doc); err != nil {
		return nil, err
	}
	st := &Stage{Side: "server", Figures: map[string]float64{}}
	s := doc.Successes
	c := &stageFigures{st: st}
	// The client's report nests its latencies under "latency".
	ttft, tpot, e2e := s.TTFT, s.TPOT, s.E2E
	if l := s.Latency; l != nil {
		st.Side = "client"
		ttft, tpot, e2e = l.TTFT, l.TPOT, l.E2E
	}
	prefix := ""
	if st.Side == "server" {
		prefix = "server "
	}
	c.dist(prefix+"ttft", ttft)
	c.dist(prefix+"tpot", tpot)
	c.dist(prefix+"e2e", e2e)
	if t := s.Throughput; t != nil {
		c.set("output_tokens_per_s", t.Output, 1)
		c.set("prompt_tokens_per_s", t.Input, 1)
		c.set("requests_per_s", t.Requests, 1)
	}
	if st.Side == "server" {
		c.set("server requests_per_s", s.Rate, 1)
	}
	if st.Side == "client" {
		if s.PromptLen != nil {
			c.set("prompt_tokens p50", s.PromptLen.Median, 1)
		}
		if s.OutputLen != nil {
			c.set("output_tokens p50", s.OutputLen.Median, 1)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	if st.Side == "client" && s.Count != nil && doc.Failures.Count != nil && *s.Count+*doc.Failures.Count > 0 {
		st.Figures["error_rate"] = *doc.Failures.Count / (*s.Count + *doc.Failures.Count)
	}
	if v := doc.Load.RequestedRate; v != nil && *v > 0 && !math.IsInf(*v, 0) {
		st.RequestedRate = *v
	}
	if st.Side == "client" {
		st.Notes = append(st.Notes, "inference-perf's client percentiles (numpy's linear method) over the stage's requests, taken as given")
	} else {
		st.Notes = append(st.Notes, "inference-perf's server figures from vLLM's Prometheus series over the stage window: aggregate histograms, which may include traffic from outside the stage")
	}
	if len(st.Figures) == 0 {
		return nil, &FieldError{Tool: InferencePerf, Field: "successes", Offset: -1, Err: fmt.Errorf("%w: a stage report with no figures", llmmetrics.ErrMissingField)}
	}
	return st, nil
}

// StageName returns the name shared by a stage's two reports
// (".../stage_2" for both stage_2_lifecycle_metrics.json and
// stage_2_prometheus_metrics.json), so that a sweep reads them as one run.
func StageName(path string) string {
	for _, suffix := range []string{"_lifecycle_metrics.json", "_prometheus_metrics.json"} {
		if strings.HasSuffix(path, suffix) {
			return strings.TrimSuffix(path, suffix)
		}
	}
	return path
}

// readInferencePerf reads an inference-perf stage report as a File: its
// figures under its own keys (the path of each number, "successes.
// latency.time_to_first_token.p99"), in its units (seconds, tokens), in
// file order; its requested rate as the File's load; no records.
func readInferencePerf(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &FieldError{Tool: InferencePerf, Offset: -1, Err: err}
	}
	st, err := ReadStage(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	figs, err := numbersOf(b)
	if err != nil {
		return nil, &FieldError{Tool: InferencePerf, Offset: -1, Err: err}
	}
	f := &File{Tool: InferencePerf, Summary: figs}
	f.Layout = "stage_N_prometheus_metrics.json, server side"
	if st.Side == "client" {
		f.Layout = "stage_N_lifecycle_metrics.json, client side"
	}
	if st.RequestedRate > 0 {
		f.load = &Load{Kind: "rate", Level: st.RequestedRate}
	}
	f.Notes = append([]string{"The file holds inference-perf's summary of one load stage, no per-request data: llmmetrics cannot recompute its figures and gives them as the file states them."}, st.Notes...)
	rules := append([]string{"the figures are inference-perf's own, as the stage report states them: latencies in seconds, lengths in tokens, rates per second"}, st.Notes...)
	f.dialect = func() (*Dialect, error) {
		d := &Dialect{Tool: InferencePerf, Stated: true, Rules: rules}
		for _, fig := range figs {
			d.Figures = append(d.Figures, DialectFigure{Figure: fig})
		}
		return d, nil
	}
	return f, nil
}

// numbersOf returns every number of a JSON document, under its path (keys
// joined by dots, array elements by their index in brackets), in document
// order.
func numbersOf(b []byte) ([]Figure, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var figs []Figure
	// path holds the key or index of each open container's current
	// element; an object's entry is "" until its key is read.
	type frame struct {
		object bool
		key    string
		index  int
	}
	var stack []frame
	name := func() string {
		var sb strings.Builder
		for i, fr := range stack {
			switch {
			case fr.object && i > 0:
				sb.WriteString("." + fr.key)
			case fr.object:
				sb.WriteString(fr.key)
			default:
				sb.WriteString("[" + strconv.Itoa(fr.index) + "]")
			}
		}
		return sb.String()
	}
	// next moves the innermost container past a value.
	next := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].key = ""
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return figs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key == "" {
			if k, ok := tok.(string); ok {
				stack[n-1].key = k
				continue
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				stack = append(stack, frame{object: v == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case json.Number:
			x, err := v.Float64()
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", llmmetrics.ErrSyntax, name(), err)
			}
			figs = append(figs, Figure{name(), x})
		}
		next()
	}
}

// stageFigures gathers a stage report's figures into st, and keeps the
// first that is not a finite, non-negative number as err.
type stageFigures struct {
	st  *Stage
	err error
}

// set takes the figure v (when the report holds it) times scale; a scale
// of 1000 takes seconds to milliseconds.
func (c *stageFigures) set(name string, v *float64, scale float64) {
	if v == nil || c.err != nil {
		return
	}
	if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 {
		c.err = &FieldError{Tool: InferencePerf, Field: name, Offset: -1, Err: fmt.Errorf("%w: %v", llmmetrics.ErrNonFinite, *v)}
		return
	}
	if scale == 1000 {
		// Seconds to milliseconds through whole nanoseconds, as a
		// duration would hold them: 0.0397 s is 39.7 ms, not
		// 39.699999999999996.
		c.st.Figures[name] = math.Round(*v*1e9) / 1e6
		return
	}
	c.st.Figures[name] = *v * scale
}

// dist takes a latency distribution's p50, p90, p95, p99 and mean, in
// milliseconds, when the report holds it.
func (c *stageFigures) dist(name string, d *stageDist) {
	if d == nil {
		return
	}
	c.set(name+" p50", d.Median, 1000)
	c.set(name+" p90", d.P90, 1000)
	c.set(name+" p95", d.P95, 1000)
	c.set(name+" p99", d.P99, 1000)
	c.set(name+" mean", d.Mean, 1000)
}
