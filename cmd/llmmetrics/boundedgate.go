package main

import (
	"fmt"
	"strings"

	"github.com/llmmetrics/llmmetrics"
)

// A gate on a report summarized in bounded memory. A run file with a run
// header has a load check in memory (runloop.go), which a gate consults
// before it takes a latency or a throughput at its word: a run whose
// server fell behind, or whose sends lagged, passes no such condition.
// The bounded summary does not compute the load check, so such a
// condition cannot be judged there; error_rate and attainment, which
// count every request, are judged as ever.

// uncheckedLoad is the reason a bounded report of a file with a run header
// gives a gate: its load was not checked.
const uncheckedLoad = "the load check was not computed (the file was read in passes within --max-memory)"

// noteUnchecked marks a bounded summary of a run whose header declares a
// load, for the gate.
func (f *reportFlags) noteUnchecked(s *llmmetrics.Summary) {
	if s.Header != nil && len(s.Header.Load) > 0 {
		f.unchecked = uncheckedLoad
	}
}

// refuseUnchecked returns the error of the gate's conditions on a latency
// or a throughput when the load was not checked, or nil.
func (g *gate) refuseUnchecked(why string) error {
	if why == "" {
		return nil
	}
	var cannot []string
	for _, c := range g.conditions {
		if c.Metric != "error_rate" && c.Metric != "attainment" {
			cannot = append(cannot, c.Text)
		}
	}
	if len(cannot) == 0 {
		return nil
	}
	return fmt.Errorf("%s cannot be judged: %s, and a gate takes a latency or a throughput at its word only on a load it has checked; give a --max-memory above three times the file (twelve times for Parquet) to read it whole",
		strings.Join(cannot, ", "), why)
}
