package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

func TestMannWhitney(t *testing.T) {
	// Exact, no ties. {1,2,3} against {4,5,6}: U_A = 0, the most extreme
	// of the 20 equally likely orders of 3 + 3 values: P(U ≤ 0) = 1/20, so
	// the two-sided p is 0.1. {1,2,4} against {3,5,6}: U_A = 1 (4 > 3);
	// the counts of U = 0, 1, 2, … for 3 + 3 are 1, 1, 2, 3, 3, 3, 3, 2,
	// 1, 1, so P(U ≤ 1) = 2/20 and p = 0.2.
	r, err := MannWhitney([]float64{1, 2, 3}, []float64{4, 5, 6})
	require.NoError(t, err)
	assert.Equal(t, RankTest{NA: 3, NB: 3, U: 0, P: 0.1, Exact: true}, r)
	r, _ = MannWhitney([]float64{1, 2, 4}, []float64{3, 5, 6})
	assert.Equal(t, 1.0, r.U)
	assert.InDelta(t, 0.2, r.P, 1e-15)
	r, _ = MannWhitney([]float64{4, 5, 6}, []float64{1, 2, 3})
	assert.Equal(t, RankTest{NA: 3, NB: 3, U: 9, P: 0.1, Exact: true}, r, "symmetric")

	// Ties, exact: {1,2,2,3} against {2,3,4,5}. Ranks 1; 3, 3, 3 (the
	// three 2s); 5.5, 5.5 (the 3s); 7; 8: R_A = 12.5, U_A = 12.5 − 10 = 2.5.
	// Of the 70 ways to choose four of the eight ranks, 7 sum to 12.5 or
	// less (enumerated): p = 2·7/70 = 0.2.
	r, _ = MannWhitney([]float64{1, 2, 2, 3}, []float64{2, 3, 4, 5})
	assert.True(t, r.Exact)
	assert.Equal(t, 2.5, r.U)
	assert.InDelta(t, 0.2, r.P, 1e-15)

	// Beyond 20 a side, the normal approximation with ties. A = 0, 0, 1,
	// 1, …, 12 (25 values), B = 3, 3, 4, 4, …, 17 (30): U_A = 181,
	// Σ(t³ − t) = 612, variance 25·30/12·(56 − 612/2970) = 3487.12…,
	// z = (|181 − 375| − 0.5)/59.05… = 3.27678…, p = erfc(z/√2) = 0.00104998… .
	var ta, tb []float64
	for i := range 25 {
		ta = append(ta, float64(i/2))
	}
	for i := range 30 {
		tb = append(tb, float64(i/2+3))
	}
	r, _ = MannWhitney(ta, tb)
	assert.False(t, r.Exact)
	assert.Equal(t, 181.0, r.U)
	assert.InDelta(t, 0.0010499768881907956, r.P, 1e-12)

	// All equal: no evidence of a difference.
	r, _ = MannWhitney([]time.Duration{5, 5}, []time.Duration{5, 5, 5})
	assert.Equal(t, 1.0, r.P)

	_, err = MannWhitney([]float64{}, []float64{1})
	assert.ErrorIs(t, err, llmmetrics.ErrNoSamples)

	// Large samples shifted by a tenth of their spread are told apart;
	// the same sample against itself is not.
	var a, b []float64
	for i := range 500 {
		a = append(a, float64(i))
		b = append(b, float64(i)+50.5)
	}
	r, _ = MannWhitney(a, b)
	assert.Less(t, r.P, 0.01)
	assert.Equal(t, float64(500*500), r.U+func() float64 { r2, _ := MannWhitney(b, a); return r2.U }(), "U_A + U_B = n_A·n_B")
	r, _ = MannWhitney(a, a)
	assert.Equal(t, 1.0, r.P)
}

// runOf makes a run of n ok requests whose TTFT is base plus a spread of
// i·step, one a second, 11 tokens 20 ms apart.
func runOf(n int, base, step time.Duration) *llmmetrics.Run {
	seq := runSeq.Add(1) // two calls make two runs (sameRun)
	var recs []llmmetrics.Record
	for i := range n {
		ttft := base + time.Duration(i)*step
		recs = append(recs, llmmetrics.Record{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)) + fmt.Sprint(seq), Sent: time.Duration(i) * time.Second,
			FirstText: ttft, LastText: ttft + 200*time.Millisecond, CompletionTokens: 11, PromptTokens: 100})
	}
	return &llmmetrics.Run{Records: recs}
}

func TestDiffRuns(t *testing.T) {
	ms := time.Millisecond
	// Each run's TTFTs are base + 0 … 29 ms, so its nearest-rank p50
	// (rank 15 of 30) is base + 14 ms. A's bases 100, 102, 104, 106 ms give
	// p50s 114, 116, 118, 120: median 117, deviations 3, 1, 1, 3, MAD 2.
	// B's 150, 151, 153, 155 give 164, 165, 167, 169: median 166,
	// deviations 2, 1, 1, 3, MAD 1.5. Every B run is above every A run:
	// U = 0, the most extreme of the C(8, 4) = 70 splits, p = 2/70.
	var a, b []*llmmetrics.Run
	for _, base := range []time.Duration{100, 102, 104, 106} {
		a = append(a, runOf(30, base*ms, ms))
	}
	for _, base := range []time.Duration{150, 151, 153, 155} {
		b = append(b, runOf(30, base*ms, ms))
	}
	d, err := DiffRuns(a, b, DiffOptions{Summary: llmmetrics.Options{Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99)}}})
	require.NoError(t, err)
	rows := map[string]DiffRow{}
	for _, r := range d.Rows {
		rows[r.Name] = r
	}
	p50 := rows["ttft p50"]
	assert.Equal(t, Spread[float64]{N: 4, Median: 117, MAD: 2, ScaledMAD: 2 * madScale}, p50.A)
	assert.Equal(t, 166.0, p50.B.Median)
	assert.Equal(t, 1.5, p50.B.MAD)
	assert.InDelta(t, 49.0/117, p50.Change, 1e-12)
	assert.InDelta(t, 2.0/70, p50.Test.P, 1e-15)
	assert.True(t, p50.Test.Exact)
	assert.True(t, p50.Significant)
	// p99 is each run's own p99 (rank 30 of 30: base + 29 ms), tested
	// like any other figure: A 129, 131, 133, 135 → 132; B 179, 180,
	// 182, 184 → 181.
	p99 := rows["ttft p99"]
	assert.Equal(t, 132.0, p99.A.Median)
	assert.Equal(t, 181.0, p99.B.Median)
	assert.True(t, p99.Significant)
	// TPOT is 200 ms / 10 gaps = 20 ms in every run: all tied, p = 1.
	assert.Equal(t, 20.0, rows["tpot p50"].A.Median)
	assert.Equal(t, 1.0, rows["tpot p50"].Test.P)
	assert.False(t, rows["tpot p50"].Significant)
	out := rows["output_tokens_per_s"]
	assert.Equal(t, 4, out.A.N)
	assert.NotContains(t, rows, "attainment", "no SLO, not asked for")
	assert.Equal(t, 4, d.MinRuns)
	assert.Empty(t, d.Skipped)
	assert.Equal(t, []string{
		"A runs 1, 2, 3, 4 have no run header: how the sides' runs were taken (load, model, lengths, environment) cannot be compared",
		"B runs 1, 2, 3, 4 have no run header: how the sides' runs were taken (load, model, lengths, environment) cannot be compared",
	}, d.Warnings)

	// JSON and the table.
	j, err := d.MarshalJSON()
	require.NoError(t, err)
	var got struct {
		Alpha   float64
		MinRuns int `json:"min_runs"`
		Rows    []struct {
			Name string
			A    struct{ Median, MAD float64 }
			P    float64
		}
	}
	require.NoError(t, json.Unmarshal(j, &got))
	assert.Equal(t, 0.05, got.Alpha)
	assert.Equal(t, 4, got.MinRuns)
	assert.Equal(t, "ttft p50", got.Rows[0].Name)
	assert.Equal(t, 117.0, got.Rows[0].A.Median)
	var table strings.Builder
	require.NoError(t, d.WriteTable(&table))
	// 2/117 = 1.7 % and 1.5/166 = 0.9 %; 49/117 = +41.88 %.
	assert.Regexp(t, `ttft p50 \(ms\)\s+117 ± 2%\s+166 ± 1%\s+\+41\.88% \(p=0\.029 n=4\)\n`, table.String())
	assert.Regexp(t, `tpot p50 \(ms\)\s+20 ± 0%\s+20 ± 0%\s+~ \(p=1\.000 n=4\)\n`, table.String())
	assert.NotContains(t, table.String(), "need ≥")

	// Three runs a side can never reach 0.05: the smallest p is 2/20.
	d3, err := DiffRuns(a[:3], b[:3], DiffOptions{})
	require.NoError(t, err)
	table.Reset()
	require.NoError(t, d3.WriteTable(&table))
	assert.Contains(t, table.String(), "need ≥ 4 runs a side for α = 0.05: with 3 + 3 runs the smallest possible p is 0.1, so no change can be significant\n")
	assert.Regexp(t, `ttft p50 \(ms\)\s+116 ± 2%\s+165 ± 1%\s+~ \(p=0\.100 n=3\)`, table.String())

	_, err = DiffRuns(nil, b, DiffOptions{})
	assert.ErrorIs(t, err, llmmetrics.ErrNoRecords)
	_, err = DiffRuns(a, b, DiffOptions{Alpha: 2})
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
	bad := []*llmmetrics.Run{{Records: []llmmetrics.Record{{ID: "x", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1}, {ID: "x", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1}}}}
	_, err = DiffRuns(a, bad, DiffOptions{})
	assert.ErrorContains(t, err, "B run 1")
	assert.True(t, math.IsNaN(DiffRow{B: Spread[float64]{Median: 1}}.finish(0.05).Change))
}

// The smallest p of n + n runs is 2/C(2n, n): C(4,2) = 6, C(6,3) = 20,
// C(8,4) = 70, C(10,5) = 252, C(12,6) = 924, C(14,7) = 3432.
func TestMinRuns(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		n     int
	}{{0.5, 2}, {0.2, 3}, {0.1, 4}, {0.05, 4}, {0.01, 5}, {0.005, 6}, {0.001, 7}, {0, 0}, {1, 0}} {
		assert.Equal(t, c.n, MinRuns(c.alpha), "α = %g", c.alpha)
	}
	assert.InDelta(t, 2.0/20, minP(3, 3), 1e-15)
	assert.InDelta(t, 2.0/70, minP(4, 4), 1e-15)
	assert.InDelta(t, 2.0/35, minP(3, 4), 1e-15) // C(7,3) = 35
	assert.Equal(t, 1.0, minP(1, 1))
}

// Each difference between the sides' run headers is a warning, and so is
// a side whose runs disagree among themselves; the scrape files' names
// and the prompts' salt (each run's own, so that none finds another's
// prompts cached) are not.
func TestDiffHeaderWarnings(t *testing.T) {
	ms := time.Millisecond
	with := func(conc, gpu, driver string) *llmmetrics.Run {
		r := runOf(10, 100*ms, ms)
		r.Header = &llmmetrics.RunHeader{Model: "m", API: "chat", Load: map[string]string{"loop": "closed", "concurrency": conc, "max_tokens": "64",
			"scrape_before": "x" + conc + driver + ".prom", "prompt_salt": "00000000000000" + conc + driver[2:]}, Env: map[string]string{"gpu": gpu, "driver": driver}}
		return r
	}
	a := []*llmmetrics.Run{with("1", "h100", "550"), with("1", "h100", "551")}
	b := []*llmmetrics.Run{with("8", "h100", "550"), with("8", "h100", "550")}
	b[1].Header.Model = "m2"
	d, err := DiffRuns(a, b, DiffOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"A's runs differ among themselves in environment driver: 550, 551",
		"B's runs differ among themselves in model: m, m2",
		"A and B differ in environment driver: A 550 | 551, B 550",
		"A and B differ in load concurrency: A 1, B 8",
		"A and B differ in model: A m, B m | m2",
	}, d.Warnings)
	var table strings.Builder
	require.NoError(t, d.WriteTable(&table))
	assert.Contains(t, table.String(), "WARNING: A and B differ in load concurrency: A 1, B 8\n")

	same, err := DiffRuns(a[:1], b[:1], DiffOptions{})
	require.NoError(t, err)
	assert.NotContains(t, fmt.Sprint(same.Warnings), "same run")
}
