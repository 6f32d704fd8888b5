package formats

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	smallAIPerf = `{"metadata":{"x_request_id":"a","timestamp_ns":1000},"metrics":{"ttft":{"value":100.0,"unit":"ms"},"request_latency":{"value":160.0,"unit":"ms"},"inter_chunk_latency":{"value":[20.0,40.0],"unit":"ms"},"output_sequence_length":{"value":3,"unit":"tokens"},"input_sequence_length":{"value":7,"unit":"tokens"},"min_request_timestamp":{"value":1000,"unit":"ns"},"max_response_timestamp":{"value":160001000,"unit":"ns"},"inter_token_latency":{"value":30.0,"unit":"ms"},"ttst":{"value":20.0,"unit":"ms"}},"error":null}
{"metadata":{"x_request_id":"b","timestamp_ns":2000},"metrics":{"error_request_count":{"value":1,"unit":"requests"}},"error":{"code":499,"type":"RequestCancellationError","message":"cancelled"}}
`
	smallLLMPerf = `[{"error_code": null, "error_msg": "", "inter_token_latency_s": 0.05, "ttft_s": 0.1, "end_to_end_latency_s": 0.3, "request_output_throughput_token_per_s": 16.7, "number_total_tokens": 15, "number_output_tokens": 5, "number_input_tokens": 10},
 {"error_code": null, "error_msg": "", "inter_token_latency_s": 0.07, "ttft_s": 0.3, "end_to_end_latency_s": 0.5, "request_output_throughput_token_per_s": 10.0, "number_total_tokens": 15, "number_output_tokens": 5, "number_input_tokens": 10},
 {"error_code": 429, "error_msg": "rate limited", "inter_token_latency_s": 0, "ttft_s": 0, "end_to_end_latency_s": 0, "request_output_throughput_token_per_s": 0, "number_total_tokens": 10, "number_output_tokens": 0, "number_input_tokens": 10}]`
	smallGuideLLM = `{"benchmarks": [{"request_totals": {"successful": 2, "incomplete": 0, "errored": 0, "total": 2},
 "requests": {"successful": [
  {"request_id": "a", "prompt_tokens": 10, "output_tokens": 3, "start_time": 100.0, "end_time": 100.5, "first_token_time": 100.1, "last_token_time": 100.4, "request_latency": 0.5, "time_to_first_token_ms": 100.0, "time_per_output_token_ms": 100.0, "inter_token_latency_ms": 150.0},
  {"request_id": "b", "prompt_tokens": 10, "output_tokens": 5, "start_time": 101.0, "end_time": 101.6, "first_token_time": 101.2, "last_token_time": 101.6, "request_latency": 0.6, "time_to_first_token_ms": 200.0, "time_per_output_token_ms": 80.0, "inter_token_latency_ms": 100.0}],
  "incomplete": [], "errored": []},
 "metrics": {}}]}`
)

// LLMPerf by hand: ok requests TTFT 0.1 and 0.3 s → mean 0.2, sample std
// 0.1414…, p50 0.2; one error of three → error_rate 1/3.
func TestLLMPerfSmall(t *testing.T) {
	f, err := Read(strings.NewReader(smallLLMPerf), "")
	require.NoError(t, err)
	assert.Equal(t, LLMPerf, f.Tool)
	d, err := f.Dialect()
	require.NoError(t, err)
	for k, v := range map[string]float64{"results_ttft_s_mean": 0.2, "results_ttft_s_stddev": math.Sqrt(0.02), "results_ttft_s_quantiles_p50": 0.2,
		"results_error_rate": 1.0 / 3, "results_num_completed_requests": 2, "results_number_errors": 1} {
		got, ok := d.Lookup(k)
		require.True(t, ok, k)
		assert.InDelta(t, v, got, 1e-12, k)
	}
	run, err := f.Records()
	require.NoError(t, err)
	s, err := run.Summarize(llmmetrics.Options{NoSendTimes: f.NoSendTimes})
	require.NoError(t, err)
	assert.Nil(t, s.Throughput, "no send times, no declared window: no rates")
	assert.Equal(t, 50*time.Millisecond, s.TPOT.Min) // (0.3 − 0.1)/4
}

// AIPerf by hand: one ok record with chunks at 100, 120, 160 ms; the
// cancelled one is cancelled.
func TestAIPerfSmall(t *testing.T) {
	f, err := Read(strings.NewReader(smallAIPerf), "")
	require.NoError(t, err)
	assert.Equal(t, AIPerf, f.Tool)
	run, err := f.Records()
	require.NoError(t, err)
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{100 * ms, 120 * ms, 160 * ms}, run.Records[0].Chunks)
	assert.Equal(t, llmmetrics.StatusCancelled, run.Records[1].Status)
	assert.Equal(t, []int{1, 2}, run.Lines)
	d, err := f.Dialect()
	require.NoError(t, err)
	for k, v := range map[string]float64{"ttft.avg": 100, "inter_token_latency.avg": 30, "ttst.avg": 20, "error_request_count.avg": 1,
		"request_count.avg": 1, "benchmark_duration.avg": 0.16, "request_throughput.avg": 1 / 0.16} {
		got, ok := d.Lookup(k)
		require.True(t, ok, k)
		assert.InDelta(t, v, got, 1e-9*v, k)
	}
}

// GuideLLM by hand: TTFT 100 and 200 ms (nearest rank p50 100, mean 150);
// inter_token_latency weighted by n − 1 = 2 and 4: (2·150 + 4·100)/6 =
// 116.67 ms.
func TestGuideLLMSmall(t *testing.T) {
	f, err := Read(strings.NewReader(smallGuideLLM), "")
	require.NoError(t, err)
	assert.Equal(t, GuideLLM, f.Tool)
	d, err := f.Dialect()
	require.NoError(t, err)
	for k, v := range map[string]float64{"time_to_first_token_ms.successful.mean": 150, "time_to_first_token_ms.successful.percentiles.p50": 100,
		"inter_token_latency_ms.successful.mean": 700.0 / 6, "inter_token_latency_ms.successful.count": 2} {
		got, ok := d.Lookup(k)
		require.True(t, ok, k)
		assert.InDelta(t, v, got, 1e-9*v, k)
	}
	run, err := f.Records()
	require.NoError(t, err)
	assert.Equal(t, time.Second, run.Records[1].Sent)
	assert.Equal(t, 200*time.Millisecond, run.Records[1].FirstText)
}

// Bad and truncated files of every format: an error that names the format
// (and the field where there is one), never a partial import.
func TestBadFiles(t *testing.T) {
	for _, c := range []struct {
		tool Tool
		in   string
		err  error
	}{
		{AIPerf, smallAIPerf[:200], llmmetrics.ErrSyntax},
		{AIPerf, `{"metadata":{},"metrics":{"ttft":{"value":"fast"}},"error":null}`, llmmetrics.ErrSyntax},
		{AIPerf, `{"metadata":{},"metrics":{"ttft":{"value":1}},"error":null}`, llmmetrics.ErrMissingField},
		{AIPerf, `{"something":"else"}`, ErrFormat},
		{AIPerf, ``, ErrFormat},
		{LLMPerf, smallLLMPerf[:100], llmmetrics.ErrSyntax},
		{LLMPerf, `[{"error_code": null, "ttft_s": 0.1}]`, llmmetrics.ErrMissingField},
		{LLMPerf, `[]`, ErrFormat},
		{LLMPerf, `[{"error_code": null, "inter_token_latency_s": 0.05, "ttft_s": 0.1, "end_to_end_latency_s": 0.3, "request_output_throughput_token_per_s": 1, "number_output_tokens": 2.5, "number_input_tokens": 1}]`, llmmetrics.ErrSyntax},
		{GuideLLM, smallGuideLLM[:300], llmmetrics.ErrSyntax},
		{GuideLLM, `{"benchmarks": []}`, llmmetrics.ErrMissingField},
		{GuideLLM, `{"benchmarks": [{"requests": {"successful": [{"request_id": "a"}]}}]}`, llmmetrics.ErrMissingField},
		{SGLang, `{"backend": "sglang", "duration": 1, "ttfts": [0.1], "itls": [[]], "input_lens": [1], "output_lens": [1, 2], "errors": [""]}`, ErrLength},
		{SGLang, ``, ErrFormat},
		{GenAIPerf, `{"experiments": [{"requests": [{"response_timestamps": [1], "response_outputs": [{"text_output": "a"}]}]}]}`, llmmetrics.ErrMissingField},
		{GenAIPerf, `{"experiments": [{"requests": [{"timestamp": 0, "response_timestamps": [1], "response_outputs": [{"response": "data: {bad\n\n"}]}]}]}`, llmmetrics.ErrSyntax},
	} {
		_, err := Read(strings.NewReader(c.in), c.tool)
		require.Error(t, err, "%s %q", c.tool, c.in)
		assert.ErrorIs(t, err, c.err, "%s %q", c.tool, c.in)
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", c.tool, err)
		assert.Equal(t, c.tool, fe.Tool)
		assert.Contains(t, err.Error(), string(c.tool)+" file")
	}
}

// FuzzRead feeds arbitrary bytes to every importer through detection: no
// panic, errors of the package's type, and whatever imports summarizes
// without losing a record and compares without error.
func FuzzRead(f *testing.F) {
	for _, s := range []string{smallVLLM, smallAIPerf, smallLLMPerf, smallGuideLLM, sglangRuns} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/genai_perf_profile_export.json"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, tool := range append([]Tool{""}, Tools...) {
			file, err := Read(bytes.NewReader(in), tool)
			if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) && !errors.Is(err, ErrFormat) {
					t.Fatalf("%s: error of the wrong type: %v", tool, err)
				}
				continue
			}
			run, err := file.Records()
			if err != nil {
				continue // a summary only
			}
			opt := llmmetrics.Options{Lenient: true, Window: time.Second}
			s, err := run.Summarize(opt)
			if err != nil {
				if errors.Is(err, llmmetrics.ErrNoRecords) {
					continue
				}
				t.Fatalf("%s: %v", file.Tool, err)
			}
			if s.Requests.Offered != len(run.Records)+len(run.Rejected) {
				t.Fatalf("%s: records lost", file.Tool)
			}
			d, err := file.Dialect()
			if err != nil {
				t.Fatalf("%s: %v", file.Tool, err)
			}
			for _, fig := range d.Figures {
				if math.IsNaN(fig.Value) {
					t.Fatalf("%s: %s is NaN", file.Tool, fig.Key)
				}
			}
			if _, err := Compare(file, opt); err != nil {
				t.Fatalf("%s: compare: %v", file.Tool, err)
			}
		}
	})
}

// A group whose weights sum to 0 (every successful request has one output
// token, so inter_token_latency_ms weighs n − 1 = 0) gets no weighted
// figure: GuideLLM's would be NaN. The unweighted ones stay, and the key
// paths are the file's own.
func TestGuideLLMZeroWeights(t *testing.T) {
	in := strings.ReplaceAll(smallGuideLLM, `"output_tokens": 3`, `"output_tokens": 1`)
	in = strings.ReplaceAll(in, `"output_tokens": 5`, `"output_tokens": 1`)
	f, err := Read(strings.NewReader(in), "")
	require.NoError(t, err)
	d, err := f.Dialect()
	require.NoError(t, err)
	for _, k := range []string{"inter_token_latency_ms.successful.mean", "inter_token_latency_ms.successful.percentiles.p99"} {
		_, ok := d.Lookup(k)
		assert.False(t, ok, k)
		why, missing := d.Why(k)
		assert.True(t, missing, k)
		assert.Contains(t, why, "weight 0")
	}
	n, ok := d.Lookup("inter_token_latency_ms.successful.count")
	assert.True(t, ok)
	assert.Equal(t, 2.0, n)
	_, ok = d.Lookup("time_to_first_token_ms.successful.percentiles.p99")
	assert.True(t, ok)
}

// FuzzReadStage: an inference-perf stage report is read or refused, and
// every figure read is finite and not negative.
func FuzzReadStage(f *testing.F) {
	for _, s := range []string{
		`{"load_summary": {"requested_rate": 2}, "successes": {"count": 3, "latency": {"time_to_first_token": {"median": 0.03, "p99": 0.05}}}, "failures": {"count": 1}}`,
		`{"load_summary": {}, "successes": {"rate": 9.5, "time_to_first_token": {"mean": 0.02, "median": 0.019}}, "failures": {}}`,
		`{"load_summary": {}, "successes": {}}`,
		`{"load_summary": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ReadStage(bytes.NewReader(b))
		if err != nil {
			return
		}
		for k, v := range st.Figures {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("%s = %v", k, v)
			}
		}
	})
}

// FuzzReadAll: every benchmark of a file is read, numbered 1…N in file
// order, or the file is refused with this package's errors; a load that
// is stated is a concurrency or a rate, positive and finite. ReadLoad of
// the same bytes as an AIPerf summary states the same kind of load or
// none, and never panics.
func FuzzReadAll(f *testing.F) {
	for _, s := range []string{smallGuideLLM, smallVLLM,
		`{"benchmarks": [{"args": {"strategy": {"type_": "constant", "rate": 2}}, "requests": {"successful": []}}, {"args": "x", "requests": {}}]}`,
		`{"input_config": {"loadgen": {"concurrency": 4}}}`} {
		f.Add([]byte(s))
	}
	valid := func(t *testing.T, l Load) {
		if (l.Kind != "rate" && l.Kind != "concurrency") || !(l.Level > 0) || math.IsInf(l.Level, 0) {
			t.Fatalf("load %+v", l)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		files, err := ReadAll(bytes.NewReader(in), "")
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrSummaryFile) {
				t.Fatalf("error of the wrong type: %v", err)
			}
		}
		for i, file := range files {
			if file.Benchmark != i+1 || file.Benchmarks != len(files) {
				t.Fatalf("benchmark %d of %d at position %d of %d", file.Benchmark, file.Benchmarks, i+1, len(files))
			}
			if l, ok := file.Load(); ok {
				valid(t, l)
			}
		}
		if l, ok, err := ReadLoad(AIPerf, bytes.NewReader(in)); ok {
			if err != nil {
				t.Fatal("a load and an error")
			}
			valid(t, l)
		}
	})
}

// A GuideLLM benchmark whose args this package does not know states no
// load and is read all the same.
func TestGuideLLMArgsUnknown(t *testing.T) {
	for _, args := range []string{`"x"`, `{"strategy": {"type_": "constant", "rate": "fast"}}`, `{"strategy": {"type_": "throughput"}}`} {
		in := strings.Replace(smallGuideLLM, `{"request_totals"`, `{"args": `+args+`, "request_totals"`, 1)
		require.NotEqual(t, smallGuideLLM, in)
		files, err := ReadAll(strings.NewReader(in), "")
		require.NoError(t, err, args)
		require.Len(t, files, 1)
		_, ok := files[0].Load()
		assert.False(t, ok, args)
	}
}
