package exact

import "time"

// Moments accumulates the count, extremes and exact sum of a sample of
// durations, and, where the pass that gathered it summed them (Squared),
// the exact sum of the squares of its values (Squares, which that pass
// adds to itself).
type Moments struct {
	N        int
	Min, Max time.Duration
	Sum      Sum128
	Squares  Sum192
	Squared  bool
}

// Add adds a value; its square is not added.
func (mo *Moments) Add(x time.Duration) {
	mo.AddMany(1, x, x, x)
}

// Merge adds another sample's moments to mo.
func (mo *Moments) Merge(o *Moments) {
	if o.N == 0 {
		return
	}
	mo.AddMany(o.N, o.Min, o.Max, 0)
	mo.Sum.AddSum(o.Sum)
	mo.Squares.AddSum(o.Squares)
}

// AddMany adds n values with the given extremes and sum; their squares
// are not added.
func (mo *Moments) AddMany(n int, lo, hi, sum time.Duration) {
	if mo.N == 0 {
		mo.Min, mo.Max = lo, hi
	}
	mo.N += n
	mo.Min = min(mo.Min, lo)
	mo.Max = max(mo.Max, hi)
	mo.Sum.Add(int64(sum))
}
