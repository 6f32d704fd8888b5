package order

import "testing"

// percent is the of of a percentile with six decimal places: 10⁸.
const percent = 100_000_000

func TestNearestRank(t *testing.T) {
	for _, c := range []struct {
		p    uint64 // in millionths of a percent
		n    int
		want int
	}{
		{7_000_000, 100, 6},     // ⌈0.07·100⌉ = 7, exactly: index 6
		{0, 5, 0},               // rank 0 is taken as 1
		{100_000_000, 5, 4},     // ⌈1·5⌉ = 5
		{50_000_000, 5, 2},      // ⌈2.5⌉ = 3
		{99_900_000, 1000, 998}, // ⌈999⌉ = 999
		{99_900_001, 1000, 999}, // ⌈999.00001⌉ = 1000
	} {
		if got := NearestRank(c.p, percent, c.n); got != c.want {
			t.Errorf("NearestRank(%d, %d) = %d; want %d", c.p, c.n, got, c.want)
		}
	}
}

func TestLinearInterpolate(t *testing.T) {
	// p50 of 4 values: h = 0.5·3 = 1.5.
	if k, r := Linear(50_000_000, percent, 4); k != 1 || r != percent/2 {
		t.Errorf("Linear(p50, 4) = %d, %d; want 1, %d", k, r, percent/2)
	}
	// p100 of 4: h = 3 exactly.
	if k, r := Linear(percent, percent, 4); k != 3 || r != 0 {
		t.Errorf("Linear(p100, 4) = %d, %d; want 3, 0", k, r)
	}
	for _, c := range []struct {
		a, b int64
		r    uint64
		want int64
	}{
		{10, 20, percent / 2, 15},
		{10, 11, percent / 2, 11}, // 10.5, halves up
		{10, 11, percent/2 - 1, 10},
		{-7, -7, percent / 3, -7},
		{10, 20, 0, 10},
	} {
		if got := Interpolate(c.a, c.b, c.r, percent); got != c.want {
			t.Errorf("Interpolate(%d, %d, %d) = %d; want %d", c.a, c.b, c.r, got, c.want)
		}
	}
}

func TestQuantiles(t *testing.T) {
	s := Flat([]int64{5, 1, 4, 2, 3})
	// Nearest rank p50 (index 2, the value 3) and linear p25 (h = 1, the
	// value 2) and p90 (h = 3.6: 4 + 0.6·(5 − 4) = 4.6, rounded to 5).
	at := []struct {
		k int
		r uint64
	}{{2, 0}, {1, 0}, {3, 60_000_000}}
	got := Quantiles(s, 1, 5, len(at), percent, func(i int) (int, uint64) { return at[i].k, at[i].r })
	want := []int64{3, 2, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Quantiles = %v; want %v", got, want)
			break
		}
	}
}

func TestIndex(t *testing.T) {
	// Positions 0 … 4 hold 3, 1, 4, 1, 5 across three segments.
	s := Sample[int64]{Segs: [][]int64{{3, 1}, {}, {4, 1, 5}}, N: 5}
	for _, c := range []struct{ v, want int64 }{{1, 1}, {4, 2}, {5, 4}, {9, -1}} {
		if got := s.Index(c.v); int64(got) != c.want {
			t.Errorf("Index(%d) = %d; want %d", c.v, got, c.want)
		}
	}
}
