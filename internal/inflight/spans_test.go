package inflight

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// SweepSpans finds what Sweep finds, to the bit, in any number of spans,
// and gives the starts in time order: requests of random starts and
// lengths in any order, some of no length, some starting or ending
// together, some at the cuts between spans, in segments.
func TestSweepSpans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 80).Draw(t, "requests")
		starts, lens, ends := make([]time.Duration, n), make([]time.Duration, n), make([]time.Duration, n)
		for i := range starts {
			starts[i] = time.Duration(rapid.IntRange(-5, 40).Draw(t, "start"))
			lens[i] = time.Duration(rapid.IntRange(0, 15).Draw(t, "length"))
			ends[i] = starts[i] + lens[i]
		}
		var segs, segLens [][]time.Duration
		for i := 0; i < n; {
			m := min(n-i, rapid.IntRange(1, 10).Draw(t, "segment"))
			segs, segLens = append(segs, starts[i:i+m]), append(segLens, lens[i:i+m])
			i += m
		}
		sorted := slices.Sorted(slices.Values(starts))
		want, wok := Sweep(slices.Clone(starts), slices.Clone(ends))
		for _, spans := range []int{1, 2, 3, 8, 100} {
			var got []time.Duration
			l, ok := sweepSpans(segs, segLens, n, spans, func(s []time.Duration) {
				if !slices.IsSorted(s) {
					t.Fatalf("%d spans: starts %v given out of order", spans, s)
				}
				got = append(got, s...)
			})
			if ok != wok || l != want {
				t.Fatalf("%d spans, starts %v, lengths %v: %+v, %v; Sweep gives %+v, %v", spans, starts, lens, l, ok, want, wok)
			}
			if !slices.Equal(got, sorted) {
				t.Fatalf("%d spans: starts given as %v, want %v", spans, got, sorted)
			}
		}
	})
}

// The cuts between spans divide a systematic sample of the starts and
// ends into equal parts: 10,000 requests starting at 0, 1, …, 9,999 and
// lasting 10,000 each, sampled every second request (10,000 / 4,096
// rounded down), give the even starts 0 to 9,998 and the even ends 10,000
// to 19,998: 10,000 values 0, 2, …, 19,998. Four spans are cut at the
// 2,500th, 5,000th and 7,500th of them, 5,000, 10,000 and 15,000. The
// requests come in two segments, the second beginning off the step (at
// request 3,333): sampled from its own start, it would give odd times.
func TestSpanCuts(t *testing.T) {
	const n = 10_000
	starts, lengths := make([]time.Duration, n), make([]time.Duration, n)
	for i := range starts {
		starts[i], lengths[i] = time.Duration(i), n
	}
	segs, segLens := [][]time.Duration{starts[:3333], starts[3333:]}, [][]time.Duration{lengths[:3333], lengths[3333:]}
	if got, want := spanCuts(segs, segLens, n, 4), []time.Duration{5000, 10_000, 15_000}; !slices.Equal(got, want) {
		t.Errorf("cuts %v, want %v", got, want)
	}
	// All at one time: no cut.
	clear(lengths)
	clear(starts)
	if got := spanCuts(segs, segLens, n, 4); len(got) != 0 {
		t.Errorf("cuts %v for requests all at 0 of no length, want none", got)
	}
}

// Shuffled, the 2,000,000 requests of TestSweepRowsMemory (100 ns each,
// sent 1 ns apart) are refused by SweepRows at once, and swept by
// SweepSends a span at a time: an eighth of the 4,000,000 starts and ends
// listed at once, 4 MB (from the heap: each list is below
// hugepage.MapFrom), where a list of them all takes 32 MB. SweepRows
// allocated 6.3 MB before it refused them, holding more and more of them
// ahead of its sweep.
func TestSweepSpansMemory(t *testing.T) {
	const n = 2_000_000
	starts, lengths := make([]time.Duration, n), make([]time.Duration, n)
	for i := range starts {
		starts[i], lengths[i] = time.Duration(i), 100
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { starts[i], starts[j] = starts[j], starts[i] })
	segs, segLens := [][]time.Duration{starts}, [][]time.Duration{lengths}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, inOrder := SweepRows(segs, segLens, nil)
	runtime.ReadMemStats(&after)
	if inOrder {
		t.Fatal("shuffled requests taken as in order")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("SweepRows allocated %d bytes before refusing %d shuffled requests; want at most 1 MiB", got, n)
	}
	// The count is 100 from 100 ns on, rising by one a nanosecond before
	// that and falling after the last start, over 0 to 2,000,099.
	runtime.ReadMemStats(&before)
	l, ok, a, some := SweepSends(segs, segLens, nil)
	runtime.ReadMemStats(&after)
	if !ok || l.Max != 100 || l.P50 != 100 || l.Span != n+99 {
		t.Fatalf("level %+v, %v; want the most and the median 100 over %d ns", l, ok, n+99)
	}
	// n−1 gaps of 1 ns: mean 1, no deviation.
	if !some || a.Gaps != n-1 || a.Mean != 1 || a.CV != 0 {
		t.Fatalf("arrivals %+v, %v; want %d gaps of 1 ns", a, some, n-1)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 5<<20 {
		t.Errorf("SweepSends allocated %d bytes for %d shuffled requests; want at most 5 MiB", got, n)
	}
}
