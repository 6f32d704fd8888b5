package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// partialRunFile writes a run at a closed-loop concurrency whose header
// promises an end line: n ok records, then the end line given ("" for
// none, as a SIGKILL leaves the file).
func partialRunFile(t *testing.T, name string, concurrency, n int, end string) string {
	lines := []string{fmt.Sprintf(`{"llmmetrics_run":{"tool":"llmmetrics","model":"m","api":"chat","start":"2025-01-01T00:00:00Z","ends":true,`+
		`"load":{"loop":"closed","concurrency":"%d","requests":"5"}}}`, concurrency)}
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"id":"%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[50000000,450000000],"prompt_tokens":3,"completion_tokens":2}`, i+1, int64(i)*500_000_000))
	}
	if end != "" {
		lines = append(lines, end)
	}
	return writeLines(t, name, lines...)
}

// diff and sweep take each file's figures as a run's: a run that was
// interrupted (its end line says so: 4 of 5 planned) or killed (its header
// promised an end line the file lacks: TRUNCATED) is named, with its
// state, in a WARNING line and in the JSON's warnings; a complete run is
// not.
func TestCompareNamesPartialRuns(t *testing.T) {
	interrupted := partialRunFile(t, "interrupted.jsonl", 2, 4, `{"llmmetrics_end":{"state":"interrupted","by":"SIGTERM","planned":5,"written":4}}`)
	killed := partialRunFile(t, "killed.jsonl", 4, 3, "")
	whole := partialRunFile(t, "whole.jsonl", 1, 5, `{"llmmetrics_end":{"state":"completed","planned":5,"written":5}}`)
	wantInterrupted := interrupted + " is not a whole run: INTERRUPTED by SIGTERM: 4 requests of 5 planned written; the figures cover only these"
	wantKilled := killed + " is not a whole run: TRUNCATED: the file stops before the end line its header promised (records read: 3)"

	code, out, errs := runCLI(t, "", "sweep", interrupted, killed, whole)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: "+wantInterrupted+"\n")
	assert.Contains(t, out, "WARNING: "+wantKilled)
	assert.NotContains(t, out, whole+" is not")

	code, out, errs = runCLI(t, "", "sweep", "--json", interrupted, killed, whole)
	require.Equal(t, 0, code, errs)
	var sw struct {
		Sweep struct {
			Warnings []string `json:"warnings"`
		} `json:"sweep"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sw), out)
	assert.Contains(t, sw.Sweep.Warnings, wantInterrupted)
	assert.True(t, containsPrefix(sw.Sweep.Warnings, wantKilled), sw.Sweep.Warnings)

	code, out, errs = runCLI(t, "", "diff", interrupted, killed+","+whole)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: "+wantInterrupted+"\n")
	assert.Contains(t, out, "WARNING: "+wantKilled)
	assert.NotContains(t, out, whole+" is not")

	code, out, errs = runCLI(t, "", "diff", "--json", interrupted, killed)
	require.Equal(t, 0, code, errs)
	var d struct {
		Warnings []string `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d), out)
	assert.Contains(t, d.Warnings, wantInterrupted)
	assert.True(t, containsPrefix(d.Warnings, wantKilled), d.Warnings)
}

// containsPrefix says whether some string of ss begins with prefix.
func containsPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// A run interrupted before its load wrote a request is reported as a
// completed one with no measured request is: status 0, every count and
// the error set of its preflight requests, and no figure; its
// INTERRUPTED line says there is none, not that the figures cover the
// requests written. A file of the header and end line alone holds no
// record: status 1, as a completed one; TRUNCATED when its end line counts
// records written.
func TestReportInterruptedUnmeasured(t *testing.T) {
	head := `{"llmmetrics_run":{"tool":"llmmetrics","model":"m","api":"chat","start":"2025-01-01T00:00:00Z","ends":true,"load":{"loop":"closed","concurrency":"2","requests":"5"}}}`
	pre := `{"id":"preflight-1","sent_ns":0,"first_text_ns":5000000,"last_text_ns":5000000,"prompt_tokens":7,"completion_tokens":1,"max_tokens":1,"warmup":true,"preflight":true}`
	end := func(state string, written int) string {
		return fmt.Sprintf(`{"llmmetrics_end":{"state":%q,"by":"SIGTERM","planned":5,"written":%d}}`, state, written)
	}
	for _, c := range []struct {
		name  string
		lines []string
		code  int
		want  string
	}{
		{"preflight.jsonl", []string{head, pre, end("interrupted", 1)}, 0, "INTERRUPTED by SIGTERM: 1 request of 5 planned written; none of them was measured (preflight or warm-up requests at most), so there is no figure\n"},
		{"header.jsonl", []string{head, end("interrupted", 0)}, 1, "no records: the run was interrupted by SIGTERM before it wrote a request\n"},
		{"completed.jsonl", []string{head, end("completed", 0)}, 1, "no records: the run completed without writing a request\n"},
		// An end line that counts records the file does not hold: the file
		// was cut, not a run without requests.
		{"cut.jsonl", []string{head, end("completed", 5)}, 1, "no records: TRUNCATED: the end line counts 5 records written but the file holds none\n"},
	} {
		path := writeLines(t, c.name, c.lines...)
		code, out, errs := runCLI(t, "", "report", path)
		assert.Equal(t, c.code, code, c.name)
		assert.Contains(t, out+errs, c.want, c.name)
		assert.NotContains(t, out, "the figures cover only these", c.name)
		if c.code == 1 { // read in a bounded budget, the same reason
			code, _, errs = runCLI(t, "", "report", "--max-memory", "64B", path)
			assert.Equal(t, 1, code, c.name)
			assert.Contains(t, errs, c.want, c.name)
		}
	}
}
