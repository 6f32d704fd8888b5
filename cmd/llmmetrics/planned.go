package main

import (
	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
)

// sessionsUnplanned is why a run of --sessions has no planned count.
const sessionsUnplanned = "a run of --sessions sends at most (sessions + warm-up sessions) × turns requests: a session ends at its first failed turn"

// durationUnplanned is why a run of a --duration has no planned count.
const durationUnplanned = "a run of a --duration plans a time, not a number of requests: as many are sent as the time allows"

// planRequests sets the end line's planned requests: every request the
// run planned to send, each of which the file holds a record of once it
// is sent. They are the preflight requests sent before the load (the
// test request, or the one or two sizing requests: the second is sent
// only when the first cannot size the prompts alone), the warm-up (its
// count; for a warm-up by duration or by rule, which decide their number
// as they go, the requests it sent), and the measured requests. A
// completed run has written exactly its planned requests. A run of a
// --duration plans no count: Planned is absent, with the reason. out is
// nil when the run stopped before its load.
func planRequests(end *llmmetrics.RunEnd, p drive.Plan, preflight int, out *drive.Outcome) {
	if p.Sessions > 0 {
		// A session ends at its first failed turn: its count is at most
		// Sessions × Turns, not a plan.
		end.Planned = 0
		end.Absent = map[string]string{"planned": sessionsUnplanned}
		return
	}
	if p.Requests == 0 {
		end.Planned = 0
		end.Absent = map[string]string{"planned": durationUnplanned}
		return
	}
	warm := p.Warmup.Requests
	if p.Warmup.Auto || p.Warmup.Duration > 0 {
		warm = 0
		if out != nil {
			for _, res := range out.Results {
				if res.Record.Warmup {
					warm++
				}
			}
		}
	}
	end.Planned = preflight + warm + p.Requests
}
