package observe

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/llmmetrics/llmmetrics"
)

// Run returns the results as a run, every record in Records. A successful
// record whose server reported no output token count has Record.NoUsage
// set: it keeps its TTFT, E2E and chunk gaps, and is left out of TPOT and
// the token rates, counted by llmmetrics' Accounting.Uncounted (a chunk
// count is never taken for its n).
func Run(results []*Result) *llmmetrics.Run {
	run := &llmmetrics.Run{Records: make([]llmmetrics.Record, 0, len(results))}
	for _, r := range results {
		run.Records = append(run.Records, r.Record)
	}
	return run
}

// WriteJSONL writes the results' records in llmmetrics' JSONL format, in
// order. A successful record whose server reported no usage is written
// without completion_tokens, which reads back as Record.NoUsage.
func WriteJSONL(w io.Writer, results []*Result) error {
	recs := make([]llmmetrics.Record, len(results))
	for i, r := range results {
		recs[i] = r.Record
	}
	return llmmetrics.WriteJSONL(w, recs)
}

// WriteTimings writes, one JSON line per result that carried them, the
// server timings found in the streams, in the timings format the server
// module reads (server.ParseTimingsLine), so that
// llmmetrics server --records R --timings T decomposes the TTFT of a run
// this package took: vLLM's per-request metrics object (server flag
// --enable-per-request-metrics), llama.cpp's timings and Ollama's final
// line as they came; Groq's x_groq.usage (queue_time, prompt_time, completion_time, in
// seconds) as reported queue, prefill and decode times. It returns how many
// lines it wrote.
func WriteTimings(w io.Writer, results []*Result) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	for _, r := range results {
		source, timings, ok := serverTimings(r)
		if !ok {
			continue
		}
		line, err := json.Marshal(struct {
			ID      string          `json:"id"`
			Source  string          `json:"source"`
			Timings json.RawMessage `json:"timings"`
		}{r.Record.ID, source, timings})
		if err != nil {
			return n, err
		}
		bw.Write(line)
		bw.WriteByte('\n')
		n++
	}
	return n, bw.Flush()
}

// serverTimings converts a result's timings to a source the server module
// reads.
func serverTimings(r *Result) (string, json.RawMessage, bool) {
	switch r.TimingsSource {
	case "vllm", "llama.cpp", "ollama":
		return r.TimingsSource, r.Timings, true
	case "groq":
		var g struct {
			Queue      *float64 `json:"queue_time"`
			Prompt     *float64 `json:"prompt_time"`
			Completion *float64 `json:"completion_time"`
		}
		if json.Unmarshal(r.Timings, &g) != nil {
			return "", nil, false
		}
		ms := func(s *float64) *float64 {
			if s == nil {
				return nil
			}
			v := *s * 1000
			return &v
		}
		b, err := json.Marshal(struct {
			Queue   *float64 `json:"queue_ms,omitempty"`
			Prefill *float64 `json:"prefill_ms,omitempty"`
			Decode  *float64 `json:"decode_ms,omitempty"`
		}{ms(g.Queue), ms(g.Prompt), ms(g.Completion)})
		return "reported", b, err == nil
	}
	return "", nil, false
}
