package inflight

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// InOrder and Gaps together give the gaps between consecutive sends of
// both lists merged, as sorting them all does, whether a's segments come
// in order or not, and leave a table's segments (not own) as they were.
func TestInOrderGaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a [][]time.Duration
		var all []time.Duration
		for range rapid.IntRange(1, 4).Draw(t, "segments") {
			seg := make([]time.Duration, rapid.IntRange(1, 8).Draw(t, "length"))
			for i := range seg {
				seg[i] = time.Duration(rapid.IntRange(0, 50).Draw(t, "send"))
			}
			a, all = append(a, seg), append(all, seg...)
		}
		b := make([]time.Duration, rapid.IntRange(0, 8).Draw(t, "others"))
		for i := range b {
			b[i] = time.Duration(rapid.IntRange(0, 50).Draw(t, "other"))
		}
		all = append(all, b...)
		slices.Sort(all)
		var want []float64
		for i := 1; i < len(all); i++ {
			want = append(want, float64(all[i]-all[i-1]))
		}
		kept := make([][]time.Duration, len(a))
		for i, seg := range a {
			kept[i] = slices.Clone(seg)
		}
		got := Gaps(InOrder(a, false), b, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("a %v b %v: gaps %v, want %v", kept, b, got, want)
		}
		for i := range a {
			if !slices.Equal(a[i], kept[i]) {
				t.Fatalf("segment %d reordered: %v, was %v", i, a[i], kept[i])
			}
		}
	})
}
