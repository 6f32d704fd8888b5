package main

import (
	"path/filepath"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The end line's accounting: a completed run's planned requests are the
// records its file holds, of every kind (preflight, warm-up, measured),
// and its written count is the same; a run of a --duration has no planned
// count, and says why. fakeLlama counts a prompt as 20 tokens and one a
// word (the salt one of them), so a one-word sizing request counts 22 tokens.
func TestPlannedRequests(t *testing.T) {
	srv, _ := fakeLlama(t)
	for _, c := range []struct {
		name    string
		args    []string
		planned int // by hand; -1 when it depends on the timing (checked against the file)
	}{
		// the test request + 6 measured
		{"prompts", []string{"--requests", "6", "--concurrency", "2", "--prompts", promptsFile(t)}, 1 + 6},
		// two sizing requests (64 is not one word's 22: the salt alone is measured too) + 2 warm-up + 5 measured
		{"sizing and a warm-up count", []string{"--requests", "5", "--concurrency", "2", "--prompt-tokens", "64", "--warmup", "2"}, 2 + 2 + 5},
		// one sizing request (22 is one word's count: one word is enough) + 3 measured
		{"one sizing request", []string{"--requests", "3", "--concurrency", "1", "--prompt-tokens", "22"}, 1 + 3},
		// the test request + the warm-up's requests, as many as 50 ms allowed + 3 measured
		{"a warm-up by duration", []string{"--requests", "3", "--concurrency", "1", "--prompts", promptsFile(t), "--warmup", "50ms"}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run.jsonl")
			args := append([]string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--max-tokens", "3", "--out", out}, c.args...)
			code, _, errs := runCLI(t, "", args...)
			require.Equal(t, 0, code, errs)
			run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
			require.NoError(t, err)
			require.NotNil(t, run.End)
			assert.Equal(t, "completed", run.End.State)
			assert.Equal(t, len(run.Records), run.End.Written, "written counts every record in the file")
			assert.Equal(t, len(run.Records), run.End.Planned, "a completed run wrote what it planned")
			if c.planned >= 0 {
				assert.Equal(t, c.planned, run.End.Planned)
			}
			assert.Empty(t, run.End.Absent)
		})
	}

	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--max-tokens", "3", "--out", out,
		"--duration", "200ms", "--rate", "20", "--prompts", promptsFile(t))
	require.Equal(t, 0, code, errs)
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	assert.Equal(t, len(run.Records), run.End.Written)
	assert.Zero(t, run.End.Planned)
	assert.Equal(t, map[string]string{"planned": "a run of a --duration plans a time, not a number of requests: as many are sent as the time allows"}, run.End.Absent)
	code, rep, errs := runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, rep, `"completeness":{"state":"completed","written":`)
	assert.Contains(t, rep, `"absent":{"planned":"a run of a --duration plans a time`)
}
