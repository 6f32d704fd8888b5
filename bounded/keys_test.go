package bounded

import (
	"slices"
	"testing"
)

// The keys taken from the catalogue by its order are the metrics' own.
func TestMetricKeys(t *testing.T) {
	got := []string{keyTTFT, keyTPOT, keyE2E, keyITL, keyMaxGap}
	want := []string{"ttft", "tpot", "e2e", "itl", "max_gap"}
	if !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
}
