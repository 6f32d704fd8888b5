package table

import (
	"fmt"
	"testing"
)

// IDs gives what ID gives, for rows asked for in order from any row on,
// skipping rows and crossing blocks of several sizes, an empty one too.
func TestIDs(t *testing.T) {
	var tab Table
	row := 0
	for _, n := range []int{3, 1, 0, 70, 5} {
		b := NewBlock(n, true)
		for range n {
			Add(b, fmt.Sprint("id", row), "", 0, 0, 0, 0, 1, 1, row+2)
			row++
		}
		tab.Add(b)
	}
	for start := range row {
		for step := 1; step <= 4; step++ {
			id := tab.IDs()
			for i := start; i < row; i += step {
				if got, want := id(i), tab.ID(i); got != want || want != fmt.Sprint("id", i) {
					t.Fatalf("from %d by %d: row %d's id %q, ID gives %q", start, step, i, got, want)
				}
			}
		}
	}
}
