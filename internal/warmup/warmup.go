// Package warmup finds where a run's steady state begins, by the rule of
// llmmetrics.WarmupRule, over plain durations: the requests in send order,
// cut into consecutive windows, each window's lower median TTFT and TPOT,
// and the first window after which enough windows in a row change both
// medians by less than a tolerance.
package warmup

import (
	"slices"
	"time"
)

// A Sample is what the rule reads of one request: its send time, its TTFT
// and its TPOT.
type Sample struct{ Sent, TTFT, TPOT time.Duration }

// Steady sorts ss by send time (stably: requests sent at one instant keep
// their order) and reads them in consecutive windows of window samples; a
// last window of fewer is not read. It returns the first window start
// (from 0) after which windows consecutive windows each change both lower
// medians by less than tol (relative) from the window before, and true;
// n is the number of windows read. A median of 0 is stable only when the
// next is 0 too. window and windows must be positive.
func Steady(ss []Sample, window, windows int, tol float64) (start, n int, ok bool) {
	slices.SortStableFunc(ss, func(a, b Sample) int { return int(min(max(a.Sent-b.Sent, -1), 1)) })
	n = len(ss) / window
	type medians struct{ ttft, tpot time.Duration }
	ms := make([]medians, n)
	ttfts, tpots := make([]time.Duration, window), make([]time.Duration, window)
	for w := range n {
		for k, s := range ss[w*window : (w+1)*window] {
			ttfts[k], tpots[k] = s.TTFT, s.TPOT
		}
		ms[w] = medians{lowerMedian(ttfts), lowerMedian(tpots)}
	}
	stable := func(a, b time.Duration) bool {
		if a == 0 {
			return b == 0
		}
		d := float64(b-a) / float64(a)
		return d < tol && d > -tol
	}
	for start := 0; start+windows < n; start++ {
		ok := true
		for w := start + 1; w <= start+windows && ok; w++ {
			ok = stable(ms[w-1].ttft, ms[w].ttft) && stable(ms[w-1].tpot, ms[w].tpot)
		}
		if ok {
			return start, n, true
		}
	}
	return 0, n, false
}

// lowerMedian returns the lower median of xs (a real request's value),
// which it sorts.
func lowerMedian(xs []time.Duration) time.Duration {
	slices.Sort(xs)
	return xs[(len(xs)-1)/2]
}
