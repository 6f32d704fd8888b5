package llmmetrics

import "time"

// E2E returns the end-to-end latency of a successful request: from the send
// time to the arrival of the last text-bearing chunk,
//
//	E2E = t_last_text − t_sent = TTFT + Σ ITL = TTFT + (n − 1)·TPOT
//
// Trailing usage frames and [DONE] do not extend it. It returns a validation
// error for an invalid record and ErrNoText for a failed or zero-token
// request.
func (r *Record) E2E() (time.Duration, error) {
	if err := r.checkText(); err != nil {
		return 0, err
	}
	return e2e(r), nil
}

func e2e(r *Record) time.Duration { return r.last() }

// An Approximation compares the exact end-to-end latency with the
// approximation TTFT + n·TPOT given in the Databricks benchmarking guide,
// which multiplies TPOT by the n tokens instead of the n − 1 gaps.
type Approximation struct {
	Exact  time.Duration // TTFT + (n − 1)·TPOT, which is E2E
	Approx time.Duration // TTFT + n·TPOT, rounded to the nanosecond
	// Error is Approx − Exact: exactly one TPOT (rounded to the nanosecond).
	Error time.Duration
	// RelativeError is 1/n: the error relative to the approximation's
	// decode term n·TPOT. It is not Error/Exact.
	RelativeError float64
}

// DatabricksE2E returns the Databricks approximation of the request's
// end-to-end latency next to the exact value. The approximation is never
// equal to E2E when TPOT is positive: it overestimates by one TPOT. It needs
// n ≥ 2 (ErrTooFewTokens otherwise).
func (r *Record) DatabricksE2E() (Approximation, error) {
	tpot, err := r.TPOT()
	if err != nil {
		return Approximation{}, err
	}
	// TTFT + n·TPOT = TTFT + (n−1)·TPOT + TPOT = E2E + TPOT, exactly; only
	// TPOT itself is rounded.
	return Approximation{
		Exact:         e2e(r),
		Approx:        e2e(r) + tpot,
		Error:         tpot,
		RelativeError: 1 / float64(r.CompletionTokens),
	}, nil
}
