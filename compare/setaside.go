package compare

import (
	"fmt"
	"strconv"

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

// requestsJSON is a run's records as JSON: {"name", "offered",
// "rejected"}, or, for a run known by figures alone (s nil), its counts
// null and "absent" saying why.
func requestsJSON(name string, s *llmmetrics.Summary) object {
	if s == nil {
		return object{{"name", name}, {"offered", nil}, {"rejected", nil},
			{"absent", "the run is known by figures alone, not by its records"}}
	}
	return object{{"name", name}, {"offered", s.Requests.Offered}, {"rejected", s.Requests.Rejected}}
}

// sideOf returns the names DiffOptions gave the runs of side "A" or
// "B", and their summaries.
func (d *Diff) sideOf(side string) ([]string, []*llmmetrics.Summary) {
	if side == "A" {
		return d.NamesA, d.SummariesA
	}
	return d.NamesB, d.SummariesB
}

// runName names run i (from 0) of side "A" or "B" for a line that speaks
// of it: "B run 1", and then its name where DiffOptions gave one ("B run
// 1 (b.jsonl)"), so that the line can be told from the others of its
// side and read against the lines that number the runs.
func (d *Diff) runName(side string, i int) string {
	names, _ := d.sideOf(side)
	return side + " run " + runLabel(i+1, names)
}

// runLabel is run k's number (from 1), then its name in parentheses where
// names gives one: "2 (b2.jsonl)", or "2".
func runLabel(k int, names []string) string {
	if k <= len(names) {
		return strconv.Itoa(k) + " (" + names[k-1] + ")"
	}
	return strconv.Itoa(k)
}

// requestsOf is requestsJSON of each run of side "A" or "B", named as
// DiffOptions name it, or "B run 1" where they do not.
func (d *Diff) requestsOf(side string) []object {
	names, sums := d.sideOf(side)
	out := make([]object, len(sums))
	for i, s := range sums {
		name := fmt.Sprintf("%s run %d", side, i+1)
		if names != nil {
			name = names[i]
		}
		out[i] = requestsJSON(name, s)
	}
	return out
}

// setAside says, for each run with records rejected as invalid, how many
// of its records were: "SET ASIDE: B run 1 (b.jsonl): 1 of 31 records
// were rejected as invalid; …". WriteTable prints these lines above the
// table.
func (d *Diff) setAside() []string {
	var out []string
	for _, side := range []string{"A", "B"} {
		_, sums := d.sideOf(side)
		for i, s := range sums {
			if line := setAsideLine(d.runName(side, i), s); line != "" {
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

// requests is requestsJSON of each run of the level, by its name.
func (lv *SweepLevel) requests() []object {
	out := make([]object, len(lv.Summaries))
	for i, s := range lv.Summaries {
		out[i] = requestsJSON(lv.Names[i], s)
		if i < len(lv.absent) && len(lv.absent[i]) > 0 {
			out[i] = append(out[i], field{"absent_figures", lv.absent[i]})
		}
	}
	return out
}
