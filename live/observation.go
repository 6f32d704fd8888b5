package live

import (
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A Key is the label set a Recorder keeps figures by: the GenAI
// conventions' gen_ai.operation.name ("chat", "text_completion"),
// gen_ai.provider.name and gen_ai.request.model, and the endpoint
// (server.address).
type Key struct {
	Operation string
	Provider  string
	Model     string
	Endpoint  string
}

// Outcome is where a record ended: llmmetrics' categories, with rejected
// (invalid) apart.
type Outcome string

// The outcomes.
const (
	OutcomeOK        Outcome = "ok"
	OutcomeZeroToken Outcome = "zero_token"
	OutcomeFailed    Outcome = "failed"
	OutcomeRejected  Outcome = "rejected"
	OutcomeWarmup    Outcome = "warmup"
)

// An Observation is what one finished record contributes, computed once
// by the Recorder and handed to every Sink. Latencies are set only where
// defined: TTFT and E2E for ok requests, TPOT for ok requests with n ≥ 2,
// MaxGap and Gaps (the chunk arrivals, read-only) for ok requests with two
// or more chunks.
type Observation struct {
	Outcome Outcome
	// ErrorType is the GenAI error.type of a failed request: "error",
	// "timeout" or "cancelled"; "" otherwise.
	ErrorType string

	TTFT, E2E, TPOT, MaxGap     time.Duration
	HasTTFT, HasTPOT, HasMaxGap bool
	// Chunks are the record's chunk arrivals (from its send); their gaps
	// are the per-chunk latencies. Sinks must not keep or modify them.
	Chunks []time.Duration

	OutputTokens, PromptTokens int
	// TokenBasis is true when every chunk carried one token, so its gaps
	// are inter-token latencies; false when chunks carried several (their
	// gaps are chunk gaps), or for requests with fewer than two chunks.
	TokenBasis bool
	// Judged is true when an SLO was set and the request counts in its
	// denominator (every outcome but warm-up); Good is true when it met
	// every limit (only ok requests can).
	Judged, Good bool
}

// observe computes the observation of r, judging it against slo when not
// nil. It allocates nothing for a valid record.
func observe(r *llmmetrics.Record, slo *llmmetrics.SLO) Observation {
	var o Observation
	if r.Warmup {
		o.Outcome = OutcomeWarmup
		return o
	}
	if slo != nil {
		o.Judged = true
	}
	if r.Validate() != nil {
		o.Outcome = OutcomeRejected
		return o
	}
	switch r.Category() {
	case llmmetrics.CategoryFailed:
		o.Outcome = OutcomeFailed
		o.ErrorType = r.Status.String()
		return o
	case llmmetrics.CategoryZeroToken:
		o.Outcome = OutcomeZeroToken
		o.PromptTokens = r.PromptTokens
		return o
	}
	o.Outcome = OutcomeOK
	o.OutputTokens, o.PromptTokens = r.CompletionTokens, r.PromptTokens
	o.TTFT, _ = r.TTFT()
	o.E2E, _ = r.E2E()
	o.HasTTFT = true
	if r.CompletionTokens >= 2 { // TPOT's error for fewer would allocate
		if tpot, err := r.TPOT(); err == nil {
			o.TPOT, o.HasTPOT = tpot, true
		}
	}
	if len(r.Chunks) >= 2 {
		o.Chunks = r.Chunks
		o.MaxGap, _ = r.MaxGap()
		o.HasMaxGap = true
		if b, err := r.GapBasis(); err == nil && b == llmmetrics.BasisToken {
			o.TokenBasis = true
		}
	}
	if slo != nil {
		o.Good, _ = slo.Meets(r)
	}
	return o
}
