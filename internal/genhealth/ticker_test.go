package genhealth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A fake ticker series, by hand: a tick of 10 ms from t0, deadlines at
// 10, 20, 30 … ms. Wakes at 10.5, 21 and 30.2 ms are 0.5, 1 and 0.2 ms
// late; a wake at 75 ms meets the deadlines of 40, 50, 60 and 70 ms, 35,
// 25, 15 and 5 ms late; a wake at 80.1 ms is 0.1 ms late. Sorted, the
// eight: 0.1 0.2 0.5 1 5 15 25 35 ms; p50 is rank ⌈4⌉ = 4, 1 ms; p99 is
// rank ⌈7.92⌉ = 8, 35 ms; p90 is rank ⌈7.2⌉ = 8, 35 ms; the max 35 ms. The next deadline is 90 ms.
func TestTickerLateness(t *testing.T) {
	t0 := time.Unix(0, 0)
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	tk := ticker{tick: 10 * time.Millisecond, due: t0.Add(10 * time.Millisecond)}
	n, _, _, _, _ := tk.figures()
	assert.Zero(t, n, "no wake, no figure")
	tk.wake(t0.Add(ms(9))) // early: no deadline met
	for _, at := range []float64{10.5, 21, 30.2, 75, 80.1} {
		tk.wake(t0.Add(ms(at)))
	}
	n, p50, p90, p99, mx := tk.figures()
	assert.Equal(t, 8, n)
	assert.Equal(t, []time.Duration{ms(1), ms(35), ms(35), ms(35)}, []time.Duration{p50, p90, p99, mx})
	assert.Equal(t, t0.Add(ms(90)), tk.due)
	assert.Equal(t, ms(0.5), tk.late[0], "figures does not reorder the wakes")
}

// The nearest rank ⌈p·n/100⌉, by hand.
func TestRank(t *testing.T) {
	for _, c := range []struct{ n, p, want int }{
		{1, 50, 1}, {1, 99, 1}, {2, 50, 1}, {3, 50, 2}, {100, 99, 99}, {101, 99, 100}, {200, 99, 198}, {8, 99, 8},
	} {
		assert.Equal(t, c.want, rank(c.n, c.p), "n=%d p=%d", c.n, c.p)
	}
}
