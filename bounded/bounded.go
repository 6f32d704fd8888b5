// Package bounded summarizes runs too large to hold in memory: it reads a
// run's file once a pass, holding a batch of records and a budget of
// bytes, and gives the Summary llmmetrics.Summarize gives in memory,
// figure for figure, for what it computes.
//
// The first pass validates every record and counts: the accounting, the
// window, the token and request rates, the gap-weighted TPOT, the basis
// of the gaps, the verdicts of an SLO, and the moments of each latency
// sample (TTFT, E2E, TPOT, the pooled gaps and each request's largest
// gap), which it also counts into bins (internal/outofcore). Later passes
// copy out only the values of the bins that hold the wanted ranks, until
// each percentile is found exactly. The ids are hashed into the budget to
// find a repeated one, which Summarize refuses too: when they do not fit,
// more passes each hash a part of them. With the nearest-rank method one
// last pass names the request at each percentile, as Summarize does.
//
// Memory is the budget (Options.Budget: the bins' counts, the values
// copied out, a quarter for the id hashes) and a batch of about 1 MiB of
// lines parsed, some 15 MiB, whatever the number of records; Stats says
// how many passes it took and the most it held of the budget. 10⁶
// records of four chunks in a budget of 8 MiB take 8 passes and a heap
// peak of 13 MB (TestSummarizeBudget).
//
// SummarizeMerged does the same for the files of one run taken by several
// machines, merged as llmmetrics.MergeRuns merges them.
//
// What it does not compute is nil in the Summary, with its reason in
// Summary.Absent (NotComputed): the workload, the client's distributions
// and the strata. Without Options.Lenient it is strict, as Summarize is:
// an invalid record or a repeated id is an error. With it, it sets aside
// what Run.Summarize sets aside, counted as rejected and the first
// MaxReasons listed in Summary.Rejected in the same order: the rows the
// reader could not parse, the invalid records, and each record whose id
// repeats an earlier valid record's (the first is kept). The repeated ids
// are then found before the figures, in passes of their own, and the
// first record of each is held (its id and place) until the end,
// counted in Stats.Held beyond the budget. It refuses Options.Warmup (a
// rule that cuts the warm-up by time or count) and Options.Stratify.
package bounded

import (
	"errors"
	"fmt"
	"io"

	"github.com/llmmetrics/llmmetrics"
)

// DefaultBudget is the budget when Options gives none.
const DefaultBudget = 256 << 20

// NotComputed is the reason, in Summary.Absent, of each section the
// bounded summary leaves out.
const NotComputed = "not computed by the bounded summary (the run was read in passes within a memory budget)"

// ErrUnsupported is returned for options the bounded summary does not
// apply: Warmup and Stratify.
var ErrUnsupported = errors.New("bounded: option not supported in bounded memory")

// Options are the summary's options, as for llmmetrics.Summarize, and the
// memory given.
type Options struct {
	llmmetrics.Options
	// Budget is the most bytes the selection of the percentiles and the
	// check of the ids hold at once, apart from a batch of records (about
	// 1 MiB of a file, parsed); 0 is DefaultBudget.
	Budget int
	// Failed, when not nil, is called with each record that did not end
	// ok (its Status is not StatusOK), set aside or not, in input order,
	// during the first pass (as ReadOptions.SummarizeFailed calls it), so
	// that a caller can show the failures with the server's words; a
	// merged run's ids carry their file's position ("2/r17").
	Failed func(llmmetrics.Record)
}

// Stats say what a bounded summary cost.
type Stats struct {
	Passes int // reads of the file
	Held   int // the most bytes of counts, values and id hashes held at once
}

// An Opener opens the run's file, once for each pass.
type Opener func() (io.ReadCloser, error)

// Summarize reads the run that open opens, once a pass, and returns its
// Summary as llmmetrics.Summarize (or Run.Summarize, for a file with a
// run header and end line) gives it, with what it does not compute
// absent, and what it cost. The file is llmmetrics' JSONL or CSV, told
// by its first byte as llmmetrics.Read tells it, and read as
// llmmetrics.ReadOptions{Lenient: opt.Lenient} reads it. Unless
// opt.Lenient, an invalid record is an error (a *llmmetrics.RecordError),
// and so is a repeated id (wrapping llmmetrics.ErrDuplicateID); an empty
// run is llmmetrics.ErrNoRecords.
func Summarize(open Opener, opt Options) (*llmmetrics.Summary, Stats, error) {
	return SummarizeMerged([]Opener{open}, opt, nil)
}

// checkOptions refuses the options the bounded summary does not apply,
// and sets the default budget.
func checkOptions(opt *Options) error {
	if opt.Budget == 0 {
		opt.Budget = DefaultBudget
	}
	return check(*opt)
}

// check refuses the options the bounded summary does not apply.
func check(opt Options) error {
	switch {
	case opt.Warmup != nil:
		return fmt.Errorf("%w: Warmup (only the records' own warm-up marks apply)", ErrUnsupported)
	case opt.Stratify != nil:
		return fmt.Errorf("%w: Stratify", ErrUnsupported)
	}
	return nil
}
