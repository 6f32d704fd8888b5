package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// genaiperfRequest is one request of perf_analyzer's profile_export.json.
type genaiperfRequest struct {
	Timestamp          *int64            `json:"timestamp"`
	ResponseTimestamps []int64           `json:"response_timestamps"`
	ResponseOutputs    []json.RawMessage `json:"response_outputs"`

	kept             []int64 // timestamps of the responses GenAI-Perf keeps
	prompt, complete int     // usage, when a response carried it
	hasUsage         bool
}

type genaiperfFile struct {
	serviceKind string
	reqs        []*genaiperfRequest
}

// ReadGenAIPerf reads perf_analyzer's profile_export.json, the raw data
// GenAI-Perf summarizes: per request the request timestamp, the response
// timestamps and the raw responses, in ns. It reads the first experiment.
//
// A response counts as text-bearing as GenAI-Perf decides it: after
// removing SSE framing, a response is kept when its content is not empty —
// the chat delta's content, the completion's text, or Triton's text_output.
// Role-only, usage-only and [DONE] events are removed. The token count n
// comes from server usage in the stream; GenAI-Perf itself re-tokenizes the
// text, which this package cannot do, so a request without usage is set
// aside as rejected with that reason.
func ReadGenAIPerf(r io.Reader) (*File, error) {
	var doc struct {
		ServiceKind string `json:"service_kind"`
		Experiments []struct {
			Requests []*genaiperfRequest `json:"requests"`
		} `json:"experiments"`
	}
	if err := decodeDocument(GenAIPerf, r, &doc); err != nil {
		return nil, err
	}
	if len(doc.Experiments) == 0 {
		return nil, &FieldError{Tool: GenAIPerf, Field: "experiments", Offset: -1, Err: fmt.Errorf("%w: no experiments (%w)", llmmetrics.ErrMissingField, ErrFormat)}
	}
	g := &genaiperfFile{serviceKind: doc.ServiceKind, reqs: doc.Experiments[0].Requests}
	t0 := int64(math.MaxInt64)
	for _, q := range g.reqs {
		if q.Timestamp != nil {
			t0 = min(t0, *q.Timestamp)
		}
	}
	for i, q := range g.reqs {
		field := fmt.Sprintf("experiments[0].requests[%d]", i)
		fail := func(field string, err error) (*File, error) {
			return nil, &FieldError{Tool: GenAIPerf, Request: i + 1, Field: field, Offset: -1, Err: err}
		}
		if q.Timestamp == nil {
			return fail(field+".timestamp", llmmetrics.ErrMissingField)
		}
		if len(q.ResponseTimestamps) != len(q.ResponseOutputs) {
			return fail(field+".response_outputs", fmt.Errorf("%w: %d outputs for %d timestamps", ErrLength, len(q.ResponseOutputs), len(q.ResponseTimestamps)))
		}
		// Times are integer nanoseconds; taken from the run's first send,
		// they must stay within llmmetrics' range (no overflow).
		if err := checkTime((float64(*q.Timestamp) - float64(t0)) / 1e9); err != nil {
			return fail(field+".timestamp", err)
		}
		for k, ts := range q.ResponseTimestamps {
			if err := checkTime((float64(ts) - float64(*q.Timestamp)) / 1e9); err != nil {
				return fail(fmt.Sprintf("%s.response_timestamps[%d]", field, k), err)
			}
		}
		for k, out := range q.ResponseOutputs {
			text, usage, err := genaiperfResponse(out)
			if err != nil {
				return fail(fmt.Sprintf("%s.response_outputs[%d]", field, k), err)
			}
			if usage != nil {
				for _, c := range []struct {
					name string
					n    int
				}{{"prompt_tokens", usage.Prompt}, {"completion_tokens", usage.Completion}} {
					if err := checkCount(float64(c.n)); err != nil {
						return fail(fmt.Sprintf("%s.response_outputs[%d].usage.%s", field, k, c.name), err)
					}
				}
				q.prompt, q.complete, q.hasUsage = usage.Prompt, usage.Completion, true
			}
			if text != "" {
				q.kept = append(q.kept, q.ResponseTimestamps[k])
			}
		}
	}
	f := &File{Tool: GenAIPerf, Layout: "perf_analyzer profile_export.json"}
	if len(doc.Experiments) > 1 {
		f.Notes = append(f.Notes, fmt.Sprintf("The file holds %d experiments; this is the first.", len(doc.Experiments)))
	}
	f.Notes = append(f.Notes,
		"Text-bearing responses are decided as GenAI-Perf decides them: a response is kept when its content (chat delta.content, completion text, or Triton text_output) is not empty; role-only, usage-only and [DONE] events are removed, and a request left with none is skipped by GenAI-Perf.",
		"GenAI-Perf counts tokens by re-tokenizing the text with the model's tokenizer; llmmetrics takes n from the server usage in the stream, and sets aside a request without usage.",
	)
	f.dialect = g.dialect
	f.records = g.records
	f.compare = g.compare
	return f, nil
}

type usage struct {
	Prompt     int `json:"prompt_tokens"`
	Completion int `json:"completion_tokens"`
}

// genaiperfResponse returns the text of one raw response and its usage, if
// it carries one. An OpenAI response is an SSE event ("data: {...}"); a
// Triton one an object with text_output.
func genaiperfResponse(raw json.RawMessage) (string, *usage, error) {
	var out struct {
		Response   *string `json:"response"`
		TextOutput *string `json:"text_output"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", nil, fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)
	}
	if out.TextOutput != nil {
		return *out.TextOutput, nil, nil
	}
	if out.Response == nil {
		return "", nil, nil
	}
	var text strings.Builder
	var u *usage
	for _, line := range strings.Split(*out.Response, "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		payload = strings.TrimSpace(payload)
		if !ok || payload == "" || payload == "[DONE]" {
			continue
		}
		var ev struct {
			Choices []struct {
				Delta *struct {
					Content *string `json:"content"`
				} `json:"delta"`
				Text *string `json:"text"`
			} `json:"choices"`
			Usage *usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(payload), &ev); err != nil {
			return "", nil, fmt.Errorf("%w: SSE event: %v", llmmetrics.ErrSyntax, err)
		}
		for _, c := range ev.Choices {
			if c.Delta != nil && c.Delta.Content != nil {
				text.WriteString(*c.Delta.Content)
			}
			if c.Text != nil {
				text.WriteString(*c.Text)
			}
		}
		if ev.Usage != nil {
			u = ev.Usage
		}
	}
	return text.String(), u, nil
}

// records builds llmmetrics records: a request is sent at its timestamp
// (from the earliest), its chunks are its kept responses. A request with no
// kept response and no usage failed to return text; one with usage of zero
// completion tokens is a zero-token reply; one with text but no usage is
// rejected, since its token count is unknown.
func (g *genaiperfFile) records() *llmmetrics.Run {
	run := &llmmetrics.Run{}
	t0 := int64(math.MaxInt64)
	for _, q := range g.reqs {
		t0 = min(t0, *q.Timestamp)
	}
	for i, q := range g.reqs {
		rec := llmmetrics.Record{ID: strconv.Itoa(i), Sent: time.Duration(*q.Timestamp - t0), PromptTokens: q.prompt}
		switch {
		case len(q.kept) == 0 && !q.hasUsage:
			rec.Status, rec.Message = llmmetrics.StatusError, "no text-bearing response"
		case !q.hasUsage:
			run.Reject(&llmmetrics.RecordError{Index: i, ID: rec.ID, Field: "completion_tokens",
				Err: fmt.Errorf("%w: the stream carried no usage, and GenAI-Perf's re-tokenized count is not in the file", llmmetrics.ErrMissingField)})
			continue
		default:
			rec.CompletionTokens = q.complete
			for _, ts := range q.kept {
				rec.Chunks = append(rec.Chunks, time.Duration(ts-*q.Timestamp))
			}
		}
		run.Records = append(run.Records, rec)
	}
	return run
}

// genaiperfStats are the statistics GenAI-Perf reports per metric.
var genaiperfStats = []string{"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}

// dialect computes the figures of GenAI-Perf's profile_export_genai_perf.json
// that need no tokenizer, with its formulas: per request, over requests with
// at least one kept response, request_latency (last kept response −
// request), time_to_first_token and time_to_second_token, in ms, with
// numpy's mean, population std and linear percentiles; request_throughput
// = all requests / duration, the duration running from the earliest
// request to the last kept response.
func (g *genaiperfFile) dialect() (*Dialect, error) {
	const why = "GenAI-Perf counts tokens by re-tokenizing the text with the model's tokenizer, which this package does not have"
	d := &Dialect{Tool: GenAIPerf, Rules: []string{
		"a request counts when it kept at least one response; request_throughput divides all requests, skipped ones included, by the duration",
		"request_latency ends at the last kept response; time_to_second_token is the first gap",
		"inter_token_latency is per request (request_latency − TTFT)/(tokens − 1), with re-tokenized counts: what llmmetrics calls TPOT",
		"mean, population std and numpy-linear percentiles p1…p99",
	}, Missing: map[string]string{
		"inter_token_latency": why, "output_token_throughput": why, "output_token_throughput_per_user": why,
		"output_sequence_length": why, "input_sequence_length": why,
	}}
	var lat, ttft, ttst []float64
	minReq, maxResp := int64(math.MaxInt64), int64(math.MinInt64)
	for _, q := range g.reqs {
		if len(q.kept) == 0 {
			continue
		}
		ts := *q.Timestamp
		minReq, maxResp = min(minReq, ts), max(maxResp, q.kept[len(q.kept)-1])
		lat = append(lat, float64(q.kept[len(q.kept)-1]-ts)/1e6)
		ttft = append(ttft, float64(q.kept[0]-ts)/1e6)
		if len(q.kept) > 1 {
			ttst = append(ttst, float64(q.kept[1]-q.kept[0])/1e6)
		}
	}
	add := func(key string, v float64) { d.Figures = append(d.Figures, DialectFigure{Figure: Figure{key, v}}) }
	for _, m := range []struct {
		name string
		xs   []float64
	}{{"request_latency", lat}, {"time_to_first_token", ttft}, {"time_to_second_token", ttst}} {
		if len(m.xs) == 0 {
			continue
		}
		st := describe(floats{m.xs}, 0, []float64{1, 5, 10, 25, 50, 75, 90, 95, 99})
		lo, hi := extremes(floats{m.xs})
		add(m.name+".avg", st.mean)
		add(m.name+".min", lo)
		add(m.name+".max", hi)
		add(m.name+".std", st.std)
		for i, s := range genaiperfStats[4:] {
			add(m.name+"."+s, st.pcts[i])
		}
	}
	if maxResp > minReq {
		add("request_throughput.avg", float64(len(g.reqs))/(float64(maxResp-minReq)/1e9))
	}
	return d, nil
}

// readGenAIPerfSummary reads profile_export_genai_perf.json: each metric's
// statistics become figures "<metric>.<stat>".
func readGenAIPerfSummary(r io.Reader) ([]Figure, error) {
	var doc map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, &FieldError{Tool: GenAIPerf, Offset: -1, Err: fmt.Errorf("%w: %v", llmmetrics.ErrSyntax, err)}
	}
	var figs []Figure
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		var stats map[string]any
		if json.Unmarshal(doc[k], &stats) != nil || bytes.HasPrefix(bytes.TrimSpace(doc[k]), []byte("[")) {
			continue
		}
		for _, s := range genaiperfStats {
			if v, ok := stats[s].(float64); ok {
				figs = append(figs, Figure{k + "." + s, v})
			}
		}
	}
	return figs, nil
}
