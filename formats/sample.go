package formats

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics/internal/plural"
)

// A Sample says that a file keeps only some of its run's requests, as a
// GuideLLM file with request_samples does: its own figures cover all Of
// requests, its request lists only Kept of them. Figures recomputed from
// the records describe the sample, and rates over the run's window cannot
// be: they would count only the kept requests.
type Sample struct {
	Kept, Of int
	Detail   string // per group, in the tool's words: "1 of 46 successful, 0 of 1 incomplete"
}

// String says how many requests the sample keeps: "1 of 47 requests".
func (s *Sample) String() string {
	return fmt.Sprintf("%d of %s", s.Kept, plural.Of(s.Of, "request"))
}

// RatesAbsent is why a rate over the window is no figure of a sampled
// file.
func (s *Sample) RatesAbsent() string {
	return fmt.Sprintf("the file keeps %s as a sample: rates over the window would count only those", s)
}
