package radix

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Merge yields the keys of any number of sorted runs in order, and
// stops when asked to.
func TestMerge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(0, 7).Draw(t, "runs")
		var runs [][]uint64
		var all []uint64
		for range k {
			run := rapid.SliceOfN(rapid.Uint64Range(0, 40), 0, 12).Draw(t, "run")
			slices.Sort(run)
			runs = append(runs, run)
			all = append(all, run...)
		}
		slices.Sort(all)
		var got []uint64
		for key := range Merge(runs) {
			got = append(got, key)
		}
		if !slices.Equal(got, all) {
			t.Fatalf("merging %v gave %v, want %v", runs, got, all)
		}
		stop := rapid.IntRange(0, len(all)).Draw(t, "stop")
		got = got[:0]
		for key := range Merge(runs) {
			if len(got) == stop {
				break
			}
			got = append(got, key)
		}
		if !slices.Equal(got, all[:stop]) {
			t.Fatalf("merging %v, stopped after %d: got %v", runs, stop, got)
		}
	})
}
