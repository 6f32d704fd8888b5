package conformance

import "time"

// Version is the version of the case set. It changes whenever a case is
// added, removed, or its inputs or expected figures change; a tool's
// answers name the version they were computed for.
const Version = "3"

// A Case is one input run, the options to summarize it with, the figures
// the specification gives for it, and the trap it tests.
type Case struct {
	ID string `json:"id"`
	// Trap is one sentence: the mistake the case catches.
	Trap string `json:"trap"`
	// Section names the part of the specification that settles it.
	Section string `json:"section"`
	// Arithmetic shows how the expected figures follow from the inputs
	// (for the generated cases: the reference that computed them).
	Arithmetic string    `json:"arithmetic"`
	Options    Options   `json:"options"`
	Requests   []Request `json:"requests"`
	// Expected holds the figures the specification gives. Only these are
	// compared; a figure of Absent value must be absent, not 0.
	Expected Figures `json:"expected"`
}

// Options are how a case is summarized.
type Options struct {
	// Method is the percentile method: "nearest-rank" (the value at rank
	// ⌈p·N/100⌉ of the sorted sample) or "linear" (interpolation at
	// (N − 1)·p/100, numpy's default).
	Method      string    `json:"method"`
	Percentiles []float64 `json:"percentiles"`
	// SLO, when set, asks for goodput against it.
	SLO *SLO `json:"slo,omitempty"`
	// Window is the declared window for rates; 0 means the window runs
	// from the first send of a measured request to the last text chunk of
	// an ok request (a measured request is any but warm-up; the text of a
	// failed request does not end the window).
	Window time.Duration `json:"window_ns,omitempty"`
	// WarmupRequests marks the first N requests in send order warm-up.
	WarmupRequests int `json:"warmup_requests,omitempty"`
}

// An SLO sets per-request limits, judged jointly on each request; a zero
// limit is no limit. A limit is met at or below it, or, with Strict, only
// below it.
type SLO struct {
	TTFT   time.Duration `json:"ttft_ns,omitempty"`
	TPOT   time.Duration `json:"tpot_ns,omitempty"`
	E2E    time.Duration `json:"e2e_ns,omitempty"`
	MaxGap time.Duration `json:"max_gap_ns,omitempty"`
	Strict bool          `json:"strict,omitempty"`
}

// A Request is one request as a streaming client saw it: every event of
// its stream, not only the text-bearing ones, so that a tool reading
// role-only deltas, usage frames or [DONE] is tested on them. All times
// are nanoseconds from the run's epoch.
type Request struct {
	ID string `json:"id"`
	// Run numbers the run the request belongs to, when a case pools
	// several (0 otherwise).
	Run int `json:"run,omitempty"`
	// Status is ok, error, timeout or cancelled.
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	Warmup  bool   `json:"warmup,omitempty"`
	// Start is when the client began the call, before any wait for a
	// connection; Sent is when the request was written. They are equal
	// unless the client waited.
	Start  time.Duration `json:"start_ns"`
	Sent   time.Duration `json:"sent_ns"`
	Events []Event       `json:"events,omitempty"`
	// PromptTokens and CompletionTokens are the server's usage; nil when
	// the stream carried no usage.
	PromptTokens     *int `json:"prompt_tokens,omitempty"`
	CompletionTokens *int `json:"completion_tokens,omitempty"`
	MaxTokens        int  `json:"max_tokens,omitempty"`
}

// An Event is one streamed event, at its arrival time from the run's
// epoch.
type Event struct {
	At time.Duration `json:"t_ns"`
	// Kind is "role" (a delta with only the role), "text" (a delta with
	// output text), "empty" (a delta whose text is empty), "usage" (the
	// usage frame) or "done" ([DONE]).
	Kind string `json:"kind"`
	// Tokens is how many tokens a text event carried, where the server
	// said (0: not said).
	Tokens int `json:"tokens,omitempty"`
}

// The event kinds.
const (
	KindRole  = "role"
	KindText  = "text"
	KindEmpty = "empty"
	KindUsage = "usage"
	KindDone  = "done"
)

// TextTimes returns the arrival times of the request's text events, from
// the run's epoch.
func (r *Request) TextTimes() []time.Duration {
	var ts []time.Duration
	for _, e := range r.Events {
		if e.Kind == KindText {
			ts = append(ts, e.At)
		}
	}
	return ts
}
