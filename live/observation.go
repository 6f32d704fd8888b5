package live

import (
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A Key is the label set a Recorder keeps figures by, the GenAI semantic
// conventions' attributes: gen_ai.operation.name ("chat",
// "text_completion"), gen_ai.provider.name, gen_ai.request.model,
// gen_ai.response.model, server.address (Endpoint) and server.port (0 when
// unknown). KeyOf makes one from a Transport's result. The Recorder makes
// every value valid UTF-8 of at most MaxLabelLength bytes before any sink
// sees it.
type Key struct {
	Operation     string
	Provider      string
	Model         string
	ResponseModel string
	Endpoint      string
	Port          int
}

// Outcome is where a record ended: llmmetrics' categories, with the ok
// requests without a usable token count (no_count) and the rejected
// (invalid) ones apart.
type Outcome string

// The outcomes. Every offered request has exactly one: they sum to the
// requests offered.
const (
	OutcomeOK        Outcome = "ok"
	OutcomeNoCount   Outcome = "no_count"
	OutcomeZeroToken Outcome = "zero_token"
	OutcomeFailed    Outcome = "failed"
	OutcomeRejected  Outcome = "rejected"
	OutcomeWarmup    Outcome = "warmup"
)

// An Observation is what one finished record contributes, computed once
// by the Recorder and handed to every Sink. Latencies are set only where
// defined: TTFT (streamed responses) and E2E for ok and no_count
// requests, TPOT for ok requests with n ≥ 2, MaxGap and Chunks (the chunk
// arrivals, read-only) for requests with two or more chunks; Duration
// for every ok, no_count and failed request whose end is known.
type Observation struct {
	Outcome Outcome
	// Status is a failed request's status: error, timeout or cancelled.
	Status llmmetrics.Status
	// ErrorType is the error.type of a failed request (see ErrorTypeOf):
	// "429", "timeout", the server's type, a transport failure's name
	// ("connection_refused"), or Other; "" otherwise.
	ErrorType string
	// Count says why a no_count request has no usable token count.
	Count llmmetrics.CountState

	TTFT, E2E, TPOT, MaxGap     time.Duration
	HasTTFT, HasTPOT, HasMaxGap bool
	// Duration is gen_ai.client.operation.duration's value: E2E for a
	// successful request, the time to the failure for a failed one.
	Duration    time.Duration
	HasDuration bool
	// Chunks are the record's chunk arrivals (from its send); their gaps
	// are the per-chunk latencies. Sinks must not keep or modify them.
	Chunks []time.Duration

	// OutputTokens and PromptTokens are the server's counts; OutputTokens
	// is 0 for a no_count request (unknown, not zero).
	OutputTokens, PromptTokens int
	// TokenBasis is true when every chunk carried one token, so its gaps
	// are inter-token latencies; false when chunks carried several (their
	// gaps are chunk gaps), or for requests with fewer than two chunks.
	TokenBasis bool
	// Overflow is true when the record's own label set was beyond the
	// recorder's limit, so that the Key handed over is the Other one.
	Overflow bool
	// Judged is true when an SLO was set and the request counts in its
	// denominator (every outcome but warm-up); Good is true when it met
	// every limit (only ok and no_count requests can).
	Judged, Good bool
}

// extra is what a record does not hold and a Transport's result does.
type extra struct {
	errorType string
	duration  time.Duration
	ended     bool // duration is known
	unary     bool // a non-streaming reply: no time to first chunk
}

// observationOf computes the observation of r, judging it against slo when not
// nil. It allocates nothing for a valid record.
func observationOf(r *llmmetrics.Record, slo *llmmetrics.SLO, x extra) Observation {
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
		o.Status = r.Status
		o.ErrorType = x.errorType
		if o.ErrorType == "" {
			o.ErrorType = statusErrorType(r.Status)
		}
		o.Duration, o.HasDuration = x.duration, x.ended
		return o
	case llmmetrics.CategoryZeroToken:
		o.Outcome = OutcomeZeroToken
		o.PromptTokens = r.PromptTokens
		return o
	}
	o.Outcome = OutcomeOK
	o.PromptTokens = r.PromptTokens
	if o.Count = r.CountState(); o.Count != llmmetrics.CountKnown {
		o.Outcome = OutcomeNoCount
	} else {
		o.OutputTokens = r.CompletionTokens
	}
	o.TTFT, _ = r.TTFT()
	o.E2E, _ = r.E2E()
	o.HasTTFT = !x.unary
	o.Duration, o.HasDuration = o.E2E, true
	if o.OutputTokens >= 2 { // TPOT's error for fewer would allocate
		if tpot, err := r.TPOT(); err == nil {
			o.TPOT, o.HasTPOT = tpot, true
		}
	}
	if len(r.Chunks) >= 2 {
		o.Chunks = r.Chunks
		o.MaxGap, _ = r.MaxGap()
		o.HasMaxGap = true
		if b, err := r.GapBasis(); err == nil && b == llmmetrics.BasisToken && o.Outcome == OutcomeOK {
			o.TokenBasis = true
		}
	}
	if slo != nil {
		o.Good, _ = slo.Meets(r)
	}
	return o
}

// statusErrorTypes are the error types of failures known by their status
// alone, whose series are exported from a label set's start.
var statusErrorTypes = []string{Other, "timeout", "cancelled"}

// statusErrorType is the error.type of a failed record known only by
// its status.
func statusErrorType(s llmmetrics.Status) string {
	switch s {
	case llmmetrics.StatusTimeout:
		return "timeout"
	case llmmetrics.StatusCancelled:
		return "cancelled"
	}
	return Other
}
