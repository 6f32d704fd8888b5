package compare

import (
	"cmp"
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// A runFigure is a figure a run has once (not per request): a rate, the
// attainment, the error rate. The gate, the two-run comparison and the
// sweep read them from here, so that each is defined once.
type runFigure struct {
	name, unit string
	// value returns the figure, or why the summary has none.
	value func(s *llmmetrics.Summary) (v float64, absent string)
	// lower, when not nil, says why the summary's figure is only a lower
	// bound of the true one ("it counts … of the … ok requests"), or ""
	// when it is the figure itself.
	lower func(s *llmmetrics.Summary) string
	// upper, when not nil, returns the most the true figure can be where
	// the summary's is a lower bound, and whether that is known.
	upper func(s *llmmetrics.Summary) (float64, bool)
}

var runFigures = []runFigure{
	{"output_tokens_per_s", "tokens/s", func(s *llmmetrics.Summary) (float64, string) {
		if s.Throughput == nil {
			return 0, noWindow(s)
		}
		if why, absent := s.Absent["output_tokens_per_s"]; absent {
			return 0, why
		}
		return float64(s.Throughput.OutputTokensPerSecond), ""
	}, outputLowerBound, nil},
	{"prompt_tokens_per_s", "tokens/s", func(s *llmmetrics.Summary) (float64, string) {
		if s.Throughput == nil {
			return 0, noWindow(s)
		}
		if _, absent := s.Absent["prompt_tokens_per_s"]; absent {
			return 0, "no ok record carries a prompt token count"
		}
		return float64(s.Throughput.PromptTokensPerSecond), ""
	}, promptLowerBound, nil},
	{"requests_per_s", "requests/s", func(s *llmmetrics.Summary) (float64, string) {
		if s.Throughput == nil {
			return 0, noWindow(s)
		}
		return float64(s.Throughput.RequestsPerSecond), ""
	}, nil, nil},
	{"attainment", "fraction", func(s *llmmetrics.Summary) (float64, string) {
		if s.Goodput == nil {
			return 0, "attainment needs an SLO"
		}
		return s.Goodput.Attainment, ""
	}, attainmentLowerBound, attainmentUpperBound},
	{"error_rate", "fraction", func(s *llmmetrics.Summary) (float64, string) {
		// Of the measured requests: warm-up, preflight and unfinished
		// requests are counted apart, never failed nor in the rate, and
		// the rejected were never measured.
		a := s.Requests
		measured := a.Offered - a.Warmup - a.Preflight - a.Unfinished - a.Rejected
		if measured <= 0 {
			return 0, "no measured request"
		}
		return float64(a.Failed) / float64(measured), ""
	}, nil, nil},
}

// noWindow says why a summary has no throughput window.
func noWindow(s *llmmetrics.Summary) string {
	if why := s.Absent["throughput"]; why != "" {
		return "the run has no throughput window: " + why
	}
	return "the run has no throughput window"
}

// outputLowerBound says why a summary's output rate is a lower bound:
// some of its ok requests have no output token count.
func outputLowerBound(s *llmmetrics.Summary) string {
	if t := s.Throughput; t != nil && t.LowerBound() {
		return fmt.Sprintf("it counts the output tokens of %d of the %d ok requests; the others have no token count", t.CountedRequests, t.Requests)
	}
	return ""
}

// attainmentLowerBound says why a summary's attainment is a lower bound:
// some ok requests met every limit but a TPOT limit that their unknown
// token count leaves unjudged, and are not counted good.
func attainmentLowerBound(s *llmmetrics.Summary) string {
	if g := s.Goodput; g != nil && g.Unjudged > 0 {
		return fmt.Sprintf("%d ok requests met every limit but TPOT, which their unknown token count leaves unjudged, and are not counted good", g.Unjudged)
	}
	return ""
}

// attainmentUpperBound returns the most a summary's attainment can be
// when it is a lower bound: every unjudged request good.
func attainmentUpperBound(s *llmmetrics.Summary) (float64, bool) {
	g := s.Goodput
	if g == nil || g.Unjudged == 0 || g.Offered == 0 {
		return 0, false
	}
	return g.AttainmentUpper(), true
}

// promptLowerBound says why a summary's prompt rate is a lower bound:
// some of its ok requests carry no prompt token count.
func promptLowerBound(s *llmmetrics.Summary) string {
	if t := s.Throughput; t != nil && t.PromptLowerBound() {
		return fmt.Sprintf("it counts the prompt tokens of %d of the %d ok requests; the others have no prompt token count", t.PromptCountedRequests, t.Requests)
	}
	return ""
}

// runFigureNamed returns the run figure of a name.
func runFigureNamed(name string) (runFigure, bool) {
	for _, f := range runFigures {
		if f.name == name {
			return f, true
		}
	}
	return runFigure{}, false
}

// values returns the figure of every summary, or why some summary lacks
// it: a figure some runs lack is not compared.
func (f runFigure) values(sums []*llmmetrics.Summary) ([]float64, string) {
	out := make([]float64, 0, len(sums))
	for _, s := range sums {
		v, absent := f.value(s)
		if absent != "" {
			return nil, absent
		}
		out = append(out, v)
	}
	return out, ""
}

// bounds returns how many summaries' figure is only a lower bound of the
// true one, and the first one's reason; 0 and "" for a figure that is
// never a bound.
func (f runFigure) bounds(sums []*llmmetrics.Summary) (n int, why string) {
	if f.lower == nil {
		return 0, ""
	}
	for _, s := range sums {
		if w := f.lower(s); w != "" {
			n++
			why = cmp.Or(why, w)
		}
	}
	return n, why
}

// lowerBoundNote says what a lower bound's change is, for the diff's and
// the sweep's notes.
const lowerBoundNote = "the change of a lower bound is not a change of the rate"

// lowerBoundWhy says, for a figure that is a lower bound in some runs,
// what it leaves out there, and what its change then is not.
func lowerBoundWhy(name string) (leaves, note string) {
	switch name {
	case "attainment":
		return "counts the ok requests left unjudged against the TPOT limit (no usable token count) as not good",
			"the change of a lower bound is not a change of the attainment"
	case "prompt_tokens_per_s":
		return "counts only the ok requests with a prompt token count", lowerBoundNote
	}
	return "counts only the ok requests with a usable output token count", lowerBoundNote
}

// percentileFigure is a latency percentile of each run, in the metric's
// unit (milliseconds): "ttft p99" is a run's own p99 TTFT, over that
// run's requests.
func percentileFigure(m llmmetrics.Metric, p llmmetrics.Percentile) runFigure {
	return runFigure{m.Key + " " + p.Key(), m.Unit, func(s *llmmetrics.Summary) (float64, string) {
		d := m.Distribution(s)
		if d == nil {
			if why := s.Absent[m.Key]; why != "" {
				return 0, "the run has no " + m.Key + ": " + why
			}
			return 0, "the run has no " + m.Key
		}
		v, ok := d.At(p)
		if !ok {
			return 0, p.Key() + " was not computed"
		}
		return millis(v), ""
	}, nil, nil}
}
