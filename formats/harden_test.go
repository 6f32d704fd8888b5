package formats

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small file of each tool, each valid.
var smallFiles = map[Tool]string{
	VLLM:   `{"duration": 1.0, "completed": 1, "ttfts": [0.1], "itls": [[0.02, 0.03]], "input_lens": [5], "output_lens": [3], "errors": [""]}`,
	SGLang: `{"backend": "sglang", "duration": 1.0, "completed": 1, "median_e2e_latency_ms": 150.0, "ttfts": [0.1], "itls": [[0.02, 0.03]], "input_lens": [5], "output_lens": [3], "errors": [""]}`,
	AIPerf: `{"metadata": {"x_request_id": "a", "timestamp_ns": 1000}, "metrics": {"ttft": {"value": 100.0, "unit": "ms"}, "request_latency": {"value": 150.0, "unit": "ms"}, "output_sequence_length": {"value": 3, "unit": "tokens"}, "min_request_timestamp": {"value": 1000, "unit": "ns"}, "inter_chunk_latency": {"value": [20.0, 30.0], "unit": "ms"}}, "error": null}`,
	LLMPerf: `[{"error_code": null, "error_msg": "", "inter_token_latency_s": 0.05, "ttft_s": 0.1, "end_to_end_latency_s": 0.15,
		"request_output_throughput_token_per_s": 20.0, "number_total_tokens": 8, "number_output_tokens": 3, "number_input_tokens": 5}]`,
	GuideLLM: `{"benchmarks": [{"duration": 1.0, "request_totals": {"successful": 1, "incomplete": 0, "errored": 0, "total": 1},
		"requests": {"successful": [{"request_id": "g1", "prompt_tokens": 5, "output_tokens": 3, "start_time": 100.0, "end_time": 100.2,
		"first_token_time": 100.1, "last_token_time": 100.15, "request_latency": 0.2, "time_to_first_token_ms": 100.0,
		"time_per_output_token_ms": 16.6, "inter_token_latency_ms": 25.0}], "incomplete": [], "errored": []}, "metrics": {}}]}`,
	GenAIPerf: `{"service_kind": "openai", "experiments": [{"requests": [{"timestamp": 1000000000, "response_timestamps": [1100000000, 1150000000],
		"response_outputs": [{"response": "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"},
		{"response": "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"}]}]}]}`,
}

// Every importer reads its file with a leading byte order mark, as the
// project's own readers do, and refuses anything after the document.
func TestImportersBOMAndTrailingData(t *testing.T) {
	for tool, in := range smallFiles {
		t.Run(string(tool), func(t *testing.T) {
			f, err := Read(strings.NewReader(in), "")
			require.NoError(t, err)
			require.Equal(t, tool, f.Tool)
			f, err = Read(strings.NewReader("\ufeff"+in), tool)
			require.NoError(t, err, "with a byte order mark")
			_, err = Read(strings.NewReader("\ufeff"+in), "")
			require.NoError(t, err, "detected with a byte order mark")
			if tool == SGLang || tool == AIPerf {
				return // JSON lines: a second line is another run or record
			}
			_, err = Read(strings.NewReader(in+"\ngarbage\n"), tool)
			require.ErrorIs(t, err, llmmetrics.ErrSyntax)
			assert.Contains(t, err.Error(), "after the JSON")
		})
	}
}

// Detection reads keys, never values: an llmmetrics JSONL file whose first
// id is "ttfts" is not a vLLM file.
func TestDetectKeysNotValues(t *testing.T) {
	for _, head := range []string{
		`{"id":"ttfts","completion_tokens":0}` + "\n",
		`{"id":"a","message":"experiments response_timestamps","status":"error"}`,
		`{"id":"end_to_end_latency_s","completion_tokens":0}`,
	} {
		_, ok := Detect([]byte(head))
		assert.False(t, ok, head)
	}
	tool, ok := Detect([]byte(`{"duration": 1, "ttfts": [0.1`)) // cut off mid-array
	assert.True(t, ok)
	assert.Equal(t, VLLM, tool)
}

func TestVLLMRefusesSilentChanges(t *testing.T) {
	for _, c := range []struct {
		name, in, field string
		err             error
	}{
		{"negative first gap of a role-chunk request",
			`{"duration": 1.0, "ttfts": [0.0109], "itls": [[-0.0092, 0.02, 0.02]], "input_lens": [5], "output_lens": [3], "errors": [""]}`,
			"itls[0][0]", llmmetrics.ErrNonMonotonic},
		{"negative ttft", `{"duration": 1.0, "ttfts": [-0.1], "itls": [[0.02]], "input_lens": [5], "output_lens": [2], "errors": [""]}`,
			"ttfts[0]", llmmetrics.ErrNegativeDuration},
		{"huge time", `{"duration": 1.0, "ttfts": [1e308], "itls": [[0.02]], "input_lens": [5], "output_lens": [2], "errors": [""]}`,
			"ttfts[0]", llmmetrics.ErrOutOfRange},
		{"huge gap", `{"duration": 1.0, "ttfts": [0.1], "itls": [[1e308]], "input_lens": [5], "output_lens": [2], "errors": [""]}`,
			"itls[0][0]", llmmetrics.ErrOutOfRange},
		{"huge count", `{"duration": 1.0, "ttfts": [0.1], "itls": [[0.1]], "input_lens": [1e10], "output_lens": [2], "errors": [""]}`,
			"input_lens[0]", llmmetrics.ErrOutOfRange},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadVLLM(strings.NewReader(c.in))
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.ErrorIs(t, err, c.err)
			assert.Equal(t, c.field, fe.Field)
			assert.Contains(t, err.Error(), "request ")
		})
	}
}

// A successful vLLM request whose output_lens is 0 while it has a TTFT
// (vLLM's own test vectors have one) is set aside and counted, naming the
// request, not a reason to refuse the file; vLLM's dialect counts it
// completed with its TTFT, as vLLM does. By hand: request 0 has TTFT 0.1 s
// and one gap of 0.02 s, n = 2; request 1 has TTFT 0.3 s and n = 0.
// llmmetrics: offered 2, ok 1, rejected 1, TTFT p50 100 ms. vLLM:
// completed 2, mean TTFT (0.1 + 0.3)/2 = 200 ms, TPOT only of request 0
// ((0.12 − 0.1)/(2 − 1) = 20 ms).
func TestVLLMZeroOutputWithTimingsSetAside(t *testing.T) {
	in := `{"duration": 1.0, "ttfts": [0.1, 0.3], "itls": [[0.02], []], "input_lens": [5, 5], "output_lens": [2, 0], "errors": ["", ""]}`
	f, err := ReadVLLM(strings.NewReader(in))
	require.NoError(t, err)
	run, err := f.Records()
	require.ErrorIs(t, err, llmmetrics.ErrRejected)
	require.Len(t, run.Records, 1)
	assert.Equal(t, "0", run.Records[0].ID)
	require.Len(t, run.Rejected, 1)
	assert.Equal(t, "output_lens[1]", run.Rejected[0].Field)
	assert.Equal(t, "1", run.Rejected[0].ID)
	assert.ErrorIs(t, run.Rejected[0], llmmetrics.ErrTokensBelowChunks)
	s, err := run.Summarize(llmmetrics.Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Requests.Offered)
	assert.Equal(t, 1, s.Requests.OK)
	assert.Equal(t, 1, s.Requests.Rejected)
	assert.Equal(t, 100*time.Millisecond, s.TTFT.Points[0].Value)

	d, err := f.Dialect()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, fig := range d.Figures {
		got[fig.Key] = fig.Value
	}
	assert.Equal(t, 2.0, got["completed"])
	assert.InDelta(t, 200, got["mean_ttft_ms"], 1e-9)
	assert.InDelta(t, 20, got["mean_tpot_ms"], 1e-9)
}

// 1e308 where a time belongs is refused by every importer, naming the
// request and the key, rather than overflowing a figure to infinity.
func TestImportersRefuseOutOfRange(t *testing.T) {
	for _, c := range []struct {
		tool      Tool
		old, new  string
		request   int
		id, field string
	}{
		{AIPerf, `"ttft": {"value": 100.0`, `"ttft": {"value": 1e308`, 1, "a", "metrics.ttft"},
		{LLMPerf, `"ttft_s": 0.1`, `"ttft_s": 1e308`, 1, "", "[0].ttft_s"},
		{GuideLLM, `"first_token_time": 100.1`, `"first_token_time": 1e308`, 1, "g1", "benchmarks[0].requests.successful[0].first_token_time"},
		{GenAIPerf, `[1100000000, 1150000000]`, `[1100000000, 9150000000000000000]`, 1, "", "experiments[0].requests[0].response_timestamps[1]"},
	} {
		t.Run(string(c.tool), func(t *testing.T) {
			in := strings.Replace(smallFiles[c.tool], c.old, c.new, 1)
			require.NotEqual(t, smallFiles[c.tool], in)
			_, err := Read(strings.NewReader(in), c.tool)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.ErrorIs(t, err, llmmetrics.ErrOutOfRange)
			assert.Equal(t, c.request, fe.Request)
			assert.Equal(t, c.id, fe.ID)
			assert.Equal(t, c.field, fe.Field)
		})
	}
}

// Errors of the encoding/json importers give a byte offset, and the key of
// a value of the wrong type.
func TestImporterErrorPositions(t *testing.T) {
	in := strings.Replace(smallFiles[LLMPerf], `"ttft_s": 0.1`, `"ttft_s": "fast"`, 1)
	_, err := ReadLLMPerf(strings.NewReader(in))
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "ttft_s", fe.Field)
	assert.Equal(t, strings.Index(in, `"fast"`)+len(`"fast"`), fe.Offset)
	assert.NotContains(t, err.Error(), "byte 0")

	_, err = ReadGuideLLM(strings.NewReader(`{"benchmarks": [}`))
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 17, fe.Offset) // encoding/json's offset: the bad "}" is byte 16, and the error comes after it
	_, err = ReadGenAIPerf(strings.NewReader(""))
	assert.ErrorContains(t, err, "the input is empty")
}

// The tools' companion summary files are recognised and the user is told
// which file to pass.
func TestSummaryFilesRecognised(t *testing.T) {
	for _, pattern := range []string{"aiperf/*_aiperf.json", "llmperf/*_summary.json"} {
		files, _ := filepath.Glob(filepath.Join(realdata, pattern))
		if len(files) == 0 {
			t.Skipf("no %s in %s (the shared real data are absent)", pattern, realdata)
		}
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		_, err = Read(bytes.NewReader(b), "")
		require.True(t, errors.Is(err, ErrSummaryFile), "%s: %v", files[0], err)
		assert.Contains(t, err.Error(), "pass its per-")
	}
}

// AIPerf's goodput, with its rules: limits inclusive; inter_token_latency
// is (request_latency − ttft)/(osl − 1) = (150 − 100)/2 = 25 ms here.
func TestAIPerfGoodput(t *testing.T) {
	f, err := Read(strings.NewReader(smallFiles[AIPerf]), "")
	require.NoError(t, err)
	d, err := f.Dialect()
	require.NoError(t, err)
	why, missing := d.Why("good_request_count")
	assert.True(t, missing)
	assert.Contains(t, why, "--slo")
	n, ok := d.Lookup("ttft.count")
	assert.True(t, ok)
	assert.Equal(t, 1.0, n)
	n, _ = d.Lookup("inter_chunk_latency.count") // two gaps pooled
	assert.Equal(t, 2.0, n)

	for _, c := range []struct {
		slo  llmmetrics.SLO
		good float64
	}{
		{llmmetrics.SLO{TTFT: 100 * time.Millisecond, TPOT: 25 * time.Millisecond}, 1}, // at both limits: good
		{llmmetrics.SLO{TPOT: 24 * time.Millisecond}, 0},
		{llmmetrics.SLO{E2E: 149 * time.Millisecond}, 0},
	} {
		d, err := f.DialectWith(DialectOptions{SLO: &c.slo})
		require.NoError(t, err)
		g, ok := d.Lookup("good_request_count.avg")
		require.True(t, ok)
		assert.Equal(t, c.good, g, "%v", c.slo)
		frac, _ := d.Lookup("good_request_fraction.avg")
		assert.Equal(t, c.good, frac)
	}
	_, err = f.DialectWith(DialectOptions{Percentiles: []float64{50}})
	assert.ErrorIs(t, err, ErrUnsupported)
}

// vLLM's max_concurrent_requests, as the older per-second buckets count
// it, and the exact sweep line of current vLLM, named in the rules.
func TestVLLMConcurrencyDefinitions(t *testing.T) {
	// Two requests: [0, 0.3) and [0.5, 0.8) s. Per-second buckets put both
	// in second 0 (2); the sweep line never sees them together (1).
	in := `{"duration": 1.0, "ttfts": [0.1, 0.1], "itls": [[0.2], [0.2]], "input_lens": [5, 5], "output_lens": [2, 2],
	        "errors": ["", ""], "start_times": [100.0, 100.5]}`
	f, err := ReadVLLM(strings.NewReader(in))
	require.NoError(t, err)
	d, err := f.Dialect()
	require.NoError(t, err)
	c, ok := d.Lookup("max_concurrent_requests")
	require.True(t, ok)
	assert.Equal(t, 2.0, c)
	assert.Contains(t, strings.Join(d.Rules, "\n"), "which gives 1 for this file")
}
