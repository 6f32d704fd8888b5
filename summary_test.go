package llmmetrics

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
	"pgregory.net/rapid"
)

// genRecord draws a record of any category; with bad set, it may also be
// invalid.
func genRecord(bad bool) *rapid.Generator[Record] {
	return rapid.Custom(func(t *rapid.T) Record {
		r := Record{
			Sent:         time.Duration(rapid.Int64Range(0, 10e9).Draw(t, "sent")),
			PromptTokens: rapid.IntRange(0, 4000).Draw(t, "prompt"),
		}
		r.Status = rapid.SampledFrom([]Status{StatusOK, StatusOK, StatusOK, StatusOK, StatusError, StatusTimeout, StatusCancelled}).Draw(t, "status")
		n := rapid.IntRange(0, 40).Draw(t, "n")
		r.CompletionTokens = n
		if n > 0 {
			if rapid.Bool().Draw(t, "chunked") {
				k := rapid.IntRange(1, n).Draw(t, "chunks")
				at := time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "ttft"))
				for range k {
					r.Chunks = append(r.Chunks, at)
					at += time.Duration(rapid.Int64Range(0, 200e6).Draw(t, "gap"))
				}
			} else {
				r.FirstText = time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "ttft"))
				r.LastText = r.FirstText + time.Duration(rapid.Int64Range(0, 5e9).Draw(t, "decode"))
			}
		}
		r.Warmup = rapid.IntRange(0, 9).Draw(t, "warmup") == 0
		if rapid.Bool().Draw(t, "client") {
			r.Client = &ClientSide{Wait: time.Duration(rapid.Int64Range(0, 5e6).Draw(t, "wait"))}
			if rapid.Bool().Draw(t, "open") {
				r.Client.Scheduled, r.Client.HasSchedule = r.Sent-time.Duration(rapid.Int64Range(0, 1e9).Draw(t, "late")), true
			}
		}
		if bad && rapid.IntRange(0, 5).Draw(t, "corrupt") == 0 {
			r.Status = StatusOK
			r.CompletionTokens = -1
		}
		return r
	})
}

func genRecords(t *rapid.T, bad bool) []Record {
	recs := rapid.SliceOfN(genRecord(bad), 1, 60).Draw(t, "recs")
	for i := range recs {
		recs[i].ID = fmt.Sprint("r", i)
	}
	return recs
}

// withoutIDs renders a summary with the request ids dropped: ids name the
// first request holding a value, which depends on the input order.
func withoutIDs(t *rapid.T, s *Summary) string {
	for _, d := range []*Distribution{s.TTFT, s.E2E, s.MaxGap} {
		if d != nil {
			for i := range d.Points {
				d.Points[i].ID = ""
			}
		}
	}
	if s.TPOT != nil {
		for i := range s.TPOT.Points {
			s.TPOT.Points[i].ID = ""
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func cloneRecords(recs []Record) []Record {
	out := slices.Clone(recs)
	for i := range out {
		out[i].Chunks = slices.Clone(out[i].Chunks)
		if c := out[i].Client; c != nil {
			cc := *c
			out[i].Client = &cc
		}
	}
	return out
}

// Invariants of Summarize over random runs: the accounting identity; the
// input is not modified; shuffling the records or shifting every send time
// changes nothing; goodput never exceeds request throughput; attainment is
// a fraction; loosening an SLO never lowers the good count.
func TestSummarizeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bad := rapid.Bool().Draw(t, "bad")
		recs := genRecords(t, bad)
		m := rapid.SampledFrom([]Method{NearestRank, Linear}).Draw(t, "m")
		slo := SLO{
			TTFT: time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "slo_ttft")),
			TPOT: time.Duration(rapid.Int64Range(0, 200e6).Draw(t, "slo_tpot")),
			E2E:  time.Duration(rapid.Int64Range(0, 5e9).Draw(t, "slo_e2e")),
		}
		opt := Options{Method: m, SLO: &slo, Lenient: true}
		orig := cloneRecords(recs)

		s, err := Summarize(recs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(orig, recs, func(a, b Record) bool {
			return a.ID == b.ID && a.Sent == b.Sent && slices.Equal(a.Chunks, b.Chunks)
		}) {
			t.Fatal("input modified")
		}
		a := s.Requests
		if a.Offered != len(recs) || a.Offered != a.OK+a.ZeroToken+a.Failed+a.Rejected+a.Warmup ||
			a.Failed != a.Errors+a.Timeouts+a.Cancelled || a.Rejected != len(s.Rejected) {
			t.Fatalf("accounting does not add up: %+v", a)
		}
		g := s.Goodput
		if a.Offered == a.Warmup {
			if g != nil {
				t.Fatal("goodput of warm-up requests alone")
			}
			return
		}
		if g.Offered != a.Offered-a.Warmup || g.Attainment < 0 || g.Attainment > 1 || g.Good > a.OK {
			t.Fatalf("goodput %+v", g)
		}
		if s.Throughput != nil && float64(g.RequestsPerSecond) > float64(s.Throughput.RequestsPerSecond) {
			t.Fatal("goodput above request throughput")
		}
		if s.TPOT != nil && s.TPOT.N+s.TPOT.Excluded+a.Unstreamed != a.OK {
			t.Fatal("TPOT samples and exclusions do not cover the ok requests")
		}

		// The pooled gaps, read in place, match the gaps written out.
		var all []time.Duration
		for i := range recs {
			if recs[i].Category() == CategoryOK && recs[i].Validate() == nil {
				all = appendGaps(all, &recs[i])
			}
		}
		if s.ITL != nil {
			flat, err := Describe(all, m, DefaultPercentiles...)
			if err != nil || !reflect.DeepEqual(flat, s.ITL.Distribution) {
				t.Fatalf("pooled gaps %+v, flat %+v (%v)", s.ITL.Distribution, flat, err)
			}
		} else if len(all) > 0 {
			t.Fatal("gaps but no ITL")
		}

		shuffled := cloneRecords(recs)
		rapid.Permutation(shuffled).Draw(t, "perm")
		s2, err := Summarize(shuffled, opt)
		if err != nil {
			t.Fatal(err)
		}
		// Rejections are listed in input order; compare them as counts.
		s2.Rejected = nil
		s.Rejected = nil
		if withoutIDs(t, s2) != withoutIDs(t, s) {
			t.Fatal("not permutation-invariant")
		}
		shift := time.Duration(rapid.Int64Range(-1e12, 1e12).Draw(t, "shift"))
		shifted := cloneRecords(recs)
		for i := range shifted {
			shifted[i].Sent += shift
			if c := shifted[i].Client; c != nil && c.HasSchedule {
				c.Scheduled += shift // the schedule is on the same clock
			}
		}
		s3, err := Summarize(shifted, opt)
		if err != nil {
			t.Fatal(err)
		}
		s3.Rejected = nil
		if s3.Throughput != nil {
			s3.Throughput.Window.Start -= shift
			s3.Throughput.Window.End -= shift
			s3.Goodput.Window = s3.Throughput.Window
		}
		if withoutIDs(t, s3) != withoutIDs(t, s) {
			t.Fatal("not time-shift-invariant")
		}

		looser := slo
		looser.TTFT, looser.TPOT, looser.E2E = looser.TTFT*2, looser.TPOT*2, looser.E2E*2
		s4, err := Summarize(recs, Options{Method: m, SLO: &looser, Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		if s4.Goodput.Good < g.Good {
			t.Fatal("a looser SLO lowered goodput")
		}
	})
}

// E2E = TTFT + Σ gaps exactly, and TPOT = mean gap (to the nanosecond) when
// each chunk carries one token.
func TestIdentitiesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRecord(false).Draw(t, "r")
		if r.Status != StatusOK || len(r.Chunks) == 0 {
			t.Skip("no chunks")
		}
		ttft, _ := r.TTFT()
		e2e, _ := r.E2E()
		gaps, _ := r.AppendGaps(nil)
		var sum time.Duration
		for _, g := range gaps {
			sum += g
		}
		if e2e != ttft+sum {
			t.Fatalf("E2E %v ≠ TTFT %v + Σ gaps %v", e2e, ttft, sum)
		}
		if len(r.Chunks) == r.CompletionTokens && r.CompletionTokens >= 2 {
			tp, _ := r.TPOT()
			if want := divRound(sum, int64(len(gaps))); tp != want {
				t.Fatalf("TPOT %v ≠ mean gap %v", tp, want)
			}
			// E2E = TTFT + (n−1)·TPOT, up to TPOT's rounding.
			if d := e2e - (ttft + time.Duration(r.CompletionTokens-1)*tp); d < -time.Duration(r.CompletionTokens) || d > time.Duration(r.CompletionTokens) {
				t.Fatalf("E2E − (TTFT + (n−1)·TPOT) = %v", d)
			}
		}
	})
}

// Mean and population standard deviation against gonum's, an independent
// implementation.
func TestDescribeAgainstGonum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(rapid.Int64Range(0, 1e12), 1, 200).Draw(t, "xs")
		ds := make([]time.Duration, len(xs))
		fs := make([]float64, len(xs))
		for i, x := range xs {
			ds[i], fs[i] = time.Duration(x), float64(x)
		}
		d, err := Describe(ds, NearestRank)
		if err != nil {
			t.Fatal(err)
		}
		mean, std := stat.PopMeanStdDev(fs, nil)
		if diff := float64(d.Mean) - mean; diff > 0.5+1e-9*mean || diff < -0.5-1e-9*mean {
			t.Fatalf("mean %v, gonum %v", d.Mean, mean)
		}
		if diff := float64(d.Std) - std; diff > 1+1e-6*std || diff < -1-1e-6*std {
			t.Fatalf("std %v, gonum %v", d.Std, std)
		}
		if d.Min != slices.Min(ds) || d.Max != slices.Max(ds) {
			t.Fatal("min/max")
		}
	})
}

// SLO limits are inclusive by default and strict on request, at the exact
// boundary and one nanosecond either side.
func TestSLOBoundaries(t *testing.T) {
	r := Record{ID: "b", FirstText: 500 * time.Millisecond, LastText: 600 * time.Millisecond, CompletionTokens: 3} // TPOT 50 ms
	for _, c := range []struct {
		slo  SLO
		want bool
	}{
		{SLO{TTFT: 500 * time.Millisecond}, true},
		{SLO{TTFT: 500*time.Millisecond - 1}, false},
		{SLO{TTFT: 500 * time.Millisecond, Strict: true}, false},
		{SLO{TTFT: 500*time.Millisecond + 1, Strict: true}, true},
		{SLO{TPOT: 50 * time.Millisecond}, true},
		{SLO{TPOT: 50 * time.Millisecond, Strict: true}, false},
		{SLO{E2E: 600 * time.Millisecond}, true},
		{SLO{E2E: 600*time.Millisecond - 1}, false},
		{SLO{}, true},
	} {
		got, err := c.slo.Meets(&r)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%v", c.slo)
	}
	// A one-token request has no TPOT: a TPOT limit does not apply.
	one := Record{ID: "o", FirstText: ms(10), LastText: ms(10), CompletionTokens: 1}
	ok, err := SLO{TPOT: time.Nanosecond}.Meets(&one)
	require.NoError(t, err)
	assert.True(t, ok)
	// Failed and zero-token requests never meet an SLO, even SLO{}.
	for _, r := range []Record{{Status: StatusError}, {}} {
		ok, err := SLO{}.Meets(&r)
		require.NoError(t, err)
		assert.False(t, ok)
	}
	// A max-gap limit needs chunk arrivals.
	_, err = SLO{MaxGap: time.Second}.Meets(&r)
	assert.ErrorIs(t, err, ErrNoChunks)
	_, err = Summarize([]Record{r}, Options{SLO: &SLO{MaxGap: time.Second}})
	assert.ErrorIs(t, err, ErrNoChunks)
	_, err = SLO{TTFT: -1}.Meets(&r)
	assert.ErrorIs(t, err, ErrInvalidSLO)

	s, err := Summarize([]Record{one, r}, Options{SLO: &SLO{TPOT: time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, 1, s.Goodput.TPOTNotApplicable)
	assert.Equal(t, 1, s.Goodput.Good)
}

func TestParseSLO(t *testing.T) {
	slo, err := ParseSLO("ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s")
	require.NoError(t, err)
	assert.Equal(t, SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond, E2E: 5 * time.Second, MaxGap: time.Second}, slo)
	assert.Equal(t, "ttft=500ms,tpot=50ms,e2e=5s,max_gap=1s (inclusive ≤)", slo.String())
	for _, bad := range []string{"", "ttft", "ttft=", "ttft=-1s", "ttft=0s", "ttft=5", "itl=5ms", "ttft=1s,ttft=2s", "ttft=NaNs"} {
		_, err := ParseSLO(bad)
		assert.ErrorIs(t, err, ErrInvalidSLO, "%q", bad)
	}
	assert.Equal(t, "none", SLO{}.String())
}

func TestNoSendTimes(t *testing.T) {
	recs := []Record{{ID: "a", FirstText: ms(100), LastText: ms(500), CompletionTokens: 5}}
	s, err := Summarize(recs, Options{NoSendTimes: true, SLO: &SLO{}})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput)
	assert.Contains(t, s.Absent["throughput"], "no send times")
	assert.Equal(t, 1.0, s.Goodput.Attainment)
	s, err = Summarize(recs, Options{NoSendTimes: true, Window: time.Second})
	require.NoError(t, err)
	assert.Equal(t, OutputTokenRate(5), s.Throughput.OutputTokensPerSecond)
}

// Warm-up requests are not judged: of two measured requests, one meets
// the SLO and one fails, whatever the warm-up did: attainment 1/2.
func TestGoodputLeavesWarmupOut(t *testing.T) {
	recs := []Record{
		{ID: "w1", Warmup: true, FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
		{ID: "w2", Warmup: true, Status: StatusError},
		{ID: "a", Sent: time.Second, FirstText: 100 * time.Millisecond, LastText: 200 * time.Millisecond, CompletionTokens: 2},
		{ID: "b", Sent: time.Second, Status: StatusTimeout},
	}
	s, err := Summarize(recs, Options{SLO: &SLO{TTFT: 500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Goodput; g.Good != 1 || g.Offered != 2 || g.Attainment != 0.5 {
		t.Fatalf("goodput %d/%d = %v, want 1/2", g.Good, g.Offered, g.Attainment)
	}
	all, err := Summarize(recs[:2], Options{SLO: &SLO{TTFT: 500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if all.Goodput != nil || all.Absent["goodput"] == "" {
		t.Fatalf("every request warm-up: goodput %+v, absent %q", all.Goodput, all.Absent["goodput"])
	}
}

// A run's declared window and missing send times are applied by
// Run.Summarize, so that every command that summarizes the run gets the
// same throughput: 5 ok requests of 2 tokens over a declared 10 s are 0.5
// requests/s and 1 token/s; a window in the options wins.
func TestRunDeclaredWindow(t *testing.T) {
	var recs []Record
	for i := range 5 {
		recs = append(recs, Record{ID: fmt.Sprint(i), FirstText: ms(100), LastText: ms(300), CompletionTokens: 2})
	}
	run := &Run{Records: recs, Window: 10 * time.Second, NoSendTimes: true}
	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	require.NotNil(t, s.Throughput)
	assert.Equal(t, RequestRate(0.5), s.Throughput.RequestsPerSecond)
	assert.Equal(t, OutputTokenRate(1), s.Throughput.OutputTokensPerSecond)
	require.NotNil(t, s.Workload)
	assert.Nil(t, s.Workload.Arrivals)
	assert.Nil(t, s.Workload.Concurrency)
	assert.Equal(t, "the records carry no send times", s.Absent["workload.arrivals"])
	assert.Equal(t, "the records carry no send times", s.Absent["workload.concurrency"])

	s, err = run.Summarize(Options{Window: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, RequestRate(1), s.Throughput.RequestsPerSecond)

	run.Window = 0 // no send times and no window: no throughput
	s, err = run.Summarize(Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput)
	assert.Contains(t, s.Absent["throughput"], "no send times")
}
