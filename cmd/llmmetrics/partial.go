package main

import (
	"fmt"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

// partialRun returns a warning naming a run whose file does not hold the
// whole run — interrupted, or truncated (killed before its end line, or
// cut inside a line) — as Run.Completeness says, for the commands that
// compare runs (diff, sweep): they take each run's figures as a run's,
// and a partial run's are only the part written. ok is false for a
// complete run, or one whose file says nothing of its end.
func partialRun(name string, run *llmmetrics.Run) (warning string, ok bool) {
	if run == nil {
		return "", false
	}
	c := run.Completeness()
	if c == nil || c.State == "completed" {
		return "", false
	}
	return fmt.Sprintf("%s is not a whole run: %s", name, c.Reason), true
}

// sampledRun returns a warning naming another tool's file that keeps only
// a sample of its requests (formats.File.Sample): its figures are the
// sample's, and its rates count only the kept requests.
func sampledRun(name string, file *formats.File) (warning string, ok bool) {
	if file.Sample == nil {
		return "", false
	}
	return fmt.Sprintf("%s keeps a sample of its requests, %s (%s): its figures here are the sample's, and its rates count only those", name, file.Sample, file.Sample.Detail), true
}

// noneMeasured says, in the reason of a run interrupted before any of its
// records was measured (a file of preflight or warm-up requests at
// most), that there is no figure, where the library says that the
// figures cover the requests written.
func noneMeasured(c *llmmetrics.Completeness, a llmmetrics.Accounting) {
	if c == nil || c.State != "interrupted" || a.Offered > a.Warmup+a.Preflight+a.Unfinished+a.Rejected {
		return
	}
	c.Reason = strings.Replace(c.Reason, "the figures cover only these", "none of them was measured (preflight or warm-up requests at most), so there is no figure", 1)
}
