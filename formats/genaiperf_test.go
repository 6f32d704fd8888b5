package formats

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/genai_perf_profile_export.json is written by hand in
// perf_analyzer's layout: three chat requests.
//
//	1: sent at 1.000 s; role chunk, "Hel" at 1.150, "lo" at 1.180, an empty
//	   finish chunk, usage (10, 2), [DONE]: kept 1.150 and 1.180 s.
//	2: sent at 1.050 s; role chunk, "A" 1.400, " B" 1.450, " C" 1.520, usage
//	   (12, 3): kept 1.400, 1.450, 1.520 s.
//	3: sent at 1.100 s; role chunk and [DONE] only: nothing kept.
//
// GenAI-Perf's figures by hand: TTFT 150 and 350 ms (avg 250, std 100);
// request_latency 180 and 470 ms (avg 325); time_to_second_token 30 and
// 50 ms (avg 40); request_throughput 3 requests / (1.520 − 1.000) s =
// 5.769230769… requests/s.
func TestGenAIPerf(t *testing.T) {
	f, err := os.Open("testdata/genai_perf_profile_export.json")
	require.NoError(t, err)
	defer f.Close()
	file, err := Read(f, "")
	require.NoError(t, err)
	assert.Equal(t, GenAIPerf, file.Tool)
	d, err := file.Dialect()
	require.NoError(t, err)
	for k, v := range map[string]float64{
		"time_to_first_token.avg": 250, "time_to_first_token.std": 100, "time_to_first_token.p50": 250,
		"request_latency.avg": 325, "request_latency.min": 180, "request_latency.max": 470,
		"time_to_second_token.avg": 40, "request_throughput.avg": 3 / 0.52,
	} {
		got, ok := d.Lookup(k)
		require.True(t, ok, k)
		assert.InDelta(t, v, got, 1e-9*v, k)
	}
	why, ok := d.Why("inter_token_latency.avg")
	assert.True(t, ok)
	assert.Contains(t, why, "tokenizer")

	run, err := file.Records()
	require.NoError(t, err)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{150 * ms, 180 * ms}, run.Records[0].Chunks)
	assert.Equal(t, 2, run.Records[0].CompletionTokens)
	assert.Equal(t, 50*ms, run.Records[1].Sent)
	assert.Equal(t, []time.Duration{350 * ms, 400 * ms, 470 * ms}, run.Records[1].Chunks)
	assert.Equal(t, llmmetrics.StatusError, run.Records[2].Status)
	s, err := run.Summarize(llmmetrics.Options{})
	require.NoError(t, err)
	assert.Equal(t, llmmetrics.Accounting{Offered: 3, OK: 2, Failed: 1, Errors: 1}, s.Requests)
	assert.Equal(t, 45*ms, s.TPOT.Mean) // (30 + 60)/2
	assert.Equal(t, 520*ms, s.Throughput.Window.Length)
}

// A stream without usage leaves the token count unknown: the request is set
// aside as rejected, never given a chunk count as n.
func TestGenAIPerfNoUsage(t *testing.T) {
	in := `{"experiments":[{"requests":[{"timestamp":0,"response_timestamps":[5,9],
	"response_outputs":[{"text_output":"a"},{"text_output":"b"}]}]}]}`
	file, err := ReadGenAIPerf(strings.NewReader(in))
	require.NoError(t, err)
	run, err := file.Records()
	require.ErrorIs(t, err, llmmetrics.ErrRejected) // said, never silent
	require.Len(t, run.Rejected, 1)
	assert.ErrorIs(t, run.Rejected[0], llmmetrics.ErrMissingField)
	_, err = run.Summarize(llmmetrics.Options{})
	assert.ErrorIs(t, err, llmmetrics.ErrMissingField)
	s, err := run.Summarize(llmmetrics.Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, 1, s.Requests.Rejected)

	_, err = ReadGenAIPerf(strings.NewReader(`{"experiments":[{"requests":[{"timestamp":0,"response_timestamps":[5],"response_outputs":[]}]}]}`))
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.ErrorIs(t, err, ErrLength)
}
