package server

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// KnownOutput is the known-output check of a window (the specification, seed 000, §4.4):
// the server's generation_tokens delta against the completion tokens the
// client received, over the same window. They agree on a clean run; when
// they do not, one boundary is wrong, and Causes lists what could explain
// the difference in its direction.
type KnownOutput struct {
	ServerTokens   float64 // Δ generation_tokens over the window
	ClientTokens   int64   // Σ usage completion tokens of the client's records
	ServerRequests float64 // Σ Δ request_success over the window
	ClientRequests int     // the client's records that got a response (ok and zero-token)
	Failed         int     // the client's failed records
	// Uncounted counts the client's ok records without a usable token
	// count (llmmetrics.Record.CountState), left out of ClientTokens:
	// their tokens are unknown, never 0. With any, ClientTokens is a lower
	// bound, and Unknown says why the check cannot tell whether the two
	// agree, unless the server counted fewer tokens than the client's
	// known ones.
	Uncounted int
	Unknown   string
	Agree     bool
	Causes    []string
}

// CheckKnownOutput compares the window's output-token counter delta (vLLM's
// generation_tokens, or llama.cpp's llamacpp:tokens_predicted) with the
// completion tokens of the client records sent in that window. Records must
// be valid; failed records add no client tokens but are counted, since the
// server may have generated tokens for them. Warm-up records are left out:
// the window is the measured part.
func CheckKnownOutput(w *Window, recs []llmmetrics.Record) (KnownOutput, error) {
	var c Counter
	ok := false
	for _, name := range outputCounters {
		if c, ok = w.Counters[name]; ok {
			break
		}
	}
	if !ok {
		return KnownOutput{}, fmt.Errorf("%w: an output-token counter (generation_tokens, llamacpp:tokens_predicted_total)", ErrMissing)
	}
	k := KnownOutput{ServerTokens: c.Delta}
	for _, n := range w.Finished {
		k.ServerRequests += n
	}
	for i := range recs {
		r := &recs[i]
		if err := r.Validate(); err != nil {
			return KnownOutput{}, fmt.Errorf("record %d: %w", i, err)
		}
		switch r.Category() {
		case llmmetrics.CategoryWarmup:
			continue
		case llmmetrics.CategoryFailed:
			k.Failed++
			continue
		}
		k.ClientRequests++
		if r.CountState() != llmmetrics.CountKnown {
			k.Uncounted++
			continue
		}
		k.ClientTokens += int64(r.CompletionTokens)
	}
	if k.Uncounted > 0 && k.ServerTokens >= float64(k.ClientTokens) {
		k.Unknown = fmt.Sprintf("%d of the client's %d answers carry no token count (no usage, or one the chunks contradict): their tokens are unknown, so the two totals cannot be compared", k.Uncounted, k.ClientRequests)
		return k, nil
	}
	k.Agree = k.ServerTokens == float64(k.ClientTokens)
	if k.Agree {
		return k, nil
	}
	if c.Series > 1 {
		k.Causes = append(k.Causes, fmt.Sprintf("the label selector summed %d generation_tokens series: a second engine or model is under it", c.Series))
	}
	if k.Failed > 0 {
		k.Causes = append(k.Causes, fmt.Sprintf("%d client requests failed; the server may have generated tokens for them that the client never counted", k.Failed))
	}
	if k.ServerTokens > float64(k.ClientTokens) {
		k.Causes = append(k.Causes,
			"other traffic reached the server inside the window, or the window starts before the first request's tokens",
			"the client's token counts are not the server's usage (a re-tokenized or chunk count)")
	} else {
		k.Causes = append(k.Causes,
			"the second scrape came before every request finished, or the first after some had started generating",
			"a stop sequence fired and the client counted tokens the server did not report, or the counts come from another tokenizer")
	}
	if len(w.Finished) > 0 && k.ServerRequests != float64(k.ClientRequests+k.Failed) {
		// Only a server that exports a finished-request counter says how
		// many it finished: llama.cpp's does not.
		k.Causes = append(k.Causes, fmt.Sprintf("the server finished %v requests in the window, the client sent %d", k.ServerRequests, k.ClientRequests+k.Failed))
	}
	k.Causes = append(k.Causes, "a rate was taken instead of a delta somewhere in the pipeline (this check uses deltas)")
	return k, nil
}
