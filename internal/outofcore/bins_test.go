package outofcore

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Each value lies in the span of its bin, and the bins keep the values'
// order, at every mantissa width, across signs and at the extremes.
func TestLogBins(t *testing.T) {
	edges := []time.Duration{math.MinInt64, math.MinInt64 + 1, -1 << 40, -2049, -2048, -1, 0, 1, 2047, 2048, 2049, 1<<62 + 1, math.MaxInt64}
	for m := uint(0); m <= maxMantissa; m++ {
		b := logBins{m}
		for i, x := range edges {
			checkBin(t, b, x)
			if i > 0 && b.of(edges[i-1]) > b.of(x) {
				t.Errorf("m=%d: bin of %d above bin of %d", m, edges[i-1], x)
			}
		}
		if got := b.of(math.MaxInt64); got >= b.len() {
			t.Errorf("m=%d: bin of MaxInt64 is %d of %d", m, got, b.len())
		}
		if got := b.of(math.MinInt64); got <= 0 {
			t.Errorf("m=%d: bin of MinInt64 is %d", m, got)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		b := logBins{uint(rapid.IntRange(0, maxMantissa).Draw(t, "m"))}
		x := time.Duration(rapid.Int64().Draw(t, "x"))
		y := time.Duration(rapid.Int64().Draw(t, "y"))
		checkBin(t, b, x)
		if x < y && b.of(x) > b.of(y) {
			t.Fatalf("bin of %d above bin of %d", x, y)
		}
	})
}

func checkBin(t interface {
	Helper()
	Fatalf(string, ...any)
}, b logBins, x time.Duration) {
	t.Helper()
	lo, hi := b.span(b.of(x))
	if x < lo || x > hi {
		t.Fatalf("m=%d: %d outside its bin %d, [%d, %d]", b.m, x, b.of(x), lo, hi)
	}
}

// A bin spans at most 2^−m of its values: bins of width one below
// 2^(m+1), then 1024 bins for each doubling with m = 10 (hand count: 2^20
// has 21 bits, a shift of 21 − 11 = 10, so it lies in bin 10·1024 +
// 2^20>>10 = 11264 of the magnitudes, of width 2^10).
func TestLogBinWidths(t *testing.T) {
	b := logBins{maxMantissa}
	if got := b.of(1<<20) - b.half(); got != 11264 {
		t.Errorf("bin of 2^20 is %d above zero's, want 11264", got)
	}
	lo, hi := b.span(b.of(1 << 20))
	if lo != 1<<20 || hi != 1<<20+1<<10-1 {
		t.Errorf("bin of 2^20 spans [%d, %d], want [2^20, 2^20+1023]", lo, hi)
	}
	if lo, hi := b.span(b.of(1000)); lo != 1000 || hi != 1000 {
		t.Errorf("bin of 1000 spans [%d, %d]", lo, hi)
	}
	if got, want := 8*b.len(), 901_120; got != want { // 2·55·1024 counts of 8 bytes
		t.Errorf("counts take %d bytes, want %d", got, want)
	}
}
