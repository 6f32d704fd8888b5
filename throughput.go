package llmmetrics

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/inflight"
)

// OutputTokenRate is a rate of output (completion) tokens per second.
// PromptTokenRate and RequestRate are distinct types, so that an output rate
// cannot be added to a prompt rate by accident.
type OutputTokenRate float64

// PromptTokenRate is a rate of prompt tokens per second.
type PromptTokenRate float64

// RequestRate is a rate of requests per second.
type RequestRate float64

// A Window is the wall-clock interval that rates are taken over.
type Window struct {
	// Length is the window's length, always positive.
	Length time.Duration
	// Declared is true when the caller gave the length; otherwise the window
	// was derived from the records, from the first send of a measured request
	// to the last text chunk of an ok request (Start and End, on the run's
	// clock). A measured request is ok, zero-token or failed, not warm-up,
	// preflight or rejected; the text a failed request streamed does not end
	// the window.
	Declared   bool
	Start, End time.Duration
}

// String describes the window, for reports.
func (w Window) String() string {
	if w.Declared {
		return fmt.Sprintf("%v (declared)", w.Length)
	}
	return fmt.Sprintf("%v (first send → last text chunk)", w.Length)
}

// declaredWindow checks a window length given by the caller.
func declaredWindow(length time.Duration) (Window, error) {
	if length <= 0 {
		return Window{}, fmt.Errorf("%w: %v", ErrInvalidWindow, length)
	}
	return Window{Length: length, Declared: true}, nil
}

// windowBuilder derives a window from the records it is shown: the send
// times of the offered, valid records of any category are its starts
// (AddStart), the ends (send time plus last text arrival) of the records
// in CategoryOK its ends (AddEnd).
type windowBuilder struct{ inflight.Span }

func (b *windowBuilder) window() (Window, error) {
	if !b.HasEnd {
		return Window{}, fmt.Errorf("%w: no ok request received text, so the window has no end; declare one (report --window; Options.Window in Go)", ErrInvalidWindow)
	}
	w := Window{Length: b.End - b.Start, Start: b.Start, End: b.End}
	if w.Length <= 0 {
		return Window{}, fmt.Errorf("%w: the first send and the last text chunk are %v apart; declare one (report --window; Options.Window in Go)", ErrInvalidWindow, w.Length)
	}
	return w, nil
}

// Throughput holds the system rates of a run over its window. Only requests
// in CategoryOK count: failed and zero-token requests deliver no tokens and
// are not completions (as in vLLM's benchmark).
type Throughput struct {
	Window       Window
	Requests     int   // ok requests
	OutputTokens int64 // Σ completion tokens of the ok requests with a usable count
	PromptTokens int64 // Σ prompt tokens of ok requests
	// CountedRequests are the ok requests whose output token count is
	// known (Record.CountState is CountKnown): OutputTokens is their sum.
	// When it is below Requests, OutputTokens and OutputTokensPerSecond
	// cover only those and are lower bounds (LowerBound); when it is 0 and
	// Requests is not, the output rate is no figure at all:
	// Summary.Absent["output_tokens_per_s"] says why, and the outputs
	// leave it out.
	CountedRequests int
	// PromptCountedRequests are the ok requests that carry a prompt token
	// count (Record.PromptTokens above 0): PromptTokens is their sum.
	// When it is above 0 and below Requests, the prompt figures are lower
	// bounds (PromptLowerBound).
	PromptCountedRequests int

	// OutputTokensPerSecond is OutputTokens / Window.Length: a lower
	// bound when LowerBound says so, and not a figure when
	// Summary.Absent["output_tokens_per_s"] is set.
	OutputTokensPerSecond OutputTokenRate
	// PromptTokensPerSecond is PromptTokens / Window.Length: a lower bound
	// when PromptLowerBound says so. When no ok record carries a prompt
	// token count it is 0 and not a figure: Summary.Absent
	// ["prompt_tokens_per_s"] says so, and the outputs leave it out.
	PromptTokensPerSecond PromptTokenRate
	RequestsPerSecond     RequestRate // Requests / Window.Length
}

// LowerBound reports whether the output token figures leave out ok
// requests without a usable count, and so are lower bounds.
func (t *Throughput) LowerBound() bool {
	return t.CountedRequests > 0 && t.CountedRequests < t.Requests
}

// PromptLowerBound reports whether the prompt token figures leave out ok
// requests without a prompt token count, and so are lower bounds.
func (t *Throughput) PromptLowerBound() bool {
	return t.PromptCountedRequests > 0 && t.PromptCountedRequests < t.Requests
}

// throughput computes the rates of the counted totals over w; counted of
// the requests have a known output count, promptCounted a prompt count.
func throughput(w Window, requests, counted, promptCounted int, output, prompt int64) Throughput {
	s := w.Length.Seconds()
	return Throughput{
		Window:                w,
		Requests:              requests,
		CountedRequests:       counted,
		PromptCountedRequests: promptCounted,
		OutputTokens:          output,
		PromptTokens:          prompt,
		OutputTokensPerSecond: OutputTokenRate(float64(output) / s),
		PromptTokensPerSecond: PromptTokenRate(float64(prompt) / s),
		RequestsPerSecond:     RequestRate(float64(requests) / s),
	}
}
