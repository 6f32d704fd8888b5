package llmmetrics

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
)

// TPOT returns the time per output token of a successful request with n ≥ 2
// output tokens: the mean gap after the first token,
//
//	TPOT = (t_last_text − t_first_text) / (n − 1)
//
// where n is CompletionTokens, the server's usage count, never the number of
// chunks. The result is rounded to the nearest nanosecond, halves up. A
// request with n = 1 has no gap and so no TPOT: TPOT returns ErrTooFewTokens
// for it, never 0, and ErrNoCount for a record without a usable count
// (CountState).
func (r *Record) TPOT() (time.Duration, error) {
	if err := r.checkText(); err != nil {
		return 0, err
	}
	if !r.counted() {
		return 0, r.countError()
	}
	if r.CompletionTokens < 2 {
		return 0, fmt.Errorf("%w: n = %d", ErrTooFewTokens, r.CompletionTokens)
	}
	return tpot(r), nil
}

// tpot assumes a valid record with n ≥ 2.
func tpot(r *Record) time.Duration {
	return exact.DivRound(decodeTime(r), int64(r.CompletionTokens-1))
}

// decodeTime is the time from the first to the last text-bearing chunk: the
// sum of the request's n − 1 token gaps.
func decodeTime(r *Record) time.Duration { return r.last() - r.first() }

// gapWeighted accumulates the gap-weighted mean of TPOT over requests with
// n ≥ 2, which weights each inter-token gap equally rather than each
// request:
//
//	Σ_r (t_last − t_first) / Σ_r (n_r − 1)
type gapWeighted struct {
	decode exact.Sum128
	gaps   int64
}

// add adds a request's decode time (t_last − t_first) and its n tokens.
func (g *gapWeighted) add(decode time.Duration, n int) {
	g.decode.Add(int64(decode))
	g.gaps += int64(n - 1)
}

// merge adds what another accumulator holds.
func (g *gapWeighted) merge(o *gapWeighted) {
	g.decode.AddSum(o.decode)
	g.gaps += o.gaps
}

// mean assumes at least one request was added.
func (g *gapWeighted) mean() time.Duration { return g.decode.DivRound(g.gaps) }

// UserTPS returns the output rate one user experienced, for n ≥ 2:
//
//	User TPS = (n − 1) / (E2E − TTFT) = 1 / TPOT
//
// in output tokens per second. It returns ErrTooFewTokens for n < 2, and
// ErrZeroInterval when the first and last text arrived together (the rate
// would be infinite).
func (r *Record) UserTPS() (OutputTokenRate, error) {
	if err := r.checkText(); err != nil {
		return 0, err
	}
	if !r.counted() {
		return 0, r.countError()
	}
	if r.CompletionTokens < 2 {
		return 0, fmt.Errorf("%w: n = %d", ErrTooFewTokens, r.CompletionTokens)
	}
	d := decodeTime(r)
	if d == 0 {
		return 0, ErrZeroInterval
	}
	return OutputTokenRate(float64(r.CompletionTokens-1) / d.Seconds()), nil
}
