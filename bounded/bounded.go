// Package bounded summarizes runs too large to hold in memory: it reads a
// run's file once a pass, holding a batch of records and a budget of
// bytes for the selection (internal/outofcore), and gives the latency
// distributions llmmetrics.Summarize gives in memory, figure for figure.
//
// It covers the TTFT, E2E and ITL (the pooled gaps between chunk
// arrivals) distributions: N, mean, standard deviation, extremes and
// percentiles by either method. It does not give the rest of a Summary:
// the accounting, TPOT, the largest gaps, the rates and goodput, the SLO,
// the workload, nor the ids of the requests at nearest-rank percentiles;
// it does not find records that repeat an id (Summarize refuses them), and
// applies no warm-up rule beyond the records' own marks.
package bounded

import (
	"io"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// DefaultBudget is the selection's budget when Options gives none.
const DefaultBudget = 256 << 20

// Options are the figures asked and the memory given.
type Options struct {
	Method      llmmetrics.Method
	Percentiles []llmmetrics.Percentile // nil: llmmetrics.DefaultPercentiles
	// Budget is the most bytes the selection holds at once, apart from a
	// batch of records; 0 is DefaultBudget.
	Budget int
}

// Latencies are the distributions of a run's ok records, each nil when
// the run has no sample of it, and what reading them cost.
type Latencies struct {
	TTFT, E2E, ITL *llmmetrics.Distribution
	Passes         int // reads of the file
	Held           int // the most bytes the selection held at once
}

// An Opener opens the run's file, once for each pass.
type Opener func() (io.ReadCloser, error)

// The samples, in the order the selection numbers them.
const (
	sampleTTFT = iota
	sampleE2E
	sampleITL
	nSamples
)

// streamed says whether an ok record's TTFT is a sample: not when its
// text of two or more counted tokens came at once, in one chunk or, with
// no chunk arrivals, with its first and last text together (as the root's
// Record.unstreamed decides).
func streamed(r *llmmetrics.Record) bool {
	counted := !r.NoUsage && len(r.Chunks) <= r.CompletionTokens
	if r.CompletionTokens < 2 || !counted {
		return true
	}
	if len(r.Chunks) > 0 {
		return len(r.Chunks) != 1
	}
	return r.FirstText != r.LastText
}

// batch holds the samples of a batch of records.
type batch struct{ vals [nSamples][]time.Duration }

// add adds the samples of a record; it returns the record's error if it
// is invalid.
func (b *batch) add(r *llmmetrics.Record) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if r.Category() != llmmetrics.CategoryOK {
		return nil
	}
	e2e, _ := r.E2E()
	b.vals[sampleE2E] = append(b.vals[sampleE2E], e2e)
	if streamed(r) {
		ttft, _ := r.TTFT()
		b.vals[sampleTTFT] = append(b.vals[sampleTTFT], ttft)
	}
	if len(r.Chunks) >= 2 {
		b.vals[sampleITL], _ = r.AppendGaps(b.vals[sampleITL])
	}
	return nil
}
