package formats

import (
	"errors"
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// ErrUnsupported means a dialect was asked for a choice its tool does not
// offer: a percentile set where the tool reports a fixed one, an SLO where
// it has no goodput, or a kind of limit its goodput does not know.
var ErrUnsupported = errors.New("formats: the tool offers no such choice")

// DialectOptions are the choices a tool lets its user make about its own
// summary. The zero DialectOptions asks for the summary the file holds.
type DialectOptions struct {
	// Percentiles replaces the percentiles the file reports, for a tool that
	// lets its user choose them (vLLM's --metric-percentiles).
	Percentiles []float64
	// SLO computes the tool's goodput against these limits, for a tool that
	// has goodput (vLLM's and AIPerf's --goodput), with the tool's rules.
	SLO *llmmetrics.SLO
}

func (o DialectOptions) zero() bool { return o.Percentiles == nil && o.SLO == nil }

// DialectWith computes the tool's own summary as Dialect does, with the
// choices the tool offers its user. A choice the tool does not offer is an
// error wrapping ErrUnsupported that says so.
func (f *File) DialectWith(opt DialectOptions) (*Dialect, error) {
	if f.dialect == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoRecords, f.Tool)
	}
	if opt.zero() {
		return f.dialect()
	}
	if f.dialectWith == nil {
		what := "percentiles"
		if opt.Percentiles == nil {
			what = "an SLO"
		}
		return nil, fmt.Errorf("%w: %s's summary has no choice of %s: %s", ErrUnsupported, toolName(f.Tool), what, toolOf(f.Tool).choices)
	}
	return f.dialectWith(opt)
}

// checkSLOKeys refuses limits a tool's goodput does not know: max_gap for
// every tool here, and strict limits, since their limits are inclusive.
func checkSLOKeys(tool Tool, slo *llmmetrics.SLO) error {
	if slo.MaxGap > 0 {
		return fmt.Errorf("%w: %s's goodput has no limit on the largest gap (max_gap)", ErrUnsupported, toolName(tool))
	}
	if slo.Strict {
		return fmt.Errorf("%w: %s's goodput limits are inclusive (a value at the limit meets it); strict limits are llmmetrics' own", ErrUnsupported, toolName(tool))
	}
	return nil
}
