package inflight

import (
	"math/big"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/radix"
)

// Arrivals describe the gaps between consecutive sends: how many, their
// mean, their coefficient of variation (population standard deviation
// over the mean) and what it reads as.
type Arrivals struct {
	Gaps    int
	Mean    time.Duration
	CV      float64
	Reading string // "Poisson-like" (0.8 ≤ CV ≤ 1.2), "bursty" (CV > 1.2), "paced" (CV < 0.8), or AllAtOnce
}

// AllAtOnce is the reading of sends whose every gap is 0: their CV, a
// deviation over a mean of 0, is undefined (and 0 in Arrivals.CV).
const AllAtOnce = "all at once"

// Sends takes sends in time order, a run of them at a time, merged with
// others, and describes the gaps between consecutive sends.
//
// The gaps are whole nanoseconds, so their moments are summed exactly and
// need no list of them: their sum is the last send less the first, and
// their squares are summed in 192 bits. Of N gaps summing to S, with
// squares summing to Q, the mean is S/N and the coefficient of variation
// √(N·Q − S²)/S, rounded once, whatever the order of the sends.
type Sends struct {
	others      []time.Duration // in time order; those from j on are still to come
	j, taken    int             // taken: the sends so far
	first, prev time.Duration
	squares     exact.Sum192
}

// NewSends returns Sends that merges others (any order, sorted here) with
// the sends it is given.
func NewSends(others []time.Duration) *Sends {
	if !slices.IsSorted(others) {
		radix.Sort(others)
	}
	return &Sends{others: others}
}

// Add takes sends in time order, none before those taken already.
func (s *Sends) Add(sorted []time.Duration) {
	for _, t := range sorted {
		for s.j < len(s.others) && s.others[s.j] <= t {
			s.take(s.others[s.j])
			s.j++
		}
		s.take(t)
	}
}

// take takes the next send.
func (s *Sends) take(t time.Duration) {
	if s.taken == 0 {
		s.first = t
	} else {
		s.squares.AddSquare(t - s.prev)
	}
	s.taken++
	s.prev = t
}

// Describe takes the others still to come and describes the gaps; false
// for fewer than two.
func (s *Sends) Describe() (Arrivals, bool) {
	for _, t := range s.others[s.j:] {
		s.take(t)
	}
	s.j = len(s.others)
	return describe(s.taken-1, s.prev-s.first, s.squares)
}

// describe describes n gaps whose sum is sum and the sum of whose
// squares is squares.
func describe(n int, sum time.Duration, squares exact.Sum192) (Arrivals, bool) {
	if n < 2 {
		return Arrivals{}, false
	}
	a := Arrivals{Gaps: n, Mean: exact.DivRound(sum, int64(n))}
	if sum == 0 {
		a.Reading = AllAtOnce
		return a, true
	}
	// N·Q − S² is N² times the variance, at least 0; its root over S is
	// the deviation over the mean.
	s := big.NewInt(int64(sum))
	v := new(big.Int).Mul(big.NewInt(int64(n)), squares.Big())
	v.Sub(v, new(big.Int).Mul(s, s))
	r := new(big.Float).SetPrec(128).SetInt(v)
	r.Sqrt(r).Quo(r, new(big.Float).SetPrec(128).SetInt(s))
	a.CV, _ = r.Float64()
	switch {
	case a.CV > 1.2:
		a.Reading = "bursty"
	case a.CV < 0.8:
		a.Reading = "paced"
	default:
		a.Reading = "Poisson-like"
	}
	return a, true
}

// ClosedLoop is the reading of a closed loop's gaps: each send waits on a
// completion, so their spread is the server's, whatever their CV.
const ClosedLoop = "closed loop: each send waits on a completion, so this CV is the server's, not an arrival process's"

// LoopReading is the reading of gaps read as reading, sent by a loop of
// the kind a run header's load names ("closed", "open", or ""): a closed
// loop's gaps are read as ClosedLoop, but all at once.
func LoopReading(reading, loop string) string {
	if loop == "closed" && reading != AllAtOnce {
		return ClosedLoop
	}
	return reading
}
