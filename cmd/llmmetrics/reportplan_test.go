package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report --plan of a saved replay gives the fidelity section run printed
// as it ended, figure for figure, from the plan its dry run wrote with
// the same flags; a plan of other flags, a CSV file and another tool's
// file are refused in one line.
func TestReportPlanFidelity(t *testing.T) {
	llama, _ := fakeLlama(t)
	tr := writeFile(t, "trace.jsonl", `{"timestamp": 1000, "input_length": 30, "output_length": 3, "hash_ids": [0]}
{"timestamp": 1100, "input_length": 64, "output_length": 5, "hash_ids": [0]}
{"timestamp": 1100, "input_length": 40, "output_length": 1, "hash_ids": [1]}
{"timestamp": 1240, "input_length": 100, "output_length": 8, "hash_ids": [0]}
`)
	dir := t.TempDir()
	plan, other, out := filepath.Join(dir, "plan.jsonl"), filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "run.jsonl")
	flags := []string{"--replay", tr, "--speed", "2", "--model", "tiny"}
	code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--out", plan}, flags...)...)
	require.Equal(t, 0, code, errs)
	code, _, errs = runCLI(t, "", "run", "--dry-run", "--out", other, "--replay", tr, "--speed", "4", "--model", "tiny")
	require.Equal(t, 0, code, errs)
	code, ran, errs := runCLI(t, "", append([]string{"run", "--url", llama.URL + "/v1/chat/completions", "--out", out, "--json"}, flags...)...)
	require.Equal(t, 0, code, errs)

	code, reported, errs := runCLI(t, "", "report", "--json", "--plan", plan, out)
	require.Equal(t, 0, code, errs)
	fidelityOf := func(s string) json.RawMessage {
		var rep struct {
			LoadCheck struct {
				Fidelity json.RawMessage `json:"fidelity"`
			} `json:"load_check"`
		}
		require.NoError(t, json.Unmarshal([]byte(s), &rep), s)
		return rep.LoadCheck.Fidelity
	}
	want := fidelityOf(ran)
	require.NotEmpty(t, want, ran)
	assert.JSONEq(t, string(want), string(fidelityOf(reported)))
	var fd fidelity
	require.NoError(t, json.Unmarshal(want, &fd))
	assert.Equal(t, 4, fd.Asked)
	assert.Equal(t, 4, fd.Sent)

	code, text, errs := runCLI(t, "", "report", "--plan", plan, out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, text, "asked 4, sent 4")
	code, _, errs = runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)

	seeded := filepath.Join(dir, "seeded.jsonl")
	code, _, errs = runCLI(t, "", append([]string{"run", "--dry-run", "--out", seeded, "--seed", "9"}, flags...)...)
	require.Equal(t, 0, code, errs)
	code, _, errs = runCLI(t, "", "report", "--plan", seeded, out)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "its load's seed is \"9\", the run's \"1\"")
	code, _, errs = runCLI(t, "", "report", "--plan", other, out)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "is not this run's plan: its load's rate_per_s is \"50\", the run's \"25\"")
	csv := writeFile(t, "run.csv", "id,status,sent_ns,first_text_ns,last_text_ns,completion_tokens\nr1,ok,0,100000000,300000000,5\n")
	code, _, errs = runCLI(t, "", "report", "--plan", plan, csv)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "is CSV, which keeps no run header")
	code, _, errs = runCLI(t, "", "report", "--plan", plan, "../../testdata/sample_run.jsonl")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "this file has no header")
}
