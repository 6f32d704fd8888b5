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
	Reading string // "Poisson-like" (0.8 ≤ CV ≤ 1.2), "bursty" (CV > 1.2), "paced" (CV < 0.8), or "all at once" (a mean of 0)
}

// Describe describes the gaps between consecutive sends of a (segments in
// time order, none of them empty) and b (any order, sorted here) merged;
// false for fewer than two gaps.
//
// The gaps are whole nanoseconds, so their moments are summed exactly and
// need no list of them: their sum is the last send less the first, and
// their squares are summed in 192 bits. Of N gaps summing to S, with
// squares summing to Q, the mean is S/N and the coefficient of variation
// √(N·Q − S²)/S, rounded once, whatever the order of the sends.
func Describe(a [][]time.Duration, b []time.Duration) (Arrivals, bool) {
	if !slices.IsSorted(b) {
		radix.Sort(b)
	}
	var (
		n           int
		first, prev time.Duration
		squares     exact.Sum192
	)
	seg, next := []time.Duration(nil), 0 // a's segment, and the next
	i, j := 0, 0                         // in seg, and in b
	for taken := 0; ; taken++ {
		if i == len(seg) && next < len(a) {
			seg, i, next = a[next], 0, next+1
		}
		var t time.Duration
		switch {
		case i < len(seg) && (j == len(b) || seg[i] <= b[j]):
			t, i = seg[i], i+1
		case j < len(b):
			t, j = b[j], j+1
		default:
			return describe(n, prev-first, squares)
		}
		if taken == 0 {
			first = t
		} else {
			squares.AddSquare(t - prev)
			n++
		}
		prev = t
	}
}

// describe describes n gaps whose sum is sum and the sum of whose
// squares is squares.
func describe(n int, sum time.Duration, squares exact.Sum192) (Arrivals, bool) {
	if n < 2 {
		return Arrivals{}, false
	}
	a := Arrivals{Gaps: n, Mean: exact.DivRound(sum, int64(n))}
	if sum == 0 {
		a.Reading = "all at once"
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
