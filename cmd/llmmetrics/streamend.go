package main

import (
	"fmt"
	"strconv"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/plural"
	"github.com/llmmetrics/llmmetrics/observe"
)

// endedWithoutFinishKey is the end line's load fact of the measured
// requests counted ok whose stream ended with neither a finish reason nor
// [DONE]; the load check gives it in JSON. It is written when some did.
const endedWithoutFinishKey = "ended_without_finish"

// closedStreamsNote counts the measured requests recorded ok whose stream
// ended with neither a finish reason nor [DONE] (observe.EndClose: the
// server closed it cleanly, which may have cut the reply short), notes
// the count in the end line's load and says so in a sentence for its
// notes; "" when none did.
func closedStreamsNote(end *llmmetrics.RunEnd, results []*observe.Result) string {
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
	if end.Load == nil {
		end.Load = map[string]string{}
	}
	end.Load[endedWithoutFinishKey] = strconv.Itoa(n)
	return fmt.Sprintf("%s counted ok ended without a finish reason or [DONE] (the server closed the stream; the first: %s): a reply may have been cut short.",
		plural.Of(n, "measured request"), first)
}
