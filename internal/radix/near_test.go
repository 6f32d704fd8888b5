package radix

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// SortNear gives the order slices.Sort gives, whether the values are
// nearly in order (ends of requests a few places out of order, which the
// insertion alone sorts) or not (random values, and ends far out of order,
// which it leaves to Sort part way), signed and unsigned.
func TestSortNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 100, nearSlack / 4, 300_000} {
		for _, spread := range []int64{0, 1, 20, 5_000, -1} {
			s := make([]int64, n)
			for i := range s {
				switch {
				case spread < 0:
					s[i] = int64(rng.Uint64())
				case spread > 0:
					s[i] = int64(i)*100 + rng.Int64N(100*spread) - 1_000
				default:
					s[i] = int64(i)
				}
			}
			u := make([]uint64, n)
			for i := range u {
				u[i] = uint64(s[i])
			}
			ws, wu := slices.Clone(s), slices.Clone(u)
			slices.Sort(ws)
			slices.Sort(wu)
			SortNear(s)
			SortNear(u)
			if !slices.Equal(s, ws) || !slices.Equal(u, wu) {
				t.Fatalf("n %d, spread %d: not sorted as slices.Sort sorts", n, spread)
			}
		}
	}
}
