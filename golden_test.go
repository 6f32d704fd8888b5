package llmmetrics

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readRun reads a file of testdata/seeds and requires it to parse cleanly.
func readRun(t *testing.T, name string) *Run {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "seeds", name))
	require.NoError(t, err)
	defer f.Close()
	run, _, err := Read(f)
	require.NoError(t, err)
	require.NoError(t, run.Err())
	return run
}

func point(t *testing.T, d *Distribution, p float64) time.Duration {
	t.Helper()
	require.NotNil(t, d)
	v, ok := d.At(MustPercentile(p))
	require.True(t, ok, "no p%v", p)
	return v
}

// Seed 000, opening trace: TTFT 120 ms, ITLs 35/37/36/37 ms, TPOT 36.25 ms,
// E2E 265 ms, user TPS 4/0.145 s ≈ 27.6; and the Databricks check:
// 120 + 5·36.25 = 301.25 ms, over the exact 265 ms by 36.25 ms.
func TestGoldenOpeningTrace(t *testing.T) {
	run := readRun(t, "opening_trace.jsonl")
	r := &run.Records[0]

	ttft, err := r.TTFT()
	require.NoError(t, err)
	assert.Equal(t, 120*time.Millisecond, ttft)
	gaps, err := r.AppendGaps(nil)
	require.NoError(t, err)
	assert.Equal(t, durations(35, 37, 36, 37), gaps)
	basis, err := r.GapBasis()
	require.NoError(t, err)
	assert.Equal(t, BasisToken, basis) // 5 chunks, 5 tokens
	tp, err := r.TPOT()
	require.NoError(t, err)
	assert.Equal(t, ms(36.25), tp)
	e2e, err := r.E2E()
	require.NoError(t, err)
	assert.Equal(t, 265*time.Millisecond, e2e)
	// E2E = TTFT + Σ ITL = 120 + 145, and = TTFT + (n−1)·TPOT = 120 + 4·36.25.
	assert.Equal(t, e2e, ttft+gaps[0]+gaps[1]+gaps[2]+gaps[3])
	assert.Equal(t, e2e, ttft+4*tp)
	tps, err := r.UserTPS()
	require.NoError(t, err)
	assert.InDelta(t, 27.586, float64(tps), 0.001) // 4/0.145 = 27.5862…
	assert.InDelta(t, 1/0.03625, float64(tps), 1e-9)

	approx, err := r.DatabricksE2E()
	require.NoError(t, err)
	assert.Equal(t, ms(301.25), approx.Approx)
	assert.Equal(t, 265*time.Millisecond, approx.Exact)
	assert.Equal(t, ms(36.25), approx.Error)
	assert.Equal(t, 0.2, approx.RelativeError) // 1/n, "20% at n = 5"

	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	assert.Equal(t, 4, s.ITL.N)
	assert.Equal(t, BasisToken, s.ITL.Basis)
	assert.Equal(t, ms(36.25), s.ITL.Mean) // 145/4
	assert.Equal(t, 37*time.Millisecond, s.MaxGap.Max)
}

// Seed 000, averaging illustration: request-weighted mean TPOT
// (10 + 50)/2 = 30 ms; gap-weighted (99·10 + 1·50)/(99 + 1) = 10.4 ms.
func TestGoldenAveraging(t *testing.T) {
	s, err := readRun(t, "averaging.csv").Summarize(Options{})
	require.NoError(t, err)
	require.NotNil(t, s.TPOT)
	assert.Equal(t, 2, s.TPOT.N)
	assert.Equal(t, 30*time.Millisecond, s.TPOT.Mean)
	assert.Equal(t, ms(10.4), s.TPOT.GapWeightedMean)
	assert.Equal(t, 10*time.Millisecond, s.TPOT.Min)
	assert.Equal(t, 50*time.Millisecond, s.TPOT.Max)
	assert.Nil(t, s.ITL, "the CSV has no chunk timings, so no gap distribution")
	assert.Contains(t, s.Absent, "itl")
}

// Seed 002, four-token trace: TTFT 100 ms, gaps 20/200/20 ms, TPOT
// (340 − 100)/3 = 80 ms, last-token latency 100 + 3·80 = 340 ms, and a
// 200 ms pause that the mean hides.
func TestGoldenFourTokenTrace(t *testing.T) {
	run := readRun(t, "four_token_trace.jsonl")
	r := &run.Records[0]
	gaps, err := r.AppendGaps(nil)
	require.NoError(t, err)
	assert.Equal(t, durations(20, 200, 20), gaps)
	tp, err := r.TPOT()
	require.NoError(t, err)
	assert.Equal(t, 80*time.Millisecond, tp)
	e2e, err := r.E2E()
	require.NoError(t, err)
	assert.Equal(t, 340*time.Millisecond, e2e)
	mg, err := r.MaxGap()
	require.NoError(t, err)
	assert.Equal(t, 200*time.Millisecond, mg)

	s, err := run.Summarize(Options{SLO: &SLO{TPOT: 100 * time.Millisecond, MaxGap: 150 * time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, 100*time.Millisecond, s.TTFT.Min)
	// The mean TPOT of 80 ms meets a 100 ms limit; the 200 ms stall fails a
	// 150 ms max-gap limit.
	assert.Equal(t, 0, s.Goodput.Good)
	assert.Equal(t, 0, s.Goodput.FailedTPOT)
	assert.Equal(t, 1, s.Goodput.FailedMaxGap)
}

// Seed 002, goodput cohort: limits TTFT ≤ 500 ms and TPOT ≤ 50 ms over a
// 10 s offered window; A and B pass, C is late, D is slow, E timed out.
// Goodput 2/10 s = 0.2 requests/s; attainment 2/5 = 40 %.
func TestGoldenGoodputCohort(t *testing.T) {
	run := readRun(t, "goodput_cohort.csv")
	slo := SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}
	s, err := run.Summarize(Options{SLO: &slo, Window: 10 * time.Second})
	require.NoError(t, err)
	g := s.Goodput
	require.NotNil(t, g)
	assert.Equal(t, 2, g.Good)
	assert.Equal(t, 5, g.Offered)
	assert.Equal(t, 0.4, g.Attainment)
	assert.Equal(t, RequestRate(0.2), g.RequestsPerSecond)
	assert.Equal(t, 1, g.FailedTTFT) // C
	assert.Equal(t, 1, g.FailedTPOT) // D
	assert.Equal(t, Accounting{Offered: 5, OK: 4, Failed: 1, Timeouts: 1}, s.Requests)

	// Each request's verdict, as in the lesson's table.
	want := map[string]bool{"A": true, "B": true, "C": false, "D": false, "E": false}
	for i := range run.Records {
		r := &run.Records[i]
		got, err := slo.Meets(r)
		require.NoError(t, err)
		assert.Equal(t, want[r.ID], got, r.ID)
	}
}

// Seed 000, TPOT from the CSV: (E2E − TTFT)/(completion_tokens − 1) for
// completion_tokens ≥ 2 — r1 300/10 = 30 ms, r2 40/1 = 40 ms, r6 800/32 =
// 25 ms — with the one-token r3 excluded and counted, the zero-token r4 and
// the failed r5 counted apart.
func TestGoldenTPOTExercise(t *testing.T) {
	s, err := readRun(t, "tpot_exercise.csv").Summarize(Options{})
	require.NoError(t, err)
	assert.Equal(t, Accounting{Offered: 6, OK: 4, ZeroToken: 1, Failed: 1, Errors: 1, OneToken: 1}, s.Requests)
	require.NotNil(t, s.TPOT)
	assert.Equal(t, 3, s.TPOT.N)
	assert.Equal(t, 1, s.TPOT.Excluded)
	assert.Equal(t, 25*time.Millisecond, s.TPOT.Min)
	assert.Equal(t, 40*time.Millisecond, s.TPOT.Max)
	assert.Equal(t, time.Duration(31_666_667), s.TPOT.Mean) // (30+40+25)/3 = 31.666… ms, to the nearest ns
	assert.Equal(t, 30*time.Millisecond, point(t, &s.TPOT.Distribution, 50))
	assert.Equal(t, "r1", s.TPOT.Points[0].ID)
	assert.Equal(t, 4, s.TTFT.N) // r3 has a TTFT even without a TPOT
}

// Seed 002: 64 streams at 25 ms TPOT give each user 1000/25 = 40 tokens/s
// and deliver 64·40 = 2,560 tokens/s in all. Each stream here sends at 0
// and gets 1,000 tokens at 25, 50, …, 25,000 ms, so the window is 25 s and
// TPOT is 24,975/999 = 25 ms.
func TestGoldenSixtyFourStreams(t *testing.T) {
	recs := make([]Record, 64)
	for i := range recs {
		chunks := make([]time.Duration, 1000)
		for k := range chunks {
			chunks[k] = time.Duration(k+1) * 25 * time.Millisecond
		}
		recs[i] = Record{ID: fmt.Sprint(i), Chunks: chunks, CompletionTokens: 1000}
	}
	tps, err := recs[0].UserTPS()
	require.NoError(t, err)
	assert.InDelta(t, 40, float64(tps), 1e-9)
	s, err := Summarize(recs, Options{})
	require.NoError(t, err)
	assert.Equal(t, 25*time.Millisecond, s.TPOT.Max)
	assert.Equal(t, 25*time.Second, s.Throughput.Window.Length)
	assert.Equal(t, OutputTokenRate(2560), s.Throughput.OutputTokensPerSecond)
}

// Seed 002: 90 of 100 pass the TTFT limit and 90 pass the TPOT limit, but
// when the ten failing each are different requests, only 80 pass both.
func TestGoldenJointSLO(t *testing.T) {
	recs := make([]Record, 100)
	for i := range recs {
		ttftv, tpotv := 100*time.Millisecond, 20*time.Millisecond
		switch {
		case i < 10:
			ttftv = 900 * time.Millisecond // fails TTFT only
		case i < 20:
			tpotv = 90 * time.Millisecond // fails TPOT only
		}
		recs[i] = Record{ID: fmt.Sprint(i), FirstText: ttftv, LastText: ttftv + 4*tpotv, CompletionTokens: 5}
	}
	slo := SLO{TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}
	s, err := Summarize(recs, Options{SLO: &slo})
	require.NoError(t, err)
	assert.Equal(t, 10, s.Goodput.FailedTTFT)
	assert.Equal(t, 10, s.Goodput.FailedTPOT)
	assert.Equal(t, 80, s.Goodput.Good)
	assert.Equal(t, 0.8, s.Goodput.Attainment)
}

// Seed 000, Try it yourself 2: 80 requests of 4 tokens give 80·3 = 240 gaps
// and 20 of 200 tokens give 20·199 = 3,980, so 3,980/4,220 ≈ 94 % of gaps
// come from 20 % of requests. With short TPOT 10 ms and long 30 ms, the
// request-weighted mean is 0.8·10 + 0.2·30 = 14 ms and the gap-weighted
// mean (240·10 + 3,980·30)/4,220 = 121,800/4,220 ≈ 28.8626 ms.
func TestGoldenGapShare(t *testing.T) {
	var recs []Record
	add := func(n int, gap time.Duration) {
		chunks := make([]time.Duration, n)
		for k := range chunks {
			chunks[k] = 50*time.Millisecond + time.Duration(k)*gap
		}
		recs = append(recs, Record{ID: fmt.Sprint(len(recs)), Chunks: chunks, CompletionTokens: n})
	}
	for range 80 {
		add(4, 10*time.Millisecond)
	}
	for range 20 {
		add(200, 30*time.Millisecond)
	}
	s, err := Summarize(recs, Options{})
	require.NoError(t, err)
	assert.Equal(t, 4220, s.ITL.N)
	assert.Equal(t, 14*time.Millisecond, s.TPOT.Mean)
	// 121,800/4,220 ms = 28,862,559.24… ns, rounded to the nanosecond.
	assert.Equal(t, time.Duration(28_862_559), s.TPOT.GapWeightedMean)
	assert.Equal(t, s.TPOT.GapWeightedMean, s.ITL.Mean) // one chunk per token: the two agree
	assert.InDelta(t, 0.943, 3980.0/float64(s.ITL.N), 0.001)
}
