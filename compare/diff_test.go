package compare

import (
	"encoding/json"
	"math"
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
	var recs []llmmetrics.Record
	for i := range n {
		ttft := base + time.Duration(i)*step
		recs = append(recs, llmmetrics.Record{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Sent: time.Duration(i) * time.Second,
			FirstText: ttft, LastText: ttft + 200*time.Millisecond, CompletionTokens: 11, PromptTokens: 100})
	}
	return &llmmetrics.Run{Records: recs}
}

func TestDiffRuns(t *testing.T) {
	ms := time.Millisecond
	// B's TTFTs are 50 ms later than A's, over a spread of 0–29 ms: every B
	// value is above every A value.
	a := []*llmmetrics.Run{runOf(30, 100*ms, ms), runOf(30, 100*ms, ms), runOf(30, 100*ms, ms)}
	b := []*llmmetrics.Run{runOf(30, 150*ms, ms), runOf(30, 150*ms, ms), runOf(30, 150*ms, ms)}
	d, err := DiffRuns(a, b, DiffOptions{Summary: llmmetrics.Options{Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99)}}})
	require.NoError(t, err)
	rows := map[string]DiffRow{}
	for _, r := range d.Rows {
		rows[r.Name] = r
	}
	// Pooled, 90 values a side: nearest-rank p50 is rank 45, the value of
	// the 15th smallest TTFT of a run (each appears thrice): 100 + 14 ms;
	// B's is 164 ms.
	p50 := rows["ttft p50"]
	assert.Equal(t, 114.0, p50.A)
	assert.Equal(t, 164.0, p50.B)
	assert.InDelta(t, 50.0/114, p50.Change, 1e-12)
	assert.True(t, p50.Significant)
	assert.Equal(t, 90, p50.NA)
	assert.Nil(t, rows["ttft p99"].Test, "a tail percentile is not tested")
	assert.False(t, rows["ttft p99"].Significant)
	// TPOT is the same on both sides (200 ms / 10 gaps).
	assert.Equal(t, 20.0, rows["tpot p50"].A)
	assert.False(t, rows["tpot p50"].Significant)
	// Rates per run: 3 runs a side, identical throughput.
	out := rows["output_tokens_per_s"]
	assert.Equal(t, 3, out.NA)
	assert.False(t, out.Significant)
	assert.NotContains(t, rows, "attainment", "no SLO")

	// JSON and the table.
	j, err := d.MarshalJSON()
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(j, &got))
	assert.Equal(t, 0.05, got["alpha"])

	_, err = DiffRuns(nil, b, DiffOptions{})
	assert.ErrorIs(t, err, llmmetrics.ErrNoRecords)
	_, err = DiffRuns(a, b, DiffOptions{Alpha: 2})
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
	bad := []*llmmetrics.Run{{Records: []llmmetrics.Record{{ID: "x", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1}, {ID: "x", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1}}}}
	_, err = DiffRuns(a, bad, DiffOptions{})
	assert.ErrorContains(t, err, "B run 1")
	assert.True(t, math.IsNaN(DiffRow{A: 0, B: 1}.finish(0.05).Change))
}
