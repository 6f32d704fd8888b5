package formats_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
)

// A vLLM result with --save-detailed: two requests; the first has three
// tokens in three chunks (TTFT 0.1 s, gaps 20 and 40 ms), the second
// failed. It was run over 2 s.
const vllmResult = `{"backend": "vllm", "duration": 2.0, "completed": 1,
 "input_lens": [10, 20], "output_lens": [3, 0], "ttfts": [0.1, 0.0], "itls": [[0.02, 0.04], []],
 "errors": ["", "Bad Gateway"], "mean_ttft_ms": 100.0, "mean_itl_ms": 30.0}`

func ExampleReadVLLM() {
	f, err := formats.ReadVLLM(strings.NewReader(vllmResult))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Tool, f.Layout, f.Window)
	fmt.Println(f.Summary)
	// Output:
	// vllm benchmarks/benchmark_serving.py 2s
	// [{duration 2} {completed 1} {mean_ttft_ms 100} {mean_itl_ms 30}]
}

func ExampleFile_Dialect() {
	f, _ := formats.ReadVLLM(strings.NewReader(vllmResult))
	d, _ := f.Dialect()
	for _, key := range []string{"completed", "request_throughput", "mean_ttft_ms", "mean_itl_ms", "p99_itl_ms"} {
		v, _ := d.Lookup(key)
		fmt.Printf("%s %.4g\n", key, v)
	}
	// Output:
	// completed 1
	// request_throughput 0.5
	// mean_ttft_ms 100
	// mean_itl_ms 30
	// p99_itl_ms 39.8
}

func ExampleFile_Records() {
	f, _ := formats.ReadVLLM(strings.NewReader(vllmResult))
	run, _ := f.Records()
	for _, r := range run.Records {
		fmt.Println(r.Status, r.Chunks, r.CompletionTokens)
	}
	// Output:
	// ok [100ms 120ms 160ms] 3
	// error [] 0
}

func ExampleDialect_Lookup() {
	f, _ := formats.ReadVLLM(strings.NewReader(vllmResult))
	d, _ := f.Dialect()
	v, ok := d.Lookup("total_input_tokens") // the failed request's prompt is not counted
	fmt.Println(v, ok)
	_, ok = d.Lookup("mean_e2el_ms") // the file summarizes no E2E
	fmt.Println(ok)
	// Output:
	// 10 true
	// false
}

func ExampleDialect_Why() {
	f, _ := formats.ReadLLMPerf(strings.NewReader(`[{"error_code": null, "inter_token_latency_s": 0.05, "ttft_s": 0.1,
	 "end_to_end_latency_s": 0.3, "request_output_throughput_token_per_s": 16, "number_output_tokens": 5, "number_input_tokens": 10}]`))
	d, _ := f.Dialect()
	why, _ := d.Why("results_mean_output_throughput_token_per_s")
	fmt.Println(why)
	// Output: divides by the test's wall-clock time, which the per-request file does not hold
}

func ExampleIsSetting() {
	fmt.Println(formats.IsSetting(formats.VLLM, "request_rate"), formats.IsSetting(formats.VLLM, "mean_ttft_ms"))
	// Output: true false
}

func ExampleCompare() {
	f, _ := formats.ReadVLLM(strings.NewReader(vllmResult))
	c, err := formats.Compare(f, llmmetrics.Options{Method: llmmetrics.Linear})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range c.Rows[:4] {
		fmt.Printf("%s: llmmetrics %.4g, vllm %.4g\n", r.Metric, r.Ours, r.Theirs)
	}
	// Output:
	// ok requests: llmmetrics 1, vllm 1
	// requests/s: llmmetrics 0.5, vllm 0.5
	// output tokens/s: llmmetrics 1.5, vllm 1.5
	// TTFT mean (ms): llmmetrics 100, vllm 100
}

func ExampleComparison_WriteTable() {
	f, _ := formats.ReadVLLM(strings.NewReader(vllmResult))
	c, _ := formats.Compare(f, llmmetrics.Options{})
	var b strings.Builder
	c.WriteTable(&b)
	fmt.Println(strings.Join(strings.Fields(strings.Split(b.String(), "\n")[0]), " "))
	// Output: metric llmmetrics (nearest-rank) vllm vllm key
}

func ExampleComparison_MarshalJSON() {
	f, _ := formats.ReadVLLM(strings.NewReader(vllmResult))
	c, _ := formats.Compare(f, llmmetrics.Options{})
	b, _ := c.MarshalJSON()
	fmt.Println(string(b[:strings.Index(string(b), `,{"metric":"requests/s"`)]))
	// Output: {"tool":"vllm","percentile_method":"nearest-rank","rows":[{"metric":"ok requests","llmmetrics":1,"tool":1,"tool_key":"completed"}
}

func ExampleParseTool() {
	t, err := formats.ParseTool("aiperf")
	fmt.Println(t, err)
	_, err = formats.ParseTool("locust")
	fmt.Println(errors.Is(err, formats.ErrFormat))
	// Output:
	// aiperf <nil>
	// true
}

func ExampleDetect() {
	t, ok := formats.Detect([]byte(vllmResult))
	fmt.Println(t, ok)
	_, ok = formats.Detect([]byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n"))
	fmt.Println(ok)
	// Output:
	// vllm true
	// false
}

func ExampleRead() {
	f, err := formats.Read(strings.NewReader(vllmResult), "") // detected from the content
	fmt.Println(f.Tool, err)
	// Output: vllm <nil>
}

func ExampleReadSummary() {
	figs, _ := formats.ReadSummary(formats.AIPerf, strings.NewReader(`{"records": {"ttft": {"unit": "ms", "avg": 12.5, "p99": 20.0, "std": null}}}`))
	fmt.Println(figs)
	// Output: [{ttft.avg 12.5} {ttft.p99 20}]
}

func ExampleReadAIPerf() {
	in := `{"metadata":{"x_request_id":"a","timestamp_ns":0},"metrics":{"ttft":{"value":100.0,"unit":"ms"},"request_latency":{"value":160.0,"unit":"ms"},"inter_chunk_latency":{"value":[20.0,40.0],"unit":"ms"},"output_sequence_length":{"value":3,"unit":"tokens"},"min_request_timestamp":{"value":0,"unit":"ns"}},"error":null}`
	f, _ := formats.ReadAIPerf(strings.NewReader(in))
	run, _ := f.Records()
	fmt.Println(run.Records[0].Chunks)
	// Output: [100ms 120ms 160ms]
}

func ExampleReadLLMPerf() {
	f, _ := formats.ReadLLMPerf(strings.NewReader(`[{"error_code": null, "inter_token_latency_s": 0.05, "ttft_s": 0.1,
	 "end_to_end_latency_s": 0.3, "request_output_throughput_token_per_s": 16, "number_output_tokens": 5, "number_input_tokens": 10}]`))
	run, _ := f.Records()
	tpot, _ := run.Records[0].TPOT() // (0.3 − 0.1)/(5 − 1)
	fmt.Println(tpot, f.NoSendTimes)
	// Output: 50ms true
}

func ExampleReadSGLang() {
	in := `{"backend": "sglang", "duration": 10.0, "completed": 3, "median_ttft_ms": 80.0}`
	f, _ := formats.ReadSGLang(strings.NewReader(in))
	_, err := f.Records()
	fmt.Println(errors.Is(err, formats.ErrNoRecords))
	// Output: true
}

func ExampleReadSGLangRuns() {
	in := `{"backend": "sglang", "request_rate": 1.0, "duration": 10.0, "completed": 3}
{"backend": "sglang", "request_rate": 2.0, "duration": 10.0, "completed": 6}`
	runs, _ := formats.ReadSGLangRuns(strings.NewReader(in))
	fmt.Println(len(runs), runs[1].Summary)
	// Output: 2 [{request_rate 2} {duration 10} {completed 6}]
}

func ExampleReadGuideLLM() {
	in := `{"benchmarks": [{"requests": {"successful": [{"request_id": "a", "prompt_tokens": 10, "output_tokens": 3,
	 "start_time": 100.0, "end_time": 100.5, "first_token_time": 100.1, "last_token_time": 100.4}]}}]}`
	f, _ := formats.ReadGuideLLM(strings.NewReader(in))
	run, _ := f.Records()
	r := run.Records[0]
	fmt.Println(r.FirstText, r.LastText)
	// Output: 100ms 400ms
}

func ExampleReadGenAIPerf() {
	file, err := os.Open("testdata/genai_perf_profile_export.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer file.Close()
	f, _ := formats.ReadGenAIPerf(file)
	d, _ := f.Dialect()
	v, _ := d.Lookup("time_to_first_token.avg") // (150 + 350)/2 ms
	fmt.Println(v)
	// Output: 250
}

func ExamplePeek() {
	r, head := formats.Peek(strings.NewReader(vllmResult))
	tool, _ := formats.Detect(head)
	f, _ := formats.Read(r, tool) // r still yields the peeked bytes
	fmt.Println(tool, f.Summary[0])
	// Output: vllm {duration 2}
}

func ExampleDetectSummary() {
	head := []byte(`{"records": {"ttft": {"tag": "ttft", "unit": "ms", "avg": 18.2}}}`)
	tool, instead, ok := formats.DetectSummary(head)
	fmt.Println(tool, ok)
	fmt.Println(instead)
	_, isData := formats.Detect(head)
	fmt.Println(isData)
	// Output:
	// aiperf true
	// this is AIPerf's summary file (profile_export_aiperf.json); pass its per-record file, profile_export.jsonl, which holds the requests
	// false
}

func ExampleFile_DialectWith() {
	// Three completed requests over 2 s; the third returned no token.
	in := `{"duration": 2.0, "ttfts": [0.1, 0.3, 0.0], "itls": [[0.02, 0.02], [0.05], []],
	        "input_lens": [5, 5, 5], "output_lens": [3, 2, 0], "errors": ["", "", ""]}`
	f, _ := formats.ReadVLLM(strings.NewReader(in))
	slo := llmmetrics.SLO{TTFT: 250 * time.Millisecond, TPOT: 30 * time.Millisecond}
	d, _ := f.DialectWith(formats.DialectOptions{Percentiles: []float64{50, 99.9}, SLO: &slo})
	for _, k := range []string{"p50_ttft_ms", "p99.9_ttft_ms", "request_goodput"} {
		v, _ := d.Lookup(k)
		fmt.Printf("%s %.4g\n", k, v)
	}
	// TTFTs 0, 0.1, 0.3 s: p50 = 0.1 s; p99.9 at position 0.999·2 = 1.998:
	// 0.1 + 0.998·0.2 = 0.2996 s. Goodput: request 1 meets both limits
	// (0.1 s; TPOT 0.04/2 = 0.02 s), request 2 fails TTFT, and request 3,
	// with no token, counts as good for vLLM (its TPOT is taken as 0):
	// 2 good / 2 s.
	_, err := f.DialectWith(formats.DialectOptions{SLO: &llmmetrics.SLO{MaxGap: time.Second}})
	fmt.Println(err)
	// Output:
	// p50_ttft_ms 100
	// p99.9_ttft_ms 299.6
	// request_goodput 1
	// formats: the tool offers no such choice: vLLM's goodput has no limit on the largest gap (max_gap)
}

// stageReport is the start of an inference-perf client stage report.
const stageReport = `{"load_summary": {"count": 60, "requested_rate": 1.0},
 "successes": {"count": 60,
  "latency": {"time_to_first_token": {"mean": 0.031, "median": 0.03103, "p90": 0.0354, "p95": 0.0362, "p99": 0.0397}},
  "throughput": {"output_tokens_per_sec": 64.2, "requests_per_sec": 1.01}},
 "failures": {"count": 0}}`

func ExampleIsStage() {
	fmt.Println(formats.IsStage([]byte(stageReport)), formats.IsStage([]byte(`{"ttfts": []}`)))
	// Output: true false
}

func ExampleReadStage() {
	st, err := formats.ReadStage(strings.NewReader(stageReport))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Side, st.RequestedRate, st.Figures["ttft p99"], st.Figures["error_rate"])
	// Output: client 1 39.7 0
}

func ExampleStageName() {
	fmt.Println(formats.StageName("results/stage_2_lifecycle_metrics.json"))
	fmt.Println(formats.StageName("results/stage_2_prometheus_metrics.json"))
	// Output:
	// results/stage_2
	// results/stage_2
}

// A GuideLLM sweep of two benchmarks, synchronous then constant at 4
// requests/s, one request each.
const guidellmSweep = `{"benchmarks": [
 {"args": {"strategy": {"type_": "synchronous"}}, "requests": {"successful": [
  {"request_id": "a", "prompt_tokens": 10, "output_tokens": 3, "start_time": 100.0, "end_time": 100.5, "first_token_time": 100.1, "last_token_time": 100.4}]}},
 {"args": {"strategy": {"type_": "constant", "rate": 4.0}}, "requests": {"successful": [
  {"request_id": "b", "prompt_tokens": 10, "output_tokens": 5, "start_time": 200.0, "end_time": 200.6, "first_token_time": 200.2, "last_token_time": 200.6}]}}]}`

func ExampleReadAll() {
	files, err := formats.ReadAll(strings.NewReader(guidellmSweep), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		run, _ := f.Records()
		fmt.Printf("benchmark %d of %d (%s): request %s\n", f.Benchmark, f.Benchmarks, f.Strategy, run.Records[0].ID)
	}
	// Output:
	// benchmark 1 of 2 (synchronous): request a
	// benchmark 2 of 2 (constant at 4 requests/s): request b
}

func ExampleFile_Load() {
	files, _ := formats.ReadAll(strings.NewReader(guidellmSweep), formats.GuideLLM)
	for _, f := range files {
		fmt.Println(f.Load())
	}
	f, _ := formats.Read(strings.NewReader(`{"duration": 10, "request_rate": 2.5, "max_concurrency": null, "ttfts": [], "itls": [], "input_lens": [], "output_lens": [], "errors": []}`), "")
	fmt.Println(f.Load())
	// Output:
	// {concurrency 1} true
	// {rate 4} true
	// {rate 2.5} true
}

func ExampleReadLoad() {
	summary := `{"input_config": {"loadgen": {"concurrency": 100, "request_count": 100}}, "records": {}}`
	fmt.Println(formats.ReadLoad(formats.AIPerf, strings.NewReader(summary)))
	// Output: {concurrency 100} true <nil>
}

func ExampleFile_LoadBeside() {
	dir, _ := os.MkdirTemp("", "aiperf")
	defer os.RemoveAll(dir)
	// AIPerf keeps its load in the summary file beside its records.
	records := dir + "/profile_export.jsonl"
	os.WriteFile(records, []byte(`{"metadata":{"x_request_id":"a","timestamp_ns":1000},"metrics":{"error_request_count":{"value":1,"unit":"requests"}},"error":{"code":499,"type":"RequestCancellationError","message":"cancelled"}}`+"\n"), 0o644)
	os.WriteFile(dir+"/profile_export_aiperf.json", []byte(`{"input_config": {"loadgen": {"concurrency": 8}}, "records": {}}`), 0o644)
	in, _ := os.Open(records)
	defer in.Close()
	f, err := formats.Read(in, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Load())
	fmt.Println(f.LoadBeside(records))
	// Output:
	// { 0} false
	// {concurrency 8} true
}

// An inference-perf stage report holds the tool's summary, no requests:
// Read gives its figures, under their paths in the file, and a dialect
// that states them.
func ExampleRead_inferencePerf() {
	f, err := formats.Read(strings.NewReader(stageReport), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Tool, f.Layout)
	fmt.Println(f.Load())
	d, _ := f.Dialect()
	v, _ := d.Lookup("successes.latency.time_to_first_token.p99")
	fmt.Println(d.Stated, v)
	_, err = f.Records()
	fmt.Println(errors.Is(err, formats.ErrNoRecords))
	// Output:
	// inference-perf stage_N_lifecycle_metrics.json, client side
	// {rate 1} true
	// true 0.0397
	// true
}

// A GuideLLM file that keeps 2 of its 5 requests: its records are a
// sample.
func ExampleSample_String() {
	f, err := formats.Read(strings.NewReader(guidellmSampled), formats.GuideLLM)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Sample, "—", f.Sample.Detail)
	// Output:
	// 2 of 5 requests — 2 of 4 successful, 0 of 1 incomplete
}

// Rates over the window of a sampled file would count only the sample:
// they are absent, with this reason.
func ExampleSample_RatesAbsent() {
	f, err := formats.Read(strings.NewReader(guidellmSampled), formats.GuideLLM)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Sample.RatesAbsent())
	// Output:
	// the file keeps 2 of 5 requests as a sample: rates over the window would count only those
}

func ExampleTool_Name() {
	fmt.Println(formats.GenAIPerf, "is written", formats.GenAIPerf.Name())
	// Output: genai-perf is written GenAI-Perf
}
