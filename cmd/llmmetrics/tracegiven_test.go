package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request trace given where a run's records are read (report, its
// merges, diff, sweep, convert) is named as a trace, with the way to turn
// it into a run: it said `unknown key "timestamp"` (Mooncake) or `unknown
// column "TIMESTAMP"` (Azure), and suggested --lenient.
func TestReportRefusesTrace(t *testing.T) {
	mooncake := writeLines(t, "mooncake.jsonl", `{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2]}`,
		`{"timestamp": 27, "input_length": 7322, "output_length": 490, "hash_ids": [0, 3]}`)
	azure := writeLines(t, "azure.csv", "TIMESTAMP,ContextTokens,GeneratedTokens", "2023-11-16 18:17:03.9799600,4808,10")
	burst := writeLines(t, "burst.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type", "5,ChatGPT,472,18,490,Conversation log")
	run := "../../testdata/sample_run.jsonl"
	for file, name := range map[string]string{mooncake: "Mooncake", azure: "Azure's LLM inference trace", burst: "BurstGPT"} {
		for _, args := range [][]string{
			{"report", file}, {"report", "--max-memory", "1KiB", file},
			{"report", "--merge", run, file}, {"report", "--merge", "--max-memory", "1KiB", run, file},
			{"diff", run, file}, {"sweep", "--level", file + "=1", file}, {"convert", file, t.TempDir() + "/x.csv"}, {"reconcile", file},
		} {
			code, _, errs := runCLI(t, "", args...)
			assert.Equal(t, 1, code, args)
			assert.Contains(t, errs, "is a request trace, in the format of "+name, args)
			assert.Contains(t, errs, "run --replay "+file+" --url", args)
			assert.False(t, strings.Contains(errs, "--lenient"), args)
		}
	}
}

// A path the shell would split is quoted in the advice, so that the line
// can be pasted.
func TestTraceAdviceQuotesPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my traces")
	require.NoError(t, os.Mkdir(dir, 0o755))
	file := filepath.Join(dir, "it's.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(`{"timestamp": 0, "input_length": 6, "output_length": 5, "hash_ids": [0]}`+"\n"), 0o644))
	code, _, errs := runCLI(t, "", "report", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "run --replay '"+strings.ReplaceAll(file, "'", `'\''`)+"' --url")
}

// reconcile of llmmetrics' own run file says what it is and what reads
// it (it said "not a known result file").
func TestReconcileOwnFile(t *testing.T) {
	code, _, errs := runCLI(t, "", "reconcile", "../../testdata/sample_run.jsonl")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "this is llmmetrics' own run file")
	assert.NotContains(t, errs, "not a known result file")
}
