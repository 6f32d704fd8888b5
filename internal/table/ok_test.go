package table

import (
	"testing"

	"pgregory.net/rapid"
)

// okEnd finds the first category that is not ok (zero) from k on, as a
// plain search does, wherever it falls in or across the words it reads.
func TestOKEnd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "n")
		cat := make([]uint8, n)
		for i := range cat {
			if rapid.IntRange(0, 9).Draw(t, "not ok") == 0 {
				cat[i] = uint8(rapid.IntRange(1, 255).Draw(t, "category"))
			}
		}
		k := rapid.IntRange(0, n).Draw(t, "k")
		want := k
		for want < n && cat[want] == 0 {
			want++
		}
		if got := okEnd(cat, k); got != want {
			t.Fatalf("okEnd(%v, %d) = %d, want %d", cat, k, got, want)
		}
	})
}
