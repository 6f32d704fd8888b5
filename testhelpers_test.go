package llmmetrics

// Helpers the tests call where the package's exported API goes through
// Summarize.

// stratifyRecords splits the ok requests of recs by their output length
// (spec.By "output", n from usage) or prompt length ("prompt") at the
// ascending bounds and summarizes each stratum with opt, as
// Options.Stratify does inside a Summary. Warm-up and invalid records are
// left out as Summarize leaves them out (opt.Warmup applies first); a
// stratum's throughput is over its own requests' window and is rarely what
// is wanted. It does not modify recs.
func stratifyRecords(recs []Record, spec StrataSpec, opt Options) (*Strata, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	recs, _, err := opt.Warmup.mark(recs)
	if err != nil {
		return nil, err
	}
	cat, _ := classify(recs, nil)
	return stratify(recs, cat, spec, opt)
}

// workloadOf describes the workload of the valid, measured records
// of recs (warm-up and invalid records are left out). It returns
// ErrNoRecords when none is left. It does not modify recs.
func workloadOf(recs []Record) (*Workload, error) {
	cat, _ := classify(recs, nil)
	w, _ := describeWorkload(&source{recs: recs}, cat, &okFacts{}, false)
	if w == nil {
		return nil, ErrNoRecords
	}
	return w, nil
}
