package exact

import (
	"math"
	"math/big"
	"math/bits"
	"time"
)

// Gaps returns the smallest and largest gap between consecutive values of
// xs, which must hold at least two, and adds the square of each gap to
// sq: one pass for the gaps' range and spread. The squares are summed in
// one machine word, which is exact when no sum can pass 2⁶⁴ (every gap
// below 2³² ns, about 4 s, and their count times the largest square below
// 2⁶⁴); otherwise they are summed again in 192 bits.
func Gaps(xs []time.Duration, sq *Sum192) (lo, hi time.Duration) {
	lo = xs[1] - xs[0]
	hi = lo
	var w uint64
	for i := 1; i < len(xs); i++ {
		g := xs[i] - xs[i-1]
		lo = min(lo, g)
		hi = max(hi, g)
		w += uint64(g) * uint64(g)
	}
	if h := uint64(hi); lo >= 0 && h < 1<<32 {
		if over, _ := bits.Mul64(h*h, uint64(len(xs)-1)); over == 0 {
			sq.AddWord(w)
			return lo, hi
		}
	}
	for i := 1; i < len(xs); i++ {
		sq.AddSquare(xs[i] - xs[i-1])
	}
	return lo, hi
}

// Deviation returns the population standard deviation about mean of n
// values whose sum is sum and the sum of whose squares is squares:
// Σ(x − m)² = Σx² − 2m·Σx + N·m², then RootMean.
func Deviation(squares Sum192, sum Sum128, n int, mean time.Duration) time.Duration {
	m := big.NewInt(int64(mean))
	ss := squares.Big()
	ss.Sub(ss, new(big.Int).Mul(new(big.Int).Lsh(m, 1), sum.Big()))
	ss.Add(ss, new(big.Int).Mul(big.NewInt(int64(n)), new(big.Int).Mul(m, m)))
	return RootMean(ss, n)
}

// RootMean returns √(ss/n) rounded to the nanosecond, ss rounded to the
// nearest float64 first.
func RootMean(ss *big.Int, n int) time.Duration {
	f, _ := new(big.Float).SetInt(ss).Float64()
	return time.Duration(math.Round(math.Sqrt(f / float64(n))))
}

// AddSquaresAbout adds the square of each value of xs less m to s, or
// with gaps, of each gap between consecutive values less m.
func (s *Sum192) AddSquaresAbout(xs []time.Duration, m time.Duration, gaps bool) {
	if gaps {
		for i := 1; i < len(xs); i++ {
			s.AddSquare(xs[i] - xs[i-1] - m)
		}
		return
	}
	for _, x := range xs {
		s.AddSquare(x - m)
	}
}
