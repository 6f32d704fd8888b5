package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ownRuns are the JSONL files of llmmetrics' own in the test data.
func ownRuns(t *testing.T) []string {
	files, err := filepath.Glob("testdata/golden/input/*.jsonl")
	require.NoError(t, err)
	return append(files, "../../testdata/sample_run.jsonl", "../../testdata/seeds/four_token_trace.jsonl")
}

// The report of a run's Parquet is the report of its JSONL, every figure,
// as a table and as JSON; from a file and from standard input.
func TestReportParquetSameFigures(t *testing.T) {
	dir := t.TempDir()
	for _, jsonl := range ownRuns(t) {
		t.Run(filepath.Base(jsonl), func(t *testing.T) {
			pq := filepath.Join(dir, strings.TrimSuffix(filepath.Base(jsonl), ".jsonl")+".parquet")
			code, _, errs := runCLI(t, "", "convert", jsonl, pq)
			require.Equal(t, 0, code, errs)
			for _, args := range [][]string{{"report"}, {"report", "--json"}, {"report", "--slo", "ttft=200ms,tpot=50ms", "--percentiles", "50,99"}} {
				codeJ, want, errsJ := runCLI(t, "", append(args, jsonl)...)
				codeP, got, errsP := runCLI(t, "", append(args, pq)...)
				require.Equal(t, codeJ, codeP, "%s / %s", errsJ, errsP)
				assert.Equal(t, errsJ, strings.ReplaceAll(errsP, pq, jsonl))
				assert.Equal(t, want, strings.ReplaceAll(got, pq, jsonl), "%v", args)
			}
			b, err := os.ReadFile(pq)
			require.NoError(t, err)
			_, fromFile, _ := runCLI(t, "", "report", "--json", pq)
			code, fromStdin, errs := runCLI(t, string(b), "report", "--json", "-")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, fromFile, strings.ReplaceAll(fromStdin, "standard input", pq))
		})
	}
}

// convert JSONL → Parquet → JSONL gives the file's bytes back, for the
// files the run command wrote; CSV → Parquet → CSV gives what CSV → CSV
// gives (a CSV without send times: see TestConvertNoSendTimes).
func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"c1-0.jsonl", "c4-2.jsonl", "open.jsonl"} {
		in := filepath.Join("testdata/golden/input", name)
		pq, back := filepath.Join(dir, name+".parquet"), filepath.Join(dir, name)
		for _, args := range [][]string{{in, pq}, {pq, back}} {
			code, _, errs := runCLI(t, "", append([]string{"convert"}, args...)...)
			require.Equal(t, 0, code, errs)
		}
		want, err := os.ReadFile(in)
		require.NoError(t, err)
		got, err := os.ReadFile(back)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), name)
	}
	csv := "../../testdata/seeds/goodput_cohort.csv"
	pq, viaPQ, direct := filepath.Join(dir, "c.parquet"), filepath.Join(dir, "via.csv"), filepath.Join(dir, "direct.csv")
	for _, args := range [][]string{{csv, pq}, {pq, viaPQ}, {csv, direct}} {
		code, _, errs := runCLI(t, "", append([]string{"convert"}, args...)...)
		require.Equal(t, 0, code, errs)
	}
	a, _ := os.ReadFile(viaPQ)
	b, _ := os.ReadFile(direct)
	assert.Equal(t, string(b), string(a))
}

// Bad input and bad use of convert: one line, naming the file (and the
// column where one is at fault), exit status 1 for data and 2 for use.
func TestConvertAndReportBadParquet(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "run.parquet")
	code, _, errs := runCLI(t, "", "convert", "testdata/golden/input/c1-0.jsonl", pq)
	require.Equal(t, 0, code, errs)
	good, err := os.ReadFile(pq)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.parquet")
	require.NoError(t, os.WriteFile(cut, good[:len(good)-20], 0o644))

	code, _, errs = runCLI(t, "", "report", cut)
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, cut+": ")
	assert.Contains(t, errs, "truncated")

	code, _, errs = runCLI(t, "", "convert", cut, filepath.Join(dir, "x.jsonl"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, cut+": ")
	assert.NoFileExists(t, filepath.Join(dir, "x.jsonl"))

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"convert", pq}, "IN and OUT"},
		{[]string{"convert", pq, filepath.Join(dir, "x.txt")}, ".jsonl, .csv or .parquet"},
		{[]string{"convert", "testdata/golden/input/c1-0.jsonl", pq}, "exists; --force"},
		{[]string{"convert", pq, pq}, "is IN"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errs)
		assert.Contains(t, errs, c.says)
	}
	code, _, errs = runCLI(t, "", "convert", "--force", "testdata/golden/input/c1-0.jsonl", pq)
	assert.Equal(t, 0, code, errs)
}

// run --out x.parquet writes the run as Parquet, with the same figures as
// the JSONL it writes otherwise, and leaves no JSONL beside it.
func TestRunOutParquet(t *testing.T) {
	srv, _ := fakeLlama(t)
	dir := t.TempDir()
	pq := filepath.Join(dir, "run.parquet")
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny",
		"--requests", "6", "--concurrency", "2", "--prompt-tokens", "64", "--max-tokens", "4", "--env", "gpu=none"}
	code, _, errs := runCLI(t, "", append(args, "--out", pq)...)
	require.Equal(t, 0, code, errs)
	assert.NoFileExists(t, pq+".jsonl")
	b, err := os.ReadFile(pq)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(b, []byte("PAR1")))

	back := filepath.Join(dir, "back.jsonl")
	code, _, errs = runCLI(t, "", "convert", pq, back)
	require.Equal(t, 0, code, errs)
	j, err := os.ReadFile(back)
	require.NoError(t, err)
	assert.Contains(t, string(j), `{"llmmetrics_run":`)
	assert.Contains(t, string(j), `{"llmmetrics_end":{"state":"completed"`)
	code, want, _ := runCLI(t, "", "report", "--json", back)
	require.Equal(t, 0, code)
	code, got, errs := runCLI(t, "", "report", "--json", pq)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, want, got)
	assert.Contains(t, got, `"out":"`+pq+`"`)

	code, _, errs = runCLI(t, "", append(args, "--out", pq)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "exists; --force overwrites it")
}

// A file named .parquet that is not Parquet (text, or random bytes) is
// said to be no Parquet file, not only what reading it as CSV found.
func TestReportNotParquet(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.parquet")
	require.NoError(t, os.WriteFile(text, []byte("hello world\nfoo\n"), 0o644))
	random := filepath.Join(dir, "random.parquet")
	b := make([]byte, 3000)
	for i := range b {
		b[i] = byte(i*7919 + i/3) // not PAR1, not a table
	}
	require.NoError(t, os.WriteFile(random, b, 0o644))
	for _, args := range [][]string{
		{"report", text}, {"report", random}, {"report", "--max-memory", "1000", text},
		{"convert", text, filepath.Join(dir, "x.jsonl")}, {"report", "--merge", text, random},
	} {
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 1, code, "%v: %s", args, errs)
		assert.Contains(t, errs, ".parquet: not a Parquet file: it does not begin with the magic bytes PAR1", args)
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	}
	// A CSV named .csv says what is wrong with the CSV, as before.
	csv := filepath.Join(dir, "text.csv")
	require.NoError(t, os.WriteFile(csv, []byte("hello world\nfoo\n"), 0o644))
	_, _, errs := runCLI(t, "", "report", csv)
	assert.NotContains(t, errs, "not a Parquet file")
}
