package lengths

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// nearestRanks places p50 and p95 by nearest rank: ⌈p·n/100⌉, at least 1,
// as an index from 0.
func nearestRanks(n int) (p50, p95 int) {
	return max((50*n+99)/100, 1) - 1, max((95*n+99)/100, 1) - 1
}

// Describe, which selects and counts without sorting, agrees with the
// plain statement: sort, read the ranks, and count the bins with gonum's
// stat.Histogram.
func TestDescribeAsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 7, 20, 257, 10000} {
		for _, spread := range []int64{1, 5, 9, 1000, 1 << 30} {
			xs := make([]int64, n)
			for i := range xs {
				xs[i] = 1 + rng.Int64N(spread)
			}
			got, ok := Describe(xs, nearestRanks)
			s := slices.Clone(xs)
			slices.Sort(s)
			rank := func(p float64) int64 { return s[max(int(math.Ceil(p*float64(n)/100)), 1)-1] }
			if !ok || got.N != n || int64(got.P50) != rank(50) || int64(got.P95) != rank(95) || int64(got.Max) != s[n-1] {
				t.Fatalf("n %d spread %d: %+v; sorted p50 %d p95 %d max %d", n, spread, got, rank(50), rank(95), s[n-1])
			}
			var div, x []float64
			for i := range len(got.Counts) + 1 {
				div = append(div, float64(got.Min+int64(i)*got.Width))
			}
			for _, v := range s {
				x = append(x, float64(v))
			}
			want := stat.Histogram(nil, div, x, nil)
			if div[0] != float64(s[0]) || div[len(div)-1] <= float64(s[n-1]) || len(got.Counts) > Bins {
				t.Fatalf("n %d spread %d: bins %v do not cover [%d, %d]", n, spread, div, s[0], s[n-1])
			}
			for i, c := range got.Counts {
				if float64(c) != want[i] {
					t.Fatalf("n %d spread %d: bin %d counts %d, stat.Histogram %v", n, spread, i, c, want[i])
				}
			}
		}
	}
	if _, ok := Describe(nil, nearestRanks); ok {
		t.Fatal("no lengths described as some")
	}
}

// A Sample, which counts each value while their range is small and lists
// them once it is not, describes what Describe describes of the list.
func TestSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, spread := range []int{1, 2, 9, 300, Range - 1, Range, 5 * Range} {
		for _, n := range []int{1, 2, 3, 50, 4000} {
			var l Sample
			xs := make([]int64, n)
			for i := range xs {
				v := 1 + rng.IntN(spread)
				if i%2 == 1 {
					v = 1 + spread - v // values arrive both rising and falling
				}
				xs[i] = int64(v)
				l.Add(v)
			}
			got, _ := l.Describe(nearestRanks)
			if want, _ := Describe(xs, nearestRanks); !reflect.DeepEqual(got, want) {
				t.Fatalf("spread %d, n %d: %+v; Describe gives %+v", spread, n, got, want)
			}
		}
	}
	var none Sample
	if _, ok := none.Describe(nearestRanks); ok {
		t.Fatal("no lengths described as some")
	}
}
