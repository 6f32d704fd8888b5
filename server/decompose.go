package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Timings are the per-request timings a server reported for one request,
// as that server defines them. A nil field is unknown: it was not reported,
// and nothing is put in its place.
type Timings struct {
	Source string // "vllm", "llama.cpp" or "ollama"
	// Queue is the time from the request's arrival (or first queueing) to
	// its first scheduling.
	Queue *time.Duration
	// Prefill is the time from first scheduling to the first new token:
	// the prefill pass over the prompt, which already produces token 1, and
	// the sampling of it.
	Prefill *time.Duration
	// ServerTTFT is the server's own time to first token, from the
	// request's arrival, when the server reports it as such.
	ServerTTFT *time.Duration
	// Decode is the time from the first new token to the last.
	Decode *time.Duration
	// Derived says ServerTTFT was not reported but is the sum of Queue and
	// Prefill, which the source defines to cover it (vLLM).
	Derived bool
}

// ParseVLLMMetrics reads the per-request metrics object vLLM attaches to a
// response (server flag --enable-per-request-metrics; on the final usage
// chunk of a stream): queue_time_ms, time_to_first_token_ms (from
// scheduling, so queueing excluded) and generation_time_ms. Its server TTFT
// is derived as queue + scheduled-to-first-token.
func ParseVLLMMetrics(obj []byte) (Timings, error) {
	var m struct {
		Queue *float64 `json:"queue_time_ms"`
		TTFT  *float64 `json:"time_to_first_token_ms"`
		Gen   *float64 `json:"generation_time_ms"`
	}
	if err := json.Unmarshal(obj, &m); err != nil {
		return Timings{}, fmt.Errorf("server: vLLM metrics object: %w", err)
	}
	t := Timings{Source: "vllm", Queue: ms(m.Queue), Prefill: ms(m.TTFT), Decode: ms(m.Gen)}
	if t.Queue != nil && t.Prefill != nil {
		s := *t.Queue + *t.Prefill
		t.ServerTTFT, t.Derived = &s, true
	}
	return t, nil
}

// ParseLlamaCppTimings reads llama.cpp's timings object: prompt_ms (the
// prompt's prefill) and predicted_ms (generation). llama.cpp reports no
// queue time and no TTFT of its own.
func ParseLlamaCppTimings(obj []byte) (Timings, error) {
	var m struct {
		Prompt    *float64 `json:"prompt_ms"`
		Predicted *float64 `json:"predicted_ms"`
	}
	if err := json.Unmarshal(obj, &m); err != nil {
		return Timings{}, fmt.Errorf("server: llama.cpp timings: %w", err)
	}
	return Timings{Source: "llama.cpp", Prefill: ms(m.Prompt), Decode: ms(m.Predicted)}, nil
}

// ParseOllamaMetrics reads the durations on Ollama's final response (done:
// true), in nanoseconds: prompt_eval_duration (prefill) and eval_duration
// (generation). Ollama leaves a zero duration out, so an absent field is
// unknown here, not 0.
func ParseOllamaMetrics(obj []byte) (Timings, error) {
	var m struct {
		PromptEval *int64 `json:"prompt_eval_duration"`
		Eval       *int64 `json:"eval_duration"`
	}
	if err := json.Unmarshal(obj, &m); err != nil {
		return Timings{}, fmt.Errorf("server: Ollama response: %w", err)
	}
	ns := func(p *int64) *time.Duration {
		if p == nil {
			return nil
		}
		d := time.Duration(*p)
		return &d
	}
	return Timings{Source: "ollama", Prefill: ns(m.PromptEval), Decode: ns(m.Eval)}, nil
}

func ms(p *float64) *time.Duration {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	d := time.Duration(math.Round(*p * 1e6))
	return &d
}

// A Decomposition splits one request's client TTFT into the parts the
// server's timings explain. A nil part is unknown.
//
//	client TTFT = queue + prefill + residual + client overhead
//
// Prefill already produces the first token: there is no separate first
// decode pass. The residual is what the server's TTFT holds beyond queue
// and prefill — sampling and detokenization of token 1 and scheduling
// overhead — and is known only when the server reports its TTFT, queue and
// prefill apart; a negative residual (the parts overlap or the clocks
// differ) is clamped to 0 and flagged. The client overhead (client TTFT −
// server TTFT) is the network, the HTTP server and the client.
type Decomposition struct {
	ID             string
	PromptTokens   int
	ClientTTFT     time.Duration
	Queue          *time.Duration
	Prefill        *time.Duration
	Residual       *time.Duration
	ClientOverhead *time.Duration
	Clamped        bool // the residual was negative and was set to 0
}

// Decompose decomposes the client TTFT of a successful record with the
// server's timings for the same request. It returns llmmetrics.ErrNoText
// for a record without text.
func Decompose(r *llmmetrics.Record, t Timings) (Decomposition, error) {
	ttft, err := r.TTFT()
	if err != nil {
		return Decomposition{}, err
	}
	d := Decomposition{ID: r.ID, PromptTokens: r.PromptTokens, ClientTTFT: ttft, Queue: t.Queue, Prefill: t.Prefill}
	if t.ServerTTFT != nil {
		o := ttft - *t.ServerTTFT
		d.ClientOverhead = &o
		if !t.Derived && t.Queue != nil && t.Prefill != nil {
			res := *t.ServerTTFT - *t.Queue - *t.Prefill
			if res < 0 {
				res, d.Clamped = 0, true
			}
			d.Residual = &res
		}
	}
	return d, nil
}

// A Component summarizes one part of the decomposition over the requests
// where it is known: N of them (Unknown where it is not), with mean, min,
// max and nearest-rank percentiles.
type Component struct {
	Name    string
	N       int
	Unknown int
	Stats   *llmmetrics.Distribution // nil when N is 0
}

// A Bucket summarizes the decompositions of requests whose prompt length
// falls in (MinTokens, MaxTokens].
type Bucket struct {
	MinTokens, MaxTokens int
	Requests             int
	Clamped              int
	Components           []Component // client_ttft, queue, prefill, residual, client_overhead
}

// DecompositionPercentiles are the percentiles each component reports.
var DecompositionPercentiles = []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(95), llmmetrics.MustPercentile(99)}

// SummarizeDecompositions groups decompositions by prompt length, at the
// given bucket bounds (ascending token counts; a last bucket takes the
// rest), and summarizes each component per bucket. The per-request rows
// are the caller's, unchanged.
func SummarizeDecompositions(ds []Decomposition, bounds []int) []Bucket {
	bounds = slices.Clone(bounds)
	slices.Sort(bounds)
	edges := append(append([]int{math.MinInt}, bounds...), math.MaxInt)
	var out []Bucket
	for i := 1; i < len(edges); i++ {
		b := Bucket{MinTokens: edges[i-1], MaxTokens: edges[i]}
		parts := map[string][]time.Duration{}
		unknown := map[string]int{}
		names := []string{"client_ttft", "queue", "prefill", "residual", "client_overhead"}
		for _, d := range ds {
			if d.PromptTokens <= b.MinTokens || d.PromptTokens > b.MaxTokens {
				continue
			}
			b.Requests++
			if d.Clamped {
				b.Clamped++
			}
			vals := []*time.Duration{&d.ClientTTFT, d.Queue, d.Prefill, d.Residual, d.ClientOverhead}
			for k, v := range vals {
				if v == nil {
					unknown[names[k]]++
				} else {
					parts[names[k]] = append(parts[names[k]], *v)
				}
			}
		}
		if b.Requests == 0 {
			continue
		}
		for _, n := range names {
			c := Component{Name: n, N: len(parts[n]), Unknown: unknown[n]}
			if c.N > 0 {
				st, err := llmmetrics.Describe(parts[n], llmmetrics.NearestRank, DecompositionPercentiles...)
				if err == nil {
					c.Stats = &st
				}
			}
			b.Components = append(b.Components, c)
		}
		out = append(out, b)
	}
	return out
}

// NewCacheSalt returns a random salt for one request, so that a prefill
// measurement is not a prefix-cache hit: send it as vLLM's cache_salt
// request field, or, for a server without one, prepend it to the prompt
// (which then costs a few prompt tokens more).
func NewCacheSalt() string {
	b := make([]byte, 16)
	rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// ParseTimingsLine reads one line of a timings file, which pairs a request
// id with the raw timings its server sent:
//
//	{"id": "r1", "source": "vllm", "timings": {"queue_time_ms": 5, "time_to_first_token_ms": 40, …}}
//
// source is vllm (the per-request metrics object), llama.cpp (its timings
// object), ollama (its final response) or reported (an object of
// queue_ms, prefill_ms, server_ttft_ms and decode_ms, each reported by the
// server independently).
func ParseTimingsLine(line []byte) (string, Timings, error) {
	var l struct {
		ID      string          `json:"id"`
		Source  string          `json:"source"`
		Timings json.RawMessage `json:"timings"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return "", Timings{}, fmt.Errorf("server: timings line: %w", err)
	}
	if len(l.Timings) == 0 {
		return "", Timings{}, fmt.Errorf("server: timings line for %q has no timings", l.ID)
	}
	var t Timings
	var err error
	switch l.Source {
	case "vllm":
		t, err = ParseVLLMMetrics(l.Timings)
	case "llama.cpp":
		t, err = ParseLlamaCppTimings(l.Timings)
	case "ollama":
		t, err = ParseOllamaMetrics(l.Timings)
	case "reported":
		var raw struct {
			Queue   *float64 `json:"queue_ms"`
			Prefill *float64 `json:"prefill_ms"`
			TTFT    *float64 `json:"server_ttft_ms"`
			Decode  *float64 `json:"decode_ms"`
		}
		if err = json.Unmarshal(l.Timings, &raw); err == nil {
			t = Timings{Source: "reported", Queue: ms(raw.Queue), Prefill: ms(raw.Prefill), ServerTTFT: ms(raw.TTFT), Decode: ms(raw.Decode)}
		}
	default:
		return "", Timings{}, fmt.Errorf("server: unknown timings source %q (want vllm, llama.cpp, ollama or reported)", l.Source)
	}
	return l.ID, t, err
}

// DecomposeAll decomposes the TTFT of every successful record that has
// timings (by record id) and summarizes the decompositions by prompt
// length at the given bounds. Records without timings, and timings without
// a record, are counted as unmatched; failed and zero-token records have no
// TTFT and are left out.
func DecomposeAll(recs []llmmetrics.Record, timings map[string]Timings, bounds []int) *TTFTReport {
	rep := &TTFTReport{}
	used := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if r.Category() != llmmetrics.CategoryOK {
			continue
		}
		t, ok := timings[r.ID]
		if !ok {
			rep.Unmatched++
			continue
		}
		used[r.ID] = true
		d, err := Decompose(r, t)
		if err != nil {
			rep.Unmatched++
			continue
		}
		rep.Rows = append(rep.Rows, d)
	}
	for id := range timings {
		if !used[id] {
			rep.Unmatched++
		}
	}
	rep.Buckets = SummarizeDecompositions(rep.Rows, bounds)
	return rep
}
