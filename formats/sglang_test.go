package formats

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two runs; the second with --output-details. Its figures by hand:
//
//	ok requests 0 and 1 (request 2 failed); ttfts 0.1, 0.2 s → mean 150 ms,
//	p90 (linear) 0.1 + 0.9·0.1 = 0.19 s; E2E 0.1 + 0.06 = 0.16 and
//	0.2 + 0.05 = 0.25 s → mean 205 ms, concurrency (0.16 + 0.25)/4 = 0.1025;
//	TPOT 0.06/2 = 30 ms and 0.05/1 = 50 ms → mean 40 ms; pooled ITL 20, 40,
//	50 ms → mean 36.67, median 40; throughputs over 4 s: 2/4 = 0.5 requests,
//	input 30/4 = 7.5, output 5/4 = 1.25, total 35/4 = 8.75 tokens/s.
const sglangRuns = `{"backend": "sglang", "request_rate": 1.0, "duration": 10.0, "completed": 3, "median_ttft_ms": 80.0}
{"backend": "sglang", "request_rate": 2.0, "duration": 4.0, "completed": 2, "total_input_tokens": 30, "total_output_tokens": 5, "input_lens": [10, 20, 5], "output_lens": [3, 2, 0], "ttfts": [0.1, 0.2, 0.0], "itls": [[0.02, 0.04], [0.05], []], "errors": ["", "", "Timeout"], "generated_texts": ["a", "b", ""], "mean_e2e_latency_ms": 205.0}
`

func TestSGLangDetails(t *testing.T) {
	f, err := Read(strings.NewReader(sglangRuns), "")
	require.NoError(t, err)
	assert.Equal(t, SGLang, f.Tool)
	assert.Contains(t, f.Notes[0], "2 runs")
	d, err := f.Dialect()
	require.NoError(t, err)
	for k, v := range map[string]float64{
		"completed": 2, "request_throughput": 0.5, "input_throughput": 7.5, "output_throughput": 1.25, "total_throughput": 8.75,
		"concurrency": 0.1025, "mean_ttft_ms": 150, "p90_ttft_ms": 190, "mean_tpot_ms": 40, "mean_itl_ms": 110.0 / 3,
		"median_itl_ms": 40, "mean_e2e_latency_ms": 205,
	} {
		got, ok := d.Lookup(k)
		require.True(t, ok, k)
		assert.InDelta(t, v, got, 1e-9*max(1, v), k)
	}
	run, err := f.Records()
	require.NoError(t, err)
	s, err := run.Summarize(llmmetrics.Options{Window: f.Window})
	require.NoError(t, err)
	assert.Equal(t, llmmetrics.Accounting{Offered: 3, OK: 2, Failed: 1, Errors: 1}, s.Requests)

	runs, err := ReadSGLangRuns(strings.NewReader(sglangRuns))
	require.NoError(t, err)
	require.Len(t, runs, 2)
	_, err = runs[0].Records()
	assert.True(t, errors.Is(err, ErrNoRecords))
	assert.Contains(t, strings.Join(runs[0].Notes, " "), "--output-details")

	_, err = ReadSGLang(strings.NewReader(sglangRuns + `{"backend": "sglang", "duration": "x"`))
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, 3, fe.Line)
}
