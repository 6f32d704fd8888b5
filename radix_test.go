package llmmetrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortInts gives the order slices.Sort gives, for signed and unsigned
// values, short and long slices, and values that agree in some bytes.
func TestSortInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// The largest size is sorted on every core. The mask 0xffffffff marks
	// values whose first byte is 0 nine times in ten: one of that byte's
	// buckets holds most values, and is itself sorted on every core.
	for _, n := range []int{0, 1, 2, radixMin - 1, radixMin, 3*radixMin + 7, parallelSortMin + 300_000} {
		for _, mask := range []uint64{math.MaxUint64, 0xff00ff, 1 << 63, 0, 0xff, 0xffff000000000000, 0xffffffff} {
			s := make([]int64, n)
			u := make([]uint64, n)
			for i := range n {
				u[i] = rng.Uint64() & mask
				if mask == 0xffffffff {
					u[i] = rng.Uint64() & 0xffffff
					if rng.IntN(10) == 0 {
						u[i] |= rng.Uint64() & 0xff000000
					}
				}
				s[i] = int64(u[i])
			}
			ws, wu := slices.Clone(s), slices.Clone(u)
			slices.Sort(ws)
			slices.Sort(wu)
			sortInts(s)
			sortInts(u)
			if !slices.Equal(s, ws) || !slices.Equal(u, wu) {
				t.Fatalf("n %d, mask %x: not sorted as slices.Sort sorts", n, mask)
			}
		}
	}
}
