package compare

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// setAsideLine says how many of a run's records were rejected as
// invalid, or "" when none were. Every record of a run ends in one
// counted category of its summary (llmmetrics.Accounting); those rejected
// (with Options.Lenient, or another tool's invalid requests) are counted,
// never measured, and move nothing but the error rate's denominator, so
// a comparison says their number of each run that has any, as report
// does, rather than leave it to be inferred.
func setAsideLine(run string, s *llmmetrics.Summary) string {
	if s == nil || s.Requests.Rejected == 0 {
		return ""
	}
	return fmt.Sprintf("SET ASIDE: %s: %d of %d records were rejected as invalid; they are counted, never measured (report on its file gives the reasons)",
		run, s.Requests.Rejected, s.Requests.Offered)
}

// requestsJSON is a run's records as JSON: {"offered", "rejected"}, or
// null for a run known by figures alone (nil).
func requestsJSON(s *llmmetrics.Summary) any {
	if s == nil {
		return nil
	}
	return object{{"offered", s.Requests.Offered}, {"rejected", s.Requests.Rejected}}
}

// requestsOf is requestsJSON of each summary.
func requestsOf(sums []*llmmetrics.Summary) []any {
	out := make([]any, len(sums))
	for i, s := range sums {
		out[i] = requestsJSON(s)
	}
	return out
}

// setAside says, for each run with records rejected as invalid, how many
// of its records were: "SET ASIDE: B run 1: 1 of 31 records were
// rejected as invalid; …". WriteTable prints these lines above the table.
func (d *Diff) setAside() []string {
	var out []string
	for _, side := range []struct {
		name string
		sums []*llmmetrics.Summary
	}{{"A", d.SummariesA}, {"B", d.SummariesB}} {
		for i, s := range side.sums {
			if line := setAsideLine(fmt.Sprintf("%s run %d", side.name, i+1), s); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

// setAside says, for each run with records rejected as invalid, how many
// of its records were, naming the run and its level: "SET ASIDE: b.jsonl
// (concurrency 4): 1 of 31 records were rejected as invalid; …".
// WriteTable prints these lines above the table.
func (sw *Sweep) setAside() []string {
	var out []string
	for _, lv := range sw.Levels {
		for i, s := range lv.Summaries {
			if line := setAsideLine(fmt.Sprintf("%s (%s %g)", lv.Names[i], sw.Kind, lv.Level), s); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}
