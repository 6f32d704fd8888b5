package inflight

import (
	"math"
	"time"

	"gonum.org/v1/gonum/stat"
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

// Describe describes gaps, in nanoseconds; false for fewer than two.
func Describe(gaps []float64) (Arrivals, bool) {
	if len(gaps) < 2 {
		return Arrivals{}, false
	}
	mean, std := stat.PopMeanStdDev(gaps, nil)
	a := Arrivals{Gaps: len(gaps), Mean: time.Duration(math.Round(mean))}
	switch {
	case mean == 0:
		a.Reading = "all at once"
		return a, true
	default:
		a.CV = std / mean
	}
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
