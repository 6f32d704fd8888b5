package outofcore

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
)

// firstPass reads src once for the moments of its values, with the sum
// of their squares, and their counts in bins.
func firstPass(src Source, bins logBins, counts []int) (exact.Moments, error) {
	mo := exact.Moments{Squared: true}
	err := src(func(seg []time.Duration) bool {
		if len(seg) == 0 {
			return true
		}
		lo, hi := seg[0], seg[0]
		var sum exact.Sum128
		for _, x := range seg {
			lo, hi = min(lo, x), max(hi, x)
			sum.Add(int64(x))
			mo.Squares.AddSquare(x)
			counts[bins.of(x)]++
		}
		mo.AddMany(len(seg), lo, hi, 0)
		mo.Sum.AddSum(sum)
		return true
	})
	return mo, err
}
