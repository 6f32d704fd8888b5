package outofcore

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
)

// firstPass reads src once for the moments of each sample's values, with
// the sum of their squares, and their counts in its bins (ix.first).
func firstPass(src Samples, ss []selection) error {
	return src(func(i int, seg []time.Duration) bool {
		if len(seg) == 0 {
			return true
		}
		s := &ss[i]
		counts, bins := s.ix.first, s.ix.bins
		lo, hi := seg[0], seg[0]
		var sum exact.Sum128
		var squares exact.Sum192
		for _, x := range seg {
			lo, hi = min(lo, x), max(hi, x)
			sum.Add(int64(x))
			squares.AddSquare(x)
			counts[bins.of(x)]++
		}
		s.mo.AddMany(len(seg), lo, hi, 0)
		s.mo.Sum.AddSum(sum)
		s.mo.Squares.AddSum(squares)
		return true
	})
}
