package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeShare writes a JSONL file of n requests taken at a wall-clock
// start, each sent i·100 ms after it, with its first and last text 100
// and 200 ms after its send, under a header with the given load.
func writeShare(t *testing.T, dir, name, start string, n int, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"llmmetrics_run":{"tool":"llmmetrics","model":"m","api":"chat","start":%q,"load":{%s}}}`+"\n", start, load)
	for i := range n {
		sent := int64(i) * 100_000_000
		// The ids carry the file's name: two files are two runs, not a
		// copy (sameRunTwice).
		fmt.Fprintf(&b, `{"id":"%s-%d","sent_ns":%d,"chunk_arrivals_ns":[100000000,200000000],"completion_tokens":2}`+"\n", strings.TrimSuffix(name, ".jsonl"), i, sent)
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// Several files are several runs: report refuses them unless --merge, and
// --merge checks that they are one plan whose windows overlap.
func TestReportMergeChecks(t *testing.T) {
	dir := t.TempDir()
	c1 := `"loop":"closed","concurrency":"1"`
	a := writeShare(t, dir, "a.jsonl", "2026-11-30T10:00:00Z", 10, c1)
	b := writeShare(t, dir, "b.jsonl", "2026-11-30T10:00:00.005Z", 10, c1)

	code, _, errs := runCLI(t, "", "report", a, b)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "2 files are 2 runs")
	assert.Contains(t, errs, "llmmetrics diff")
	assert.Contains(t, errs, "--merge")

	// One plan, overlapping windows (a: 0 → 1.1 s, b: 5 ms → 1.105 s):
	// merged exactly, 20 offered and 20 ok; starts 5 ms apart, below 1 %
	// of the 1.105 s window, so no warning.
	code, out, errs := runCLI(t, "", "report", "--json", "--merge", a, b)
	require.Equal(t, 0, code, errs)
	var got struct {
		Requests struct{ Offered, OK int }
		Notes    []string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 20, got.Requests.Offered)
	assert.Equal(t, 20, got.Requests.OK)
	assert.NotContains(t, strings.Join(got.Notes, " "), "WARNING")

	// Starts 100 ms apart: more than 1 % of the 1.2 s window.
	late := writeShare(t, dir, "late.jsonl", "2026-11-30T10:00:00.1Z", 10, c1)
	code, out, errs = runCLI(t, "", "report", "--merge", a, late)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: the files' starts differ by 100ms, more than 1% of the merged window (1.2s)")

	// Another tool's file is named as such, not read as a broken JSONL.
	vllm := filepath.Join(dir, "vllm.json")
	require.NoError(t, os.WriteFile(vllm, []byte(`{"duration": 2.0, "completed": 1, "request_throughput": 0.5, "ttfts": [0.1]}`), 0o644))
	code, _, errs = runCLI(t, "", "report", "--merge", a, vllm)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "is vllm's file: report it on its own")

	// A concurrency-8 run after a concurrency-1 run: two plans.
	c8 := writeShare(t, dir, "c8.jsonl", "2026-11-30T10:05:00Z", 10, `"loop":"closed","concurrency":"8"`)
	code, _, errs = runCLI(t, "", "report", "--merge", a, c8)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `load concurrency "1" and "8"`)
	assert.Contains(t, errs, "not one plan")
	assert.Equal(t, 1, strings.Count(errs, "\n"), "one line, no usage: %s", errs)

	// One plan, but taken one after the other: no overlap.
	again := writeShare(t, dir, "again.jsonl", "2026-11-30T10:05:00Z", 10, c1)
	code, _, errs = runCLI(t, "", "report", "--merge", a, again)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "windows do not overlap")

	// A plan id decides where every header has one: shares of one plan
	// may differ in their load.
	s1 := writeShare(t, dir, "s1.jsonl", "2026-11-30T10:00:00Z", 10, `"plan":"p7","rate_per_s":"2","loop":"open"`)
	s2 := writeShare(t, dir, "s2.jsonl", "2026-11-30T10:00:00Z", 10, `"plan":"p7","rate_per_s":"3","loop":"open"`)
	code, _, errs = runCLI(t, "", "report", "--merge", s1, s2)
	require.Equal(t, 0, code, errs)
	s3 := writeShare(t, dir, "s3.jsonl", "2026-11-30T10:00:00Z", 10, `"plan":"p8","rate_per_s":"2","loop":"open"`)
	code, _, errs = runCLI(t, "", "report", "--merge", s1, s3)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "follows plan p7")

	code, _, _ = runCLI(t, "", "report", "--merge", a)
	assert.Equal(t, 2, code)
}

// A run given twice under two names is refused, in memory and in bounded
// memory, naming both files: a byte copy, two files whose headers are
// identical (start to the nanosecond, load with its prompt_salt), or, for
// files without a header, identical content. It merged them as two shards
// and doubled every count and rate (20 requests reported as 40).
func TestMergeSameRunTwice(t *testing.T) {
	dir := t.TempDir()
	load := `"loop":"closed","concurrency":"1","requests":"10","prompt_salt":"00000000000000aa"`
	a := writeShare(t, dir, "a.jsonl", "2026-11-30T10:00:00.123456789Z", 10, load)
	b, err := os.ReadFile(a)
	require.NoError(t, err)
	copied := filepath.Join(dir, "copy.jsonl")
	require.NoError(t, os.WriteFile(copied, b, 0o644))
	// Its header, other records (fewer): the header alone says the run.
	sameHeader := writeShare(t, dir, "header.jsonl", "2026-11-30T10:00:00.123456789Z", 3, load)
	// A nanosecond later: another run, merged (10 + 10 = 20 requests).
	other := writeShare(t, dir, "other.jsonl", "2026-11-30T10:00:00.123456790Z", 10, load)

	// A copy whose header was edited (host renamed): its records are the
	// run's, byte for byte; and a file whose header carries the run's id
	// (a conversion): both were merged as two runs, doubling the counts.
	edited := filepath.Join(dir, "edited.jsonl")
	require.NoError(t, os.WriteFile(edited, bytes.Replace(b, []byte(`"tool":"llmmetrics"`), []byte(`"tool":"llmmetrics","host":"renamed"`), 1), 0o644))
	withID := func(name, start string) string {
		p := writeShare(t, dir, name, start, 4, load)
		body, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, bytes.Replace(body, []byte(`"tool":"llmmetrics"`), []byte(`"tool":"llmmetrics","id":"RUN1"`), 1), 0o644))
		return p
	}
	idA, idB := withID("ida.jsonl", "2026-11-30T10:00:00Z"), withID("idb.jsonl", "2026-11-30T10:00:00.001Z")

	// A CSV file without send times and its conversion to Parquet: no
	// header, no id, other bytes; one run (it merged as 2 × its requests).
	csvRun := writeLines(t, "nosent.csv", "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,status,message",
		"1,65,16,7.480671,15.840084,ok,", "2,65,16,7.710248,15.744467,ok,", "3,65,16,7.9,16.2,ok,")
	csvParquet := filepath.Join(dir, "nosent.parquet")
	code, _, errs := runCLI(t, "", "convert", csvRun, csvParquet)
	require.Equal(t, 0, code, errs)

	rec := `{"id":"a","chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`
	bare := writeLines(t, "bare.jsonl", rec)
	bareCopy := writeLines(t, "bare-copy.jsonl", rec)
	bareOther := writeLines(t, "bare-other.jsonl", `{"id":"b","chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`)
	for _, extra := range [][]string{nil, {"--max-memory", "1KiB"}} {
		merge := func(files ...string) (int, string, string) {
			return runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), files...)...)
		}
		code, _, errs = merge(a, copied)
		require.Equal(t, 2, code, extra)
		assert.Contains(t, errs, "--merge: "+a+" and "+copied+" are the same run: their run headers are identical (start 2026-11-30T10:00:00.123456789Z", extra)

		code, _, errs = merge(a, sameHeader)
		require.Equal(t, 2, code, extra)
		assert.Contains(t, errs, "--merge: "+a+" and "+sameHeader+" are the same run", extra)

		code, _, errs = merge(a, edited)
		require.Equal(t, 2, code, extra)
		assert.Contains(t, errs, "--merge: "+a+" and "+edited+" are the same run: their records are identical, byte for byte after the header line", extra)

		code, _, errs = merge(csvRun, csvParquet)
		require.Equal(t, 2, code, "%v: %s", extra, errs)
		assert.Contains(t, errs, "are the same run: their", extra)
		assert.Contains(t, errs, "measured records are identical", extra)

		code, _, errs = merge(idA, idB)
		require.Equal(t, 2, code, extra)
		assert.Contains(t, errs, "--merge: "+idA+" and "+idB+" are the same run: their run headers carry the same run id RUN1", extra)

		code, out, errs := merge("--json", a, other)
		require.Equal(t, 0, code, "%v: %s", extra, errs)
		var got struct{ Requests struct{ Offered int } }
		require.NoError(t, json.Unmarshal([]byte(out), &got), extra)
		assert.Equal(t, 20, got.Requests.Offered, extra)

		code, _, errs = merge(bare, bareCopy)
		require.Equal(t, 2, code, extra)
		assert.Contains(t, errs, "--merge: "+bare+" and "+bareCopy+" are the same run: their content is identical", extra)

		code, _, errs = merge(bare, bareOther)
		require.Equal(t, 0, code, "%v: %s", extra, errs)
	}
}

// Files without send times have no window to show they are one run:
// unless they are shards of one plan, their headers' starts must be
// within the 30 s of machines that start together. Two runs 4 h apart,
// each of 2 requests (their own prompt_salt), were merged as "2 files of
// one run" under the first one's requests=2 though 4 were measured.
func TestMergeUnsentRunsApart(t *testing.T) {
	run := func(name, start, salt string) string {
		return writeLines(t, name, `{"llmmetrics_run":{"tool":"t","start":"`+start+`","load":{"loop":"closed","concurrency":"1","requests":"2","prompt_salt":"`+salt+`"}}}`,
			`{"id":"a`+salt+`","chunk_arrivals_ns":[50000000,150000000],"completion_tokens":2}`,
			`{"id":"b`+salt+`","chunk_arrivals_ns":[60000000,200000000],"completion_tokens":2}`)
	}
	a := run("a.jsonl", "2026-11-30T10:00:00Z", "00000000000000aa")
	b := run("b.jsonl", "2026-11-30T14:00:00Z", "00000000000000bb")
	near := run("near.jsonl", "2026-11-30T10:00:20Z", "00000000000000cc") // 20 s: together
	for _, extra := range [][]string{nil, {"--max-memory", "1KiB"}} {
		merge := func(files ...string) (int, string, string) {
			return runCLI(t, "", append(append([]string{"report", "--merge"}, extra...), files...)...)
		}
		code, _, errs := merge(b, near, a)
		require.Equal(t, 2, code, extra)
		assert.Contains(t, errs, "--merge: "+a+" and "+b+" have no send times, and their run headers' starts are 4h0m0s apart", extra)

		code, _, errs = merge(a, near)
		require.Equal(t, 0, code, "%v: %s", extra, errs)
	}
}
