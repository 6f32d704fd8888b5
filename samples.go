package llmmetrics

// Samples returns the records of recs that are latency samples of a
// summary taken with opt: the valid ok records (status ok, n ≥ 1) that are
// not warm-up, after opt.Warmup's cut, and do not repeat an earlier
// record's id, in input order. They are the requests behind the
// Summary's TTFT and E2E distributions (and, with n ≥ 2, its TPOT), for a
// figure the Summary does not hold, such as a test on the per-request
// values. It returns the error opt.Warmup's cut returns; the records of an
// invalid or repeated id are left out, whether opt is lenient or not. It
// does not modify recs; the records returned share their chunk arrivals
// with recs.
func Samples(recs []Record, opt Options) ([]Record, error) {
	marked, _, err := opt.Warmup.mark(recs)
	if err != nil {
		return nil, err
	}
	cat, _ := classify(marked, nil)
	var out []Record
	for i := range marked {
		if cat[i] == CategoryOK {
			out = append(out, marked[i])
		}
	}
	return out, nil
}
