package main

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/observe"
)

// closedStreamsNote counts the measured requests recorded ok whose stream
// ended with neither a finish reason nor [DONE] (observe.EndClose: the
// server closed it cleanly, which may have cut the reply short), and says
// so in a sentence for the end line's notes; "" when none did.
func closedStreamsNote(results []*observe.Result) string {
	n, first := 0, ""
	for _, res := range results {
		rec := &res.Record
		if rec.Warmup || rec.Preflight || rec.Status != llmmetrics.StatusOK || res.End != observe.EndClose {
			continue
		}
		if n == 0 {
			first = rec.ID
		}
		n++
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s counted ok ended without a finish reason or [DONE] (the server closed the stream; the first: %s): a reply may have been cut short.",
		plural.Of(n, "measured request"), first)
}
