package exact

import (
	"math"
	"testing"
	"time"
)

func TestMoments(t *testing.T) {
	var a, b, empty Moments
	a.Add(3)
	a.Add(-1)
	b.AddMany(2, 5, 9, 14) // two values, 5 and 9, summing to 14
	b.Squares.AddSquare(5)
	b.Squares.AddSquare(9)
	a.Merge(&b)
	a.Merge(&empty)
	// 3 − 1 + 14 = 16 over 4 values; squares 25 + 81 = 106.
	if a.N != 4 || a.Min != -1 || a.Max != 9 || a.Sum.DivRound(4) != 4 || a.Squares.Big().Int64() != 106 {
		t.Errorf("merged moments: n %d, min %v, max %v, mean %v, squares %v; want 4, -1, 9, 4, 106",
			a.N, a.Min, a.Max, a.Sum.DivRound(4), a.Squares.Big())
	}
	// Merging into an empty accumulator takes the other's extremes.
	empty.Merge(&b)
	if empty.Min != 5 || empty.Max != 9 || empty.N != 2 {
		t.Errorf("merge into empty: %+v; want n 2, min 5, max 9", empty)
	}
}

func TestDivRound(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		m    int64
		want time.Duration
	}{
		{7, 2, 4},   // 3.5, halves away from zero
		{-7, 2, -4}, // −3.5
		{5, 3, 2},   // 1.67
		{-5, 3, -2},
		{4, 3, 1}, // 1.33
		{0, 9, 0},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64, 2, 1 << 62}, // (2⁶³ − 1)/2 = 2⁶² − 0.5, halves away
	} {
		if got := DivRound(c.d, c.m); got != c.want {
			t.Errorf("DivRound(%d, %d) = %d; want %d", c.d, c.m, got, c.want)
		}
	}
}
