package inflight

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
	"pgregory.net/rapid"
)

// Sends, given sends in runs in time order and others in any order,
// describes the gaps between consecutive sends of both merged, as sorting
// them all and taking the gaps one by one does (gonum's two-pass moments,
// to 1e-12).
func TestSends(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sends := make([]time.Duration, rapid.IntRange(1, 30).Draw(t, "sends"))
		for i := range sends {
			sends[i] = time.Duration(rapid.IntRange(0, 50).Draw(t, "send"))
		}
		slices.Sort(sends)
		var a [][]time.Duration // sends in runs
		for i := 0; i < len(sends); {
			m := min(len(sends)-i, rapid.IntRange(1, 8).Draw(t, "run"))
			a, i = append(a, sends[i:i+m]), i+m
		}
		b := make([]time.Duration, rapid.IntRange(0, 8).Draw(t, "others"))
		for i := range b {
			b[i] = time.Duration(rapid.IntRange(0, 50).Draw(t, "other"))
		}
		all := slices.Sorted(slices.Values(slices.Concat(sends, b)))
		var gaps []float64
		var sum time.Duration
		for i := 1; i < len(all); i++ {
			gaps = append(gaps, float64(all[i]-all[i-1]))
			sum += all[i] - all[i-1]
		}
		got, ok := sendsOf(a, b)
		if ok != (len(gaps) >= 2) {
			t.Fatalf("sends %v: described %v with %d gaps", all, ok, len(gaps))
		}
		if !ok {
			return
		}
		// The mean rounded half away from zero, in integers.
		n := time.Duration(len(gaps))
		mean := (2*sum + n) / (2 * n)
		if got.Gaps != len(gaps) || got.Mean != mean {
			t.Fatalf("sends %v: %d gaps of mean %v; want %d of %v", all, got.Gaps, got.Mean, len(gaps), mean)
		}
		m, std := stat.PopMeanStdDev(gaps, nil)
		if m == 0 {
			if got.Reading != "all at once" || got.CV != 0 {
				t.Fatalf("sends %v: %+v; want all at once", all, got)
			}
			return
		}
		if want := std / m; math.Abs(got.CV-want) > 1e-12*max(1, want) {
			t.Fatalf("sends %v: CV %v; want %v", all, got.CV, want)
		}
	})
}

// Sends' figures by hand.
func TestSendsByHand(t *testing.T) {
	for _, c := range []struct {
		name string
		a    [][]time.Duration
		b    []time.Duration
		want Arrivals
		ok   bool
	}{
		// Gaps 1 and 2: mean 1.5 (rounded to 2 ns), deviation 0.5, CV 1/3.
		{"two gaps", [][]time.Duration{{0, 3}}, []time.Duration{1}, Arrivals{Gaps: 2, Mean: 2, CV: 1.0 / 3, Reading: "paced"}, true},
		// Gaps 1, 1 and 10: mean 4, squares 1+1+100 = 102, N·Q − S² = 306 − 144 = 162,
		// √162/12 = 3√2/4 = 1.06066017177982128…
		{"near 1", [][]time.Duration{{0, 1}, {2, 12}}, nil, Arrivals{Gaps: 3, Mean: 4, CV: 1.0606601717798212, Reading: "Poisson-like"}, true},
		// Gaps 0, 0 and 9: mean 3, N·Q − S² = 243 − 81 = 162, √162/9 = √2,
		// correctly rounded (math.Sqrt(162)/9 rounds twice, an ulp below).
		{"bursty", [][]time.Duration{{0, 0, 0, 9}}, nil, Arrivals{Gaps: 3, Mean: 3, CV: math.Sqrt2, Reading: "bursty"}, true},
		// Gaps 0, 0, 0.
		{"at once", [][]time.Duration{{5, 5}}, []time.Duration{5, 5}, Arrivals{Gaps: 3, Reading: "all at once"}, true},
		// One gap.
		{"one gap", [][]time.Duration{{5}}, []time.Duration{7}, Arrivals{}, false},
	} {
		got, ok := sendsOf(c.a, c.b)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// SweepRows finds what Sweep finds, to the bit, in windows of any size,
// and gives the starts in time order: requests of random starts and
// lengths, some of them of no length and some starting together, in
// segments, with each start moved back by up to a few places (as records
// written at their ends are). It may say the starts are out of order only
// when they are and a window holds fewer than all the requests.
func TestSweepRows(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "requests")
		sorted, lens := make([]time.Duration, n), make([]time.Duration, n)
		at := time.Duration(0)
		for i := range sorted {
			at += time.Duration(rapid.IntRange(0, 3).Draw(t, "gap"))
			sorted[i] = at
		}
		starts := slices.Clone(sorted)
		moved := false
		for i := range starts {
			if d := rapid.IntRange(0, 4).Draw(t, "moved"); d > 0 && i+d < n {
				starts[i], starts[i+d] = starts[i+d], starts[i]
				moved = moved || starts[i] != starts[i+d]
			}
		}
		var ends []time.Duration
		for i := range starts {
			lens[i] = time.Duration(rapid.IntRange(0, 20).Draw(t, "duration"))
			ends = append(ends, starts[i]+lens[i])
		}
		var segs, segLens [][]time.Duration
		for i := 0; i < n; {
			m := min(n-i, rapid.IntRange(1, 10).Draw(t, "segment"))
			segs, segLens = append(segs, starts[i:i+m]), append(segLens, lens[i:i+m])
			i += m
		}
		want, wok := Sweep(slices.Clone(sorted), slices.Clone(ends))
		for _, w := range []int{1, 2, 3, 7, window} {
			var got []time.Duration
			l, ok, inOrder := sweepRows(segs, segLens, w, math.MaxInt, func(s []time.Duration) { got = append(got, s...) })
			if !inOrder {
				if !moved || w >= n {
					t.Fatalf("window %d: starts %v said out of order", w, starts)
				}
				continue
			}
			if ok != wok || l != want {
				t.Fatalf("window %d, starts %v: %+v, %v; Sweep gives %+v, %v", w, starts, l, ok, want, wok)
			}
			if !slices.Equal(got, sorted) {
				t.Fatalf("window %d: starts given as %v, want %v", w, got, sorted)
			}
		}
	})
}

// SweepRows keeps the starts and ends ahead of the sweep, not one for each
// request: 2,000,000 requests of 100 ns sent 1 ns apart (100 in flight),
// in order or each pair of rows swapped (as records written at their ends
// come), take a few windows' memory (three lists of up to twice a window,
// 3 MiB), not the 16 MB a list of their ends would.
func TestSweepRowsMemory(t *testing.T) {
	const n = 2_000_000
	for _, swapped := range []bool{false, true} {
		starts, lengths := make([]time.Duration, n), make([]time.Duration, n)
		for i := range starts {
			starts[i], lengths[i] = time.Duration(i), 100
			if swapped && i%2 == 1 {
				starts[i-1], starts[i] = starts[i], starts[i-1]
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		l, ok, inOrder := SweepRows([][]time.Duration{starts}, [][]time.Duration{lengths}, nil)
		runtime.ReadMemStats(&after)
		// Span 0 to 2,000,099; the count is 100 from 100 on, rising by one
		// a nanosecond before that and falling after the last start.
		if !ok || !inOrder || l.Max != 100 || l.P50 != 100 || l.Span != n+99 {
			t.Fatalf("swapped %v: level %+v, %v, in order %v; want the most and the median 100 over %d ns", swapped, l, ok, inOrder, n+99)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("swapped %v: SweepRows allocated %d bytes for %d requests; want at most 4 MiB", swapped, got, n)
		}
	}
}

// Starts further from time order than a window are refused: the last of
// 200,000 requests starts first.
func TestSweepRowsOutOfOrder(t *testing.T) {
	starts, lengths := make([]time.Duration, 200_000), make([]time.Duration, 200_000)
	for i := range starts {
		starts[i], lengths[i] = time.Duration(i+1), 5
	}
	starts[len(starts)-1] = 0
	if _, _, inOrder := SweepRows([][]time.Duration{starts}, [][]time.Duration{lengths}, nil); inOrder {
		t.Error("a start 199,999 rows late was taken as in order")
	}
}

// The two ways to sweep 5,000,000 requests sent 1 ms apart, each up to 3 s
// long (about 1,500 in flight): listing their ends and sorting them for
// Sweep, as a run's records are swept, or SweepRows, as a table's.
func BenchmarkSweep(b *testing.B) {
	starts, lengths := benchRequests(5_000_000)
	ends := make([]time.Duration, len(starts))
	for b.Loop() {
		for i, s := range starts {
			ends[i] = s + lengths[i]
		}
		Sweep(starts, ends)
	}
}

func BenchmarkSweepRows(b *testing.B) {
	starts, lengths := benchRequests(5_000_000)
	for b.Loop() {
		SweepRows([][]time.Duration{starts}, [][]time.Duration{lengths}, nil)
	}
}

// benchRequests returns n requests sent 1 ms apart, each up to 3 s long.
func benchRequests(n int) (starts, lengths []time.Duration) {
	rng := rand.New(rand.NewPCG(1, 2))
	starts, lengths = make([]time.Duration, n), make([]time.Duration, n)
	for i := range starts {
		starts[i] = time.Duration(i) * time.Millisecond
		lengths[i] = time.Duration(rng.Int64N(int64(3 * time.Second)))
	}
	return starts, lengths
}

// sendsOf describes the sends of a (runs in time order) merged with b
// (any order), through Sends.
func sendsOf(a [][]time.Duration, b []time.Duration) (Arrivals, bool) {
	s := NewSends(b)
	for _, run := range a {
		s.Add(run)
	}
	return s.Describe()
}
