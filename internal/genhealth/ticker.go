package genhealth

import (
	"slices"
	"time"
)

// A ticker notes how late each of its deadlines, one every tick, was
// met. A wake that comes after several deadlines meets them all, each as
// late as it was: a stall of 100 ms at a tick of 10 ms is ten late
// deadlines (100, 90, … 10 ms), not one, so that the lateness is not
// hidden by the ticks it swallowed.
type ticker struct {
	tick time.Duration
	due  time.Time       // the next deadline
	late []time.Duration // one a deadline met
}

// wake notes a wake at now: every deadline up to now is met, and due
// moves to the first one after it.
func (t *ticker) wake(now time.Time) {
	for !t.due.After(now) {
		t.late = append(t.late, now.Sub(t.due))
		t.due = t.due.Add(t.tick)
	}
}

// figures returns the count of deadlines met and the median, 99th
// percentile (nearest rank) and largest of their lateness; zeros for
// none.
func (t *ticker) figures() (n int, p50, p90, p99, max time.Duration) {
	if len(t.late) == 0 {
		return 0, 0, 0, 0, 0
	}
	s := slices.Clone(t.late)
	slices.Sort(s)
	return len(s), s[rank(len(s), 50)-1], s[rank(len(s), 90)-1], s[rank(len(s), 99)-1], s[len(s)-1]
}

// rank is the nearest rank of the p-th percentile of n values, ⌈p·n/100⌉,
// from 1 to n.
func rank(n int, p int) int {
	return max(1, (p*n+99)/100)
}
