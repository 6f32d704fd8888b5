package budget

import "testing"

var sink [][]byte

// A call that holds 32 MiB at once costs that in allocation and at its
// peak; one that allocates 32 MiB a kilobyte at a time, keeping none,
// costs as much in allocation and next to nothing at its peak. (The
// runtime counts allocations a span at a time: within 1%.)
func TestMeasure(t *testing.T) {
	if Race {
		t.Skip("the race detector lays memory out otherwise")
	}
	const total = 32 << 20
	held := Measure(func() {
		for range total / (64 << 10) {
			sink = append(sink, make([]byte, 64<<10))
		}
		sink = nil
	})
	// The peak is the most heap live after a collection, and where the
	// last collection falls depends on the collector's pacing: it may
	// come before the last few blocks. Half the total still tells holding
	// from passing through (at most an eighth, below).
	if held.Allocated < total*99/100 || held.Peak < total/2 || held.Peak > total*2 {
		t.Errorf("holding 32 MiB: %v", held)
	}
	passing := Measure(func() {
		for range total / 1024 {
			sink = append(sink[:0], make([]byte, 1024))
		}
		sink = nil
	})
	if passing.Allocated < total*99/100 || passing.Peak > total/8 {
		t.Errorf("passing 32 MiB through: %v", passing)
	}
	t.Logf("held: %v; passed through: %v", held, passing)
}
