package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// The JSON contract of the report command: every key the issue names, with
// the right types, on the goodput cohort of the second lesson (2 good of 5
// offered over a declared 10 s window: 0.2 requests/s and 40 %).
func TestReportJSONContract(t *testing.T) {
	code, out, errs := runCLI(t, "", "report", "--json", "--slo", "ttft=500ms,tpot=50ms", "--window", "10s",
		"../../testdata/seeds/goodput_cohort.csv")
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))

	assert.Equal(t, "nearest-rank", got["percentile_method"])
	req := got["requests"].(map[string]any)
	for k, v := range map[string]float64{"offered": 5, "ok": 4, "failed": 1, "zero_token": 0, "one_token": 0} {
		assert.Equal(t, v, req[k], k)
	}
	for _, m := range []string{"ttft_ms", "tpot_ms", "e2e_ms"} {
		d := got[m].(map[string]any)
		for _, k := range []string{"n", "mean", "min", "max", "p50", "p90", "p95", "p99"} {
			assert.IsType(t, float64(0), d[k], "%s.%s", m, k)
		}
	}
	ttft := got["ttft_ms"].(map[string]any)
	assert.Equal(t, 100.0, ttft["min"])
	assert.Equal(t, 700.0, ttft["max"])
	assert.Equal(t, 100.0, ttft["p50"]) // ⌈0.5·4⌉ = 2nd of 100, 100, 200, 700
	assert.Equal(t, "request", got["tpot_ms"].(map[string]any)["weighting"])
	assert.NotContains(t, got, "itl_ms") // the CSV has no chunk timings

	tp := got["throughput"].(map[string]any)
	assert.Equal(t, 10.0, tp["window_s"])
	assert.Equal(t, 1.2, tp["output_tokens_per_s"]) // 4 requests × 3 tokens / 10 s
	assert.Equal(t, 40.0, tp["prompt_tokens_per_s"])
	assert.Equal(t, 0.4, tp["requests_per_s"])
	g := got["goodput"].(map[string]any)
	assert.Equal(t, 2.0, g["good"])
	assert.Equal(t, 5.0, g["offered"])
	assert.Equal(t, 0.4, g["attainment"])
	assert.Equal(t, 0.2, g["requests_per_s"])
}

func TestReportITLAndPercentileKeys(t *testing.T) {
	code, out, errs := runCLI(t, "", "report", "../../testdata/seeds/opening_trace.jsonl",
		"--json", "--method", "linear", "--percentiles", "50,99.9")
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "linear", got["percentile_method"])
	itl := got["itl_ms"].(map[string]any)
	assert.Equal(t, "token", itl["basis"])
	assert.Equal(t, 36.25, itl["mean"])
	// Type 7 over the gaps 35, 36, 37, 37: h = 3·0.5 = 1.5 → 36.5; h = 3·0.999 = 2.997 → 37.
	assert.Equal(t, 36.5, itl["p50"])
	assert.Equal(t, 37.0, itl["p99.9"])
	assert.NotContains(t, itl, "p90")
	assert.NotContains(t, got, "goodput")
}

func TestReportTableFromStdin(t *testing.T) {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms\nr1,256,11,150,450,0\nr2,256,1,80,80,5\n"
	code, out, errs := runCLI(t, in, "report")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "llmmetrics report: standard input")
	assert.Contains(t, out, "requests: 2 offered = 2 ok + 0 zero-token + 0 failed + 0 rejected")
	assert.Contains(t, out, "1 one-token requests excluded")
	assert.Contains(t, out, "percentiles: nearest-rank")
	assert.Contains(t, out, "never add the two")
}

func TestReportErrors(t *testing.T) {
	bad := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\nr1,256,11,150,450\nr2,256,3,NaN,80\n"
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		msg   string
	}{
		// "r2,256,3," is 9 bytes, so NaN starts at column 10.
		{bad, []string{"report"}, 1, `standard input: line 3, column 10 (id "r2"): field TTFT_ms: value is NaN or infinite`},
		{"", []string{"report", "no/such/file.csv"}, 1, "no such file"},
		{"", []string{"report", "--method", "type7"}, 2, "--method"},
		{"", []string{"report", "--percentiles", "50,101"}, 2, "--percentiles"},
		{"", []string{"report", "--slo", "ttft=fast"}, 2, "--slo"},
		{"", []string{"report", "--slo-strict"}, 2, "--slo-strict needs --slo"},
		{"", []string{"report", "--window", "0s"}, 2, "--window"},
		{"", []string{"report", "--window", "-1s"}, 2, "--window"},
		{"", []string{"report", "--merge", "a", "b"}, 1, "open a: no such file"},
		{"", []string{"report", "a", "b"}, 2, "2 files are 2 runs"},
		{"", []string{"report", "--bogus"}, 2, "bogus"},
		{"", []string{"frobnicate"}, 2, "unknown command"},
		{"", nil, 2, "no command"},
		{"", []string{"report"}, 1, "standard input: no records: the input is empty"},
		{" \n\n", []string{"report", "-"}, 1, "standard input: no records: the input is empty"},
	} {
		code, _, errs := runCLI(t, c.stdin, c.args...)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Contains(t, errs, c.msg, "%v", c.args)
		assert.True(t, strings.HasPrefix(errs, "llmmetrics: "), errs)
		if c.code == 1 {
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
		}
	}
	_, _, errs := runCLI(t, bad, "report")
	assert.Contains(t, errs, "--lenient counts invalid records as rejected instead")

	// Lenient mode reports instead, counting the rejected row.
	code, out, errs := runCLI(t, bad, "report", "--lenient", "--json")
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 1.0, got["requests"].(map[string]any)["rejected"])
	assert.Len(t, got["rejected"], 1)
}

// --warmup sets requests aside as a counted category; a rule that finds
// no steady state sets nothing aside and says so.
func TestReportWarmup(t *testing.T) {
	code, out, errs := runCLI(t, "", "report", "--warmup", "40", "--json", "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"offered":240,`)
	assert.Contains(t, out, `"warmup":40`)
	assert.Contains(t, out, `"reason":"the first 40 requests in send order"`)
	code, out, errs = runCLI(t, "", "report", "--warmup", "auto", "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "requests: 240 offered = 234 ok")
	assert.Contains(t, out, "WARM-UP NOT FOUND: never steady")
	code, _, errs = runCLI(t, "", "report", "--warmup", "soon", "../../testdata/sample_run.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `--warmup "soon"`)
}

// --stratify adds a table of latencies per output length.
func TestReportStratify(t *testing.T) {
	code, out, errs := runCLI(t, "", "report", "--stratify", "output=16,64,256", "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "latency by output length, over ok requests (6 measured requests that are not ok are in no stratum)")
	for _, s := range []string{"n ≤ 16", "16 < n ≤ 64", "64 < n ≤ 256", "n > 256"} {
		assert.Contains(t, out, s)
	}
	code, out, errs = runCLI(t, "", "report", "--json", "--stratify", "prompt=1000", "../../testdata/sample_run.jsonl")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"strata":{"by":"prompt","of":"ok requests","unstratified":6`)
	code, _, errs = runCLI(t, "", "report", "--stratify", "output=64,16", "../../testdata/sample_run.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "must ascend")
}

const smallVLLM = `{"backend": "vllm", "duration": 2.0, "completed": 2,
 "input_lens": [10, 20, 30], "output_lens": [3, 0, 1],
 "ttfts": [0.1, 0.0, 0.3], "itls": [[0.02, 0.04], [], []],
 "errors": ["", "Bad Gateway", ""], "mean_ttft_ms": 200.0, "p99_ttft_ms": 298.0}`

// The vLLM dialect prints vLLM's own keys: ttfts 0.1 and 0.3 s → mean
// 200 ms and linear p99 298 ms; 2 completed over 2 s → 1 request/s.
func TestReportDialect(t *testing.T) {
	code, out, errs := runCLI(t, smallVLLM, "report", "--dialect", "vllm", "--json")
	require.Equal(t, 0, code, errs)
	var got map[string]float64
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.InDelta(t, 200, got["mean_ttft_ms"], 1e-9)
	assert.InDelta(t, 298, got["p99_ttft_ms"], 1e-9)
	assert.Equal(t, 1.0, got["request_throughput"])
	assert.Equal(t, 2.0, got["completed"])

	code, out, errs = runCLI(t, smallVLLM, "report", "--from", "vllm", "--dialect", "vllm")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "mean_ttft_ms")
	assert.Contains(t, out, "its conventions:")
}

// Another tool's file is detected and re-analysed under llmmetrics'
// conventions, with the importer's notes.
func TestReportForeignFile(t *testing.T) {
	code, out, errs := runCLI(t, smallVLLM, "report", "--json")
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	req := got["requests"].(map[string]any)
	assert.Equal(t, 2.0, req["ok"])
	assert.Equal(t, 1.0, req["failed"])
	assert.Equal(t, 2.0, got["throughput"].(map[string]any)["window_s"], "no send times: the file's duration")
	assert.Contains(t, fmt.Sprint(got["notes"]), "Read from vllm's file")
}

// The whole table of reconcile is in the golden files (reconcile/); here,
// that a method both use is not named as a difference.
func TestReconcileCommand(t *testing.T) {
	code, out, errs := runCLI(t, smallVLLM, "reconcile", "--json", "--method", "linear")
	require.Equal(t, 0, code, errs)
	var got struct {
		Tool    string `json:"tool"`
		Method  string `json:"percentile_method"`
		Rows    []map[string]any
		Reasons []string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "vllm", got.Tool)
	assert.Equal(t, "linear", got.Method)
	assert.NotEmpty(t, got.Rows)
	assert.NotEmpty(t, got.Reasons)
	for _, r := range got.Reasons {
		assert.NotContains(t, r, "Percentile method", "with --method linear the method is not a difference")
	}
}

func TestInteropErrors(t *testing.T) {
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{smallVLLM, []string{"report", "--dialect", "aiperf"}, 1, "aiperf file"},
		{smallVLLM, []string{"report", "--from", "vllm", "--dialect", "aiperf"}, 2, "--dialect aiperf on a vllm file"},
		{"", []string{"report", "--from", "nosuch"}, 2, "--from"},
		{"", []string{"reconcile", "--from", "nosuch"}, 2, "--from"},
		{`{"duration": 1, "ttfts": [0.1], "itls": [[0.1`, []string{"report", "--from", "vllm"}, 1, "vllm file, byte 45, field itls: syntax error: unexpected end of input"},
		{"request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n", []string{"reconcile"}, 1, "matches no tool"},
	} {
		code, _, errs := runCLI(t, c.stdin, c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, errs)
		assert.Contains(t, errs, c.msg, "%v", c.args)
		if c.code == 1 {
			assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
		}
	}
}

// The server command on the shared real scrapes: snapshot 1 to 2 is one
// request of 128 generation tokens; a client file with that request agrees.
func TestServerCommand(t *testing.T) {
	dir := "../../../shared/realdata/prometheus/"
	before, after := dir+"Ahasannn__hardware-aware-router__snapshot1_05350b40.txt", dir+"Ahasannn__hardware-aware-router__snapshot2_3f774bb6.txt"
	if _, err := os.Stat(before); err != nil {
		t.Skipf("the shared real scrapes are absent: %v", err)
	}
	records := filepath.Join(t.TempDir(), "client.csv")
	require.NoError(t, os.WriteFile(records, []byte("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\nq,6,128,30,3000\n"), 0o644))
	code, out, errs := runCLI(t, "", "server", "--before", before, "--after", after, "--elapsed", "10s",
		"--select", "model_name=Qwen/Qwen2.5-3B-Instruct", "--records", records, "--json")
	require.Equal(t, 0, code, errs)
	var got struct {
		WindowS  float64 `json:"window_s"`
		Counters map[string]struct {
			Delta float64 `json:"delta"`
			PerS  float64 `json:"per_s"`
		} `json:"counters"`
		Histograms map[string]map[string]any `json:"histograms"`
		Known      map[string]any            `json:"known_output"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 10.0, got.WindowS)
	assert.Equal(t, 128.0, got.Counters["generation_tokens"].Delta)
	assert.Equal(t, 12.8, got.Counters["generation_tokens"].PerS)
	ttft := got.Histograms["time_to_first_token_seconds"]
	assert.Equal(t, 1.0, ttft["count"])
	for _, k := range []string{"mean_s", "p50_s", "p95_s", "p99_s", "lower_bound"} {
		assert.Contains(t, ttft, k)
	}
	assert.Equal(t, true, got.Known["agree"])

	// With the server's per-request timings: TTFT 30 ms at the client,
	// queue 5 + scheduled-to-first-token 20 at the server → 5 ms overhead.
	timings := filepath.Join(t.TempDir(), "timings.jsonl")
	require.NoError(t, os.WriteFile(timings, []byte(`{"id": "q", "source": "vllm", "timings": {"queue_time_ms": 5, "time_to_first_token_ms": 20}}`+"\n"), 0o644))
	code, out, errs = runCLI(t, "", "server", "--before", before, "--after", after, "--elapsed", "10s",
		"--records", records, "--timings", timings, "--json")
	require.Equal(t, 0, code, errs)
	var dec struct {
		D struct {
			Rows []map[string]any `json:"rows"`
		} `json:"ttft_decomposition"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &dec))
	require.Len(t, dec.D.Rows, 1)
	assert.Equal(t, 5.0, dec.D.Rows[0]["client_overhead_ms"])
	assert.Nil(t, dec.D.Rows[0]["residual_ms"], "unknown, not 0")
	code, _, errs = runCLI(t, "", "server", "--before", before, "--after", after, "--elapsed", "1s", "--timings", timings)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--timings needs --records")

	code, _, errs = runCLI(t, "", "server", "--before", before, "--after", after)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--elapsed")
	code, _, errs = runCLI(t, "", "server", "--before", after, "--after", dir+"Ahasannn__hardware-aware-router__vllm_metrics_idle.txt", "--elapsed", "1s")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "counter reset")
}

// --prometheus reads the window from a Prometheus server's query API: here
// a fake one whose counter is 100 at time 0 and 160 at time 60.
func TestServerFromPrometheus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, at := r.URL.Query().Get("query"), r.URL.Query().Get("time")
		result := `[]`
		switch {
		case strings.HasPrefix(q, "sum(resets("):
			result = `[{"metric": {}, "value": [60, "0"]}]`
		case at == "0.000":
			result = `[{"metric": {"__name__": "vllm:generation_tokens_total"}, "value": [0, "100"]}]`
		case at == "60.000":
			result = `[{"metric": {"__name__": "vllm:generation_tokens_total"}, "value": [60, "160"]}]`
		}
		fmt.Fprintf(w, `{"status": "success", "data": {"resultType": "vector", "result": %s}}`, result)
	}))
	defer srv.Close()
	code, out, errs := runCLI(t, "", "server", "--prometheus", srv.URL, "--start", "1970-01-01T00:00:00Z", "--end", "60", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"generation_tokens":{"delta":60,"per_s":1,"series":1,"unit":"tokens"}`)

	for _, args := range [][]string{
		{"server", "--prometheus", srv.URL, "--start", "0"},
		{"server", "--prometheus", srv.URL, "--start", "yesterday", "--end", "60"},
		{"server", "--prometheus", srv.URL, "--before", "a", "--start", "0", "--end", "60"},
	} {
		code, _, _ := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v", args)
	}
}

// The gate: status 3 with a one-line reason after the report, 0 when the
// run passes, 1 for a figure the run lacks, 2 for a bad condition. The
// sample run's TTFT ranges from 41.477 to 350.264 ms (its report).
func TestReportGate(t *testing.T) {
	sample := "../../testdata/sample_run.jsonl"
	code, out, errs := runCLI(t, "", "report", "--fail-if", "max(ttft)>350ms", "--fail-if", "min(ttft)<40ms", sample)
	assert.Equal(t, 3, code)
	assert.Contains(t, out, "requests: 240 offered", "the report is printed first")
	assert.Equal(t, "llmmetrics: gate failed: max(ttft)>350ms (it is 350.264ms)\n", errs)

	code, _, errs = runCLI(t, "", "report", "--fail-if", "max(ttft)>351ms", "--fail-if", "p99.9(ttft)>1s", sample)
	assert.Equal(t, 0, code, errs)

	// Every ok request meets a TTFT limit of 351 ms; the 6 that are not ok
	// stay in the denominator: attainment 234/240 = 0.975.
	code, _, errs = runCLI(t, "", "report", "--slo", "ttft=351ms", "--fail-below", "0.97", sample)
	assert.Equal(t, 0, code, errs)
	code, _, errs = runCLI(t, "", "report", "--slo", "ttft=351ms", "--fail-below", "0.98", sample)
	assert.Equal(t, 3, code)
	assert.Equal(t, "llmmetrics: gate failed: attainment<0.98 (it is 0.975)\n", errs)

	// A figure the run lacks fails the command (status 1), never passes:
	// one request of one token has no TPOT.
	one := `{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[100000000],"completion_tokens":1}` + "\n"
	code, _, errs = runCLI(t, one, "report", "--fail-if", "p99(tpot)>1s", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "the run has no tpot distribution")

	// Answers without usage leave a TPOT limit unjudged: of 20, 10 counted
	// (TPOT 40 ms / 4 = 10 ms) and 10 not, 4 of each with a TTFT of 2 s,
	// 6 are good, 6 unjudged, 8 failed. The attainment lies between 0.3
	// and 0.6: below 0.7 whatever they were (status 3), undecided against
	// 0.5 (status 1).
	var b strings.Builder
	for i := range 20 {
		first := 100_000_000
		if i%10 < 4 {
			first = 2_000_000_000
		}
		count := ""
		if i < 10 {
			count = `,"completion_tokens":5`
		}
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[%d,%d]%s}`+"\n", i, i*1000, first, first+40_000_000, count)
	}
	code, _, errs = runCLI(t, b.String(), "report", "--slo", "ttft=1s,tpot=50ms", "--fail-below", "0.7", "-")
	assert.Equal(t, 3, code, errs)
	assert.Equal(t, "llmmetrics: gate failed: attainment<0.7 (it is 0.3 to 0.6)\n", errs)
	code, _, errs = runCLI(t, b.String(), "report", "--slo", "ttft=1s,tpot=50ms", "--fail-below", "0.5", "-")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, `condition "attainment<0.5" cannot be judged: ≥0.3 is a lower bound`)

	code, _, errs = runCLI(t, "", "report", "--fail-below", "0.9", sample)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--fail-below needs --slo")
	code, _, errs = runCLI(t, "", "report", "--fail-if", "p99(ttft)", sample)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "no comparison")
}
