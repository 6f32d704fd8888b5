package llmmetrics

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// A run large enough to be counted and gathered on several cores, with
// every category, one-token and chunkless records, and repeated ids.
func mixedRun(n int) []Record {
	rng := rand.New(rand.NewPCG(9, 9))
	recs := make([]Record, n)
	for i := range recs {
		r := &recs[i]
		r.ID = "r" + itoa(i)
		r.Sent = time.Duration(i) * time.Millisecond
		r.PromptTokens = 1 + rng.IntN(2000)
		switch k := rng.IntN(20); {
		case k == 0:
			r.Status, r.Message = StatusError, "boom"
		case k == 1:
			r.Status = StatusTimeout
		case k == 2: // zero tokens
		case k == 3:
			r.CompletionTokens, r.FirstText, r.LastText = 1, 90*time.Millisecond, 90*time.Millisecond
		case k == 4:
			r.CompletionTokens, r.FirstText, r.LastText = 30, 80*time.Millisecond, 900*time.Millisecond
		case k == 5:
			r.ID = "r" + itoa(i/2) // a repeat, rejected in lenient mode
		default:
			at := time.Duration(40+rng.IntN(200)) * time.Millisecond
			for range 1 + rng.IntN(40) {
				r.Chunks = append(r.Chunks, at)
				at += time.Duration(1+rng.IntN(50)) * time.Millisecond
			}
			r.CompletionTokens = len(r.Chunks) + rng.IntN(3)
		}
	}
	return recs
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// The summary does not depend on the number of cores it is computed on:
// every figure combined across them is an integer.
func TestSummaryOnAnyCores(t *testing.T) {
	recs := mixedRun(60_000)
	slo := &SLO{TTFT: 200 * time.Millisecond, TPOT: 40 * time.Millisecond}
	// In a copy, the ok records without chunks all come late in the run.
	late := slices.Clone(recs)
	for i := range 40_000 {
		if r := &late[i]; r.Category() == CategoryOK && len(r.Chunks) == 0 {
			r.Status = StatusError
		}
	}
	summarizeOn := func(procs int, slo *SLO) (*Summary, error) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		in := recs
		if slo.MaxGap > 0 {
			in = late
		}
		return Summarize(in, Options{SLO: slo, Lenient: true, Stratify: &StrataSpec{By: "output"}})
	}
	one, err := summarizeOn(1, slo)
	if err != nil {
		t.Fatal(err)
	}
	if one.Requests.Rejected == 0 || one.ITL == nil || one.Goodput == nil || one.TPOT.Excluded == 0 {
		t.Fatalf("the run does not exercise what it should: %+v", one.Requests)
	}
	// A max-gap limit cannot judge the chunkless records: the error names
	// the first of them, in input order, on any number of cores, though
	// later runs of records meet theirs first.
	gapSLO := &SLO{MaxGap: 45 * time.Millisecond}
	_, oneErr := summarizeOn(1, gapSLO)
	if oneErr == nil {
		t.Fatal("a max-gap limit judged records without chunks")
	}
	for _, procs := range []int{2, 3, 8} {
		got, err := summarizeOn(procs, slo)
		if err != nil || !reflect.DeepEqual(got, one) {
			t.Fatalf("on %d cores the summary differs from one core's (%v)", procs, err)
		}
		if _, err := summarizeOn(procs, gapSLO); err == nil || err.Error() != oneErr.Error() {
			t.Fatalf("on %d cores the error is %v, on one %v", procs, err, oneErr)
		}
	}
}

// Summarize gives back the memory it maps for its lists (samples, id
// hashes, largest gaps, sends), whether it ends with a summary, at a
// record it cannot judge or at rejected records, from records and from a
// table; so does workloadOf. Every list is mapped here, however
// small.
func TestSummaryGivesBackMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory is mapped apart from the heap on Linux only")
	}
	defer func(from uintptr) { hugepage.MapFrom = from }(hugepage.MapFrom)
	hugepage.MapFrom = 1
	recs := mixedRun(5_000)
	table := mostlyOKCSV(rand.New(rand.NewPCG(3, 3)), 5_000, "t")
	for _, c := range []struct {
		name    string
		slo     SLO
		fails   bool
		summary func(opt Options) error
	}{
		{"records", SLO{TTFT: 200 * time.Millisecond}, false, nil},
		{"records, a record it cannot judge", SLO{MaxGap: 45 * time.Millisecond}, true, nil},
		{"table", SLO{TTFT: 200 * time.Millisecond}, false, func(opt Options) error {
			_, _, err := ReadOptions{Lenient: true}.Summarize(bytes.NewReader(table), opt)
			return err
		}},
		{"strict, stopped by the repeated ids", SLO{}, true, func(opt Options) error {
			opt.Lenient = false
			_, err := Summarize(recs, opt)
			return err
		}},
		{"the workload alone", SLO{}, false, func(Options) error {
			_, err := workloadOf(recs)
			return err
		}},
	} {
		opt := Options{Lenient: true, SLO: &c.slo}
		if c.summary == nil {
			c.summary = func(opt Options) error {
				_, err := Summarize(recs, opt)
				return err
			}
		}
		before := hugepage.Mapped()
		if err := c.summary(opt); (err != nil) != c.fails {
			t.Fatalf("%s: error %v", c.name, err)
		}
		if m := hugepage.Mapped(); m != before {
			t.Errorf("%s: %d bytes mapped before, %d after", c.name, before, m)
		}
	}
}

// stdByBig is the plain statement of the standard deviation: the mean
// rounded to the nanosecond (halves away from zero), the squared deviations
// summed in big integers, rounded to a float64 once, the root rounded to the
// nanosecond.
func stdByBig(xs []time.Duration) time.Duration {
	sum := new(big.Int)
	for _, x := range xs {
		sum.Add(sum, big.NewInt(int64(x)))
	}
	mean, _ := new(big.Rat).SetFrac(sum, big.NewInt(int64(len(xs)))).Float64()
	m := int64(math.Round(mean)) // exact: the means here are far below 2⁵³ or whole
	ss := new(big.Int)
	for _, x := range xs {
		d := big.NewInt(int64(x) - m)
		ss.Add(ss, d.Mul(d, d))
	}
	f, _ := new(big.Float).SetInt(ss).Float64()
	return time.Duration(math.Round(math.Sqrt(f / float64(len(xs)))))
}

func TestStdExact(t *testing.T) {
	// By hand: {0, 2, 4, 10} ns has mean 4, deviations −4, −2, 0, 6, whose
	// squares sum to 56: √(56/4) = √14 = 3.74 → 4 ns.
	d, err := Describe([]time.Duration{0, 2, 4, 10}, NearestRank)
	if err != nil || d.Std != 4 {
		t.Fatalf("std of {0, 2, 4, 10} = %v, %v; want 4ns", d.Std, err)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	for _, spread := range []int64{3, 1e6, 1e12, maxTime / 4} {
		xs := make([]time.Duration, 1+rng.IntN(3000))
		for i := range xs {
			xs[i] = time.Duration(rng.Int64N(spread))
		}
		d, err := Describe(xs, NearestRank)
		if err != nil {
			t.Fatal(err)
		}
		if want := stdByBig(xs); d.Std != want {
			t.Fatalf("spread %d: std %v, big integers %v", spread, d.Std, want)
		}
		// The same values as the gaps of one record's arrivals, whose
		// squares are summed in the pass that finds their range (where
		// the arrivals stay within MaxTime).
		if spread > maxTime/int64(len(xs)) {
			continue
		}
		chunks := []time.Duration{0}
		for _, x := range xs {
			chunks = append(chunks, chunks[len(chunks)-1]+x)
		}
		mo := moments{squared: true}
		lo, hi := exact.Gaps(chunks, &mo.squares)
		mo.addMany(len(xs), lo, hi, chunks[len(chunks)-1])
		g := describeSample(sample{Segs: [][]time.Duration{chunks}, Gaps: true, N: len(xs)}, mo, NearestRank, nil)
		if g.Std != d.Std || g.Mean != d.Mean || g.Min != d.Min || g.Max != d.Max {
			t.Fatalf("spread %d: as gaps %+v, as values %+v", spread, g, d)
		}
	}
}

// A record set aside for a repeated id adds nothing to the pooled gaps,
// though its gaps were pooled while it was validated: the ITL and max-gap
// figures are those of the run without it.
func TestRepeatedIDLeavesGaps(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{ID: "a", Chunks: []time.Duration{10 * ms, 20 * ms, 35 * ms}, CompletionTokens: 3},
		{ID: "b", Chunks: []time.Duration{5 * ms, 9 * ms}, CompletionTokens: 2},
		// A repeat of a, with the run's smallest and largest gaps.
		{ID: "a", Chunks: []time.Duration{1 * ms, 2 * ms, 900 * ms}, CompletionTokens: 3},
	}
	with, err := Summarize(recs, Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Summarize(recs[:2], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if with.Requests.Rejected != 1 || !reflect.DeepEqual(with.ITL, without.ITL) || !reflect.DeepEqual(with.MaxGap, without.MaxGap) {
		t.Fatalf("ITL %+v, max gap %+v; without the repeat %+v, %+v", with.ITL, with.MaxGap, without.ITL, without.MaxGap)
	}
	// By hand: the gaps 10, 15 and 4 ms: min 4, max 15, mean 29/3 ms.
	if d := with.ITL.Distribution; d.N != 3 || d.Min != 4*ms || d.Max != 15*ms || d.Mean != 9666667 {
		t.Fatalf("ITL %+v", d)
	}
}
