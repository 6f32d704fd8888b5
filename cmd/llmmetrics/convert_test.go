package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run file of run holds preflight and warm-up requests, which CSV cannot
// mark: convert to CSV refuses it naming the first one for what it is,
// and with --measured leaves them out and says how many; the CSV then
// reports the measured requests.
func TestConvertMeasured(t *testing.T) {
	in := writeFile(t, "run.jsonl", strings.Join([]string{
		`{"id":"test-1","status":"ok","preflight":true,"warmup":true,"sent_ns":0,"chunk_arrivals_ns":[1000000],"completion_tokens":1}`,
		`{"id":"w1","status":"ok","warmup":true,"sent_ns":1000000,"chunk_arrivals_ns":[1000000],"completion_tokens":1}`,
		`{"id":"1","status":"ok","sent_ns":2000000,"chunk_arrivals_ns":[1000000,3000000],"completion_tokens":2}`,
		`{"id":"2","status":"ok","sent_ns":3000000,"chunk_arrivals_ns":[2000000,5000000],"completion_tokens":2}`,
	}, "\n")+"\n")
	out := filepath.Join(t.TempDir(), "run.csv")
	code, _, errs := runCLI(t, "", "convert", in, out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `line 1 (id "test-1"): field preflight: missing field: the CSV format has no column to mark a preflight request (a test or sizing request sent before the load); write JSONL`)
	assert.Contains(t, errs, "convert --measured leaves out the warm-up and preflight requests")
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "no CSV left behind")

	code, stdout, errs := runCLI(t, "", "convert", "--measured", in, out)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(stdout, "convert: left out 1 warm-up and 1 preflight requests (--measured)\nconvert: "+out+" keeps no chunk arrival times"), stdout)
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, "requests: 2 offered = 2 ok")
}

// A repeated id is refused by convert as report refuses it, with the same
// line and exit status 1, and no file is written: convert reads strictly.
func TestConvertRepeatedID(t *testing.T) {
	in := writeFile(t, "dup.jsonl", strings.Join([]string{
		`{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[1000000],"completion_tokens":1}`,
		`{"id":"b","status":"ok","sent_ns":1000000,"chunk_arrivals_ns":[1000000],"completion_tokens":1}`,
		`{"id":"a","status":"ok","sent_ns":2000000,"chunk_arrivals_ns":[1000000],"completion_tokens":1}`,
	}, "\n")+"\n")
	const says = `dup.jsonl: line 3 (id "a"): field id: duplicate record id: also line 1`
	code, _, errs := runCLI(t, "", "report", in)
	require.Equal(t, 1, code)
	require.Contains(t, errs, says)
	for _, ext := range []string{".parquet", ".csv", ".jsonl"} {
		out := filepath.Join(t.TempDir(), "out"+ext)
		code, _, errs := runCLI(t, "", "convert", in, out)
		assert.Equal(t, 1, code, ext)
		assert.Contains(t, errs, says, ext)
		assert.NotContains(t, errs, "--lenient", ext) // convert has none
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%s: nothing written", ext)
	}
}

// A run without usage is not converted to CSV, whose rows would read it
// back as zero-token requests: one line naming the record, exit status 1,
// no file left (it once wrote every such request with 0 tokens).
func TestConvertNoUsageToCSV(t *testing.T) {
	in := writeFile(t, "nu.jsonl", `{"id":"a","sent_ns":0,"chunk_arrivals_ns":[100,200]}`+"\n")
	out := filepath.Join(t.TempDir(), "nu.csv")
	code, _, errs := runCLI(t, "", "convert", in, out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `line 1 (id "a"): field completion_tokens: missing field: no usable output token count (no_usage)`)
	assert.NotContains(t, errs, "--measured")
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "a file was left: %v", err)
}

// A run without send times (a CSV without sent_ms, a vLLM file) is
// written without them in every format: no sent_ns in JSONL, no sent_ms
// column in CSV, Parquet's null; each reads back without send times, with
// the same figures, never as a run sent all at once.
func TestConvertNoSendTimes(t *testing.T) {
	in := writeFile(t, "ns.csv", "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,10,3,100,400\nb,10,3,120,380\n")
	code, want, errs := runCLI(t, "", "report", "--json", in)
	require.Equal(t, 0, code, errs)
	dir := t.TempDir()
	for _, name := range []string{"ns.jsonl", "ns2.csv", "ns.parquet"} {
		out := filepath.Join(dir, name)
		code, _, errs := runCLI(t, "", "convert", in, out)
		require.Equal(t, 0, code, errs)
		if b, err := os.ReadFile(out); err == nil && !strings.HasSuffix(name, ".parquet") {
			assert.NotContains(t, string(b), "sent_", name)
		}
		code, got, errs := runCLI(t, "", "report", "--json", out)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, got, `"workload.arrivals":"the records carry no send times"`, name)
		assert.Equal(t, figuresOnly(want), figuresOnly(got), name)
	}
}

// figuresOnly returns the request counts and latencies of a report's JSON.
func figuresOnly(report string) string {
	var j map[string]json.RawMessage
	if err := json.Unmarshal([]byte(report), &j); err != nil {
		return "not JSON: " + err.Error()
	}
	return string(j["requests"]) + string(j["ttft_ms"]) + string(j["tpot_ms"]) + string(j["e2e_ms"])
}

// A cut input (its last line an unfinished row or record, as a writer
// killed mid-write leaves it) is refused for JSONL and CSV, which cannot
// say so and would read as whole (found by a new-user pass: convert exited
// 0 and the TRUNCATED state was lost); the message names where it is cut
// and that Parquet keeps the cut, no file is left, and .parquet converts it.
func TestConvertCut(t *testing.T) {
	// CSV: the header is line 1, record a line 2; line 3 "b,3,5,12,1" is
	// 10 bytes cut after 1 whole record.
	csvIn := writeFile(t, "cut.csv", "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\na,3,5,10,100,0,ok,\nb,3,5,12,1")
	// JSONL: line 2 `{"id":"b","sent_ns":0,"chunk_arr` is 32 bytes.
	jsonlIn := writeFile(t, "cut.jsonl", `{"id":"a","sent_ns":0,"chunk_arrivals_ns":[10000000,20000000],"completion_tokens":2}`+"\n"+`{"id":"b","sent_ns":0,"chunk_arr`)
	for _, c := range []struct{ in, where string }{
		{csvIn, "ends inside line 3 (10 bytes of an unfinished row after record 1)"},
		{jsonlIn, "ends inside line 2 (32 bytes of an unfinished record after record 1)"},
	} {
		for _, ext := range []string{"jsonl", "csv"} {
			out := filepath.Join(t.TempDir(), "out."+ext)
			code, _, errs := runCLI(t, "", "convert", c.in, out)
			assert.Equal(t, 1, code, errs)
			assert.Equal(t, "llmmetrics: "+c.in+" is cut: it "+c.where+"; a ."+ext+" file cannot say so and would read as whole: convert it to .parquet, which keeps the cut\n", errs)
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no .%s left behind", ext)
		}
		out := filepath.Join(t.TempDir(), "out.parquet")
		code, _, errs := runCLI(t, "", "convert", c.in, out)
		require.Equal(t, 0, code, errs)
		code, rep, errs := runCLI(t, "", "report", out)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, rep, "TRUNCATED: the file "+c.where)
		// The Parquet file, cut, converted on: refused with advice that
		// fits it (it said "convert it to .parquet").
		again := filepath.Join(t.TempDir(), "again.jsonl")
		code, _, errs = runCLI(t, "", "convert", out, again)
		assert.Equal(t, 1, code, errs)
		assert.Contains(t, errs, "would read as whole: keep it in Parquet, which keeps the cut")
	}
}

// Another tool's file is refused by convert with a sentence saying what
// it is and that report reads it (found by a new-user pass: "CSV header:
// unknown column \"[\"" for LLMPerf, "unknown key \"metadata\"" for
// AIPerf). Converting would keep its records and lose what report says of
// them: the tool's conventions, its notes, its requests set aside.
func TestConvertOtherToolsFile(t *testing.T) {
	llmperf := writeFile(t, "x_individual_responses.json", `[{"end_to_end_latency_s": 1.0, "ttft_s": 0.1, "number_output_tokens": 10, "number_input_tokens": 5, "inter_token_latency_s": 0.1}]`)
	aiperf := writeFile(t, "profile_export.jsonl", `{"metadata":{"x_request_id":"a","timestamp_ns":1,"benchmark_phase":"profiling"},"metrics":{"request_latency":{"value":100,"unit":"ms"}}}`+"\n")
	for name, c := range map[string]struct{ in, tool string }{
		"llmperf": {llmperf, "an LLMPerf"},
		"aiperf":  {aiperf, "an AIPerf"},
	} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		code, _, errs := runCLI(t, "", "convert", c.in, out)
		assert.Equal(t, 1, code, name)
		assert.Equal(t, "llmmetrics: "+c.in+" is "+c.tool+" file: convert reads llmmetrics' own formats (JSONL, CSV, Parquet); report reads it\n", errs, name)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), name)
	}
	for _, c := range []struct{ path, tool string }{
		{"llmperf/ray-project__llmperf-leaderboard__bedrock_13b_individual_responses.json", "an LLMPerf"},
		{"vllm/surajssd__llm-k8s__llama33-70b-tp8-qps01.json", "a vLLM"},
		{"guidellm/neuralmagic__guidellm__benchmarks_stripped.json", "a GuideLLM"},
		{"sglang/datacrunch-research__h200-benchmarks__llama33-70b-online.jsonl", "an SGLang"},
	} {
		in := "../../../shared/realdata/" + c.path
		if _, err := os.Stat(in); err != nil {
			t.Log("../shared/realdata is absent: no real files")
			return
		}
		code, _, errs := runCLI(t, "", "convert", in, filepath.Join(t.TempDir(), "out.csv"))
		assert.Equal(t, 1, code, c.path)
		assert.Contains(t, errs, " is "+c.tool+" file: convert reads llmmetrics' own formats", c.path)
	}
}

// convert refuses a record report refuses, named by its line, rather than
// write a CSV row that reads as valid (chunk tokens summing to 6 of 4
// tokens: the row "2,3,4,…" says nothing of them) or fails at another line.
func TestConvertInvalidRecord(t *testing.T) {
	for _, rec := range []string{
		`{"id":"2","sent_ns":0,"chunk_arrivals_ns":[100,200,300],"chunk_tokens":[2,2,2],"completion_tokens":4,"prompt_tokens":3}`,
		`{"id":"2","sent_ns":0,"chunk_arrivals_ns":[300,200,100],"completion_tokens":3}`,
		`{"id":"2","sent_ns":0,"chunk_arrivals_ns":[100],"completion_tokens":1,"prompt_tokens":-3}`,
	} {
		in := writeFile(t, "inv.jsonl", `{"id":"1","sent_ns":0,"chunk_arrivals_ns":[100],"completion_tokens":1}`+"\n"+rec+"\n")
		out := filepath.Join(t.TempDir(), "inv.csv")
		code, _, errs := runCLI(t, "", "convert", in, out)
		assert.Equal(t, 1, code, rec)
		assert.Contains(t, errs, `line 2 (id "2")`, rec)
		assert.NoFileExists(t, out)
	}
}

// convert to CSV says what the run had that a CSV file cannot keep (it
// said nothing, and a report of the CSV then lacked ITL and early stops
// without a word); a run with nothing of the kind gets no note.
func TestConvertCSVSaysWhatItLeavesOut(t *testing.T) {
	in := writeFile(t, "run.jsonl", `{"llmmetrics_run":{"tool":"t","start":"2026-12-02T10:00:00Z"}}`+"\n"+
		`{"id":"a","sent_ns":0,"chunk_arrivals_ns":[10000000,20000000],"completion_tokens":2,"max_tokens":2}`+"\n")
	out := filepath.Join(t.TempDir(), "run.csv")
	code, stdout, errs := runCLI(t, "", "convert", in, out)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "convert: "+out+" keeps no chunk arrival times (ITL, max gap), max_tokens (early stops), run header (id, load, environment), which the CSV format has no column for; .jsonl and .parquet keep them\n", stdout)
	again := filepath.Join(t.TempDir(), "again.csv")
	code, stdout, errs = runCLI(t, "", "convert", out, again)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, stdout)
}

// convert --measured takes the records it leaves out out of the end
// line's counts too: the file it writes read TRUNCATED ("the end line
// counts 10 records written but the file holds 8").
func TestConvertMeasuredEndLine(t *testing.T) {
	in := "testdata/golden/input/c1-0.jsonl" // 1 preflight, 1 warm-up and 8 measured records, completed
	for _, ext := range []string{"jsonl", "parquet"} {
		out := filepath.Join(t.TempDir(), "m."+ext)
		code, _, errs := runCLI(t, "", "convert", "--measured", in, out)
		require.Equal(t, 0, code, errs)
		code, rep, errs := runCLI(t, "", "report", "--json", out)
		require.Equal(t, 0, code, errs)
		assert.Contains(t, rep, `"completeness":{"state":"completed"`, ext)
	}
}
