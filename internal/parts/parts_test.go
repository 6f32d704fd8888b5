package parts

import (
	"sync/atomic"
	"testing"
)

// Split covers [0, n) with contiguous runs, one unless each of them can
// hold 4,096 items; Each calls fn once for each run with its bounds.
func TestSplitEach(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 8192, 100_000} {
		ps := Split(n)
		if len(ps) == 0 || ps[0][0] != 0 || ps[len(ps)-1][1] != n {
			t.Fatalf("Split(%d) = %v", n, ps)
		}
		for p := 1; p < len(ps); p++ {
			if ps[p][0] != ps[p-1][1] || ps[p][1]-ps[p][0] < 4096 {
				t.Fatalf("Split(%d) = %v", n, ps)
			}
		}
		var items atomic.Int64
		calls := make([]atomic.Int32, len(ps))
		Each(ps, func(p, lo, hi int) {
			if lo != ps[p][0] || hi != ps[p][1] {
				t.Errorf("run %d: [%d, %d), want %v", p, lo, hi, ps[p])
			}
			calls[p].Add(1)
			items.Add(int64(hi - lo))
		})
		for p := range calls {
			if calls[p].Load() != 1 {
				t.Fatalf("Split(%d): run %d called %d times", n, p, calls[p].Load())
			}
		}
		if items.Load() != int64(n) {
			t.Fatalf("Split(%d): %d items in all", n, items.Load())
		}
	}
}
