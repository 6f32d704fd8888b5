package table

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The runs hold exactly the ok rows that are not unstreamed, in order,
// read in place; they are refused when they would take 12 bytes a run or
// more against 8 bytes a row.
func TestStreamedRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab Table
		var cat []uint8
		var want []time.Duration
		for j := range rapid.IntRange(0, 4).Draw(t, "blocks") {
			n := rapid.IntRange(0, 30).Draw(t, "rows")
			b := NewBlock(n, true)
			for k := range n {
				first := time.Duration(1000*j + k)
				last := first + time.Duration(rapid.IntRange(0, 1).Draw(t, "streamed"))
				completion := rapid.SampledFrom([]int{0, 1, 2, 7, 1 << 40}).Draw(t, "completion")
				Add(b, "id", "", 0, 0, first, last, 1, completion, k+1)
				c := uint8(0)
				if rapid.IntRange(0, 4).Draw(t, "not ok") == 0 {
					c = 1
				}
				cat = append(cat, c)
				if c == 0 && !(completion >= 2 && first == last) {
					want = append(want, first)
				}
			}
			tab.Add(b)
		}
		// The runs, counted plainly: a kept ok row that is first in its
		// block, or follows a row that is not kept, begins one.
		nRuns := 0
		for j, b := range tab.Blocks {
			in := false
			for k := range b.Len() {
				kept := cat[tab.first[j]+k] == 0 && !Unstreamed(b, k)
				if kept && !in {
					nRuns++
				}
				in = kept
			}
		}
		runs, n, fits := StreamedRuns(&tab, cat)
		if wantFits := 12*nRuns < 8*len(want); fits != wantFits {
			t.Fatalf("fits %v with %d runs of %d rows, want %v", fits, nRuns, len(want), wantFits)
		}
		if !fits {
			return
		}
		var got []time.Duration
		seg := runs.Seg(FirstColumn)
		for i := range runs.Len() {
			got = append(got, seg(i)...)
		}
		if n != len(want) || runs.Len() != nRuns || !slices.Equal(got, want) {
			t.Fatalf("runs give %d values in %d runs %v (n %d), want %v in %d runs", len(got), runs.Len(), got, n, want, nRuns)
		}
	})
}

// A row is unstreamed when it holds two or more tokens and its first text
// came with its last.
func TestUnstreamed(t *testing.T) {
	b := NewBlock(4, true)
	Add(b, "a", "", 0, 0, 5, 5, 1, 2, 1) // two tokens at once
	Add(b, "b", "", 0, 0, 5, 9, 1, 2, 2) // streamed
	Add(b, "c", "", 0, 0, 5, 5, 1, 1, 3) // one token
	Add(b, "d", "", 0, 0, 5, 5, 1, 1<<40, 4)
	var tab Table
	tab.Add(b)
	got := []bool{Unstreamed(b, 0), Unstreamed(b, 1), Unstreamed(b, 2), Unstreamed(b, 3)}
	if want := []bool{true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("Unstreamed = %v, want %v (the last row's count is rare)", got, want)
	}
}
