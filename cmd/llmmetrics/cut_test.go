package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run file cut at any byte of its last record or of its end line (the
// writer killed between two bytes, a full disk) reports as TRUNCATED at
// the top, with status 0, never as a syntax error, and with every whole
// record read.
func TestCutRunFile(t *testing.T) {
	dir := t.TempDir()
	_, file := sixRequestRun(t, dir)
	lines := strings.SplitAfter(string(file), "\n")
	require.Len(t, lines, 1+7+1+1, "header, the test request and 6 measured records, end line, and nothing after the last newline")
	endLine := len(file) - len(lines[8])              // where the end line begins
	lastRecord := endLine - len(lines[7])             // where the last record begins
	for cut := lastRecord; cut < len(file)-1; cut++ { // the end line whole without its newline is a whole file
		whole := 6 // the test request and the first 5 measured requests
		if cut >= endLine-1 {
			whole = 7 // the last record is whole, with or without its newline
		}
		name := filepath.Join(dir, fmt.Sprintf("cut-%d.jsonl", cut))
		require.NoError(t, os.WriteFile(name, file[:cut], 0o644))
		code, rep, errs := runCLI(t, "", "report", name)
		require.Equal(t, 0, code, "cut at %d: %s", cut, errs)
		require.True(t, strings.HasPrefix(rep, "llmmetrics report: "+name+"\n\nTRUNCATED: "), "cut at %d: %s", cut, rep)
		code, rep, errs = runCLI(t, "", "report", "--json", name)
		require.Equal(t, 0, code, "cut at %d: %s", cut, errs)
		var got struct {
			Completeness struct {
				State string `json:"state"`
				Read  int    `json:"read"`
			} `json:"completeness"`
		}
		require.NoError(t, json.Unmarshal([]byte(rep), &got))
		assert.Equal(t, "truncated", got.Completeness.State, "cut at %d", cut)
		assert.Equal(t, whole, got.Completeness.Read, "cut at %d", cut)
	}
	// A malformed last line that ends in a newline is still an error.
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, append(file[:endLine-10:endLine-10], '\n'), 0o644))
	code, _, errs := runCLI(t, "", "report", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "line 8")
}

// sixRequestRun takes a run of 6 requests, 2 at a time, of fakeLlama into
// dir/run.jsonl, and returns the file's name and its bytes.
func sixRequestRun(t *testing.T, dir string) (string, []byte) {
	srv, _ := fakeLlama(t)
	out := filepath.Join(dir, "run.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "6",
		"--concurrency", "2", "--prompts", promptsFile(t), "--max-tokens", "3", "--out", out)
	require.Equal(t, 0, code, errs)
	file, err := os.ReadFile(out)
	require.NoError(t, err)
	return out, file
}

// A run whose disk fills in the middle of a record: the shell limits the
// files the binary may write to 16 blocks of 512 bytes (8 KiB), far less
// than the run writes, so a write stops inside a line (or, by chance, at
// its end). report reads the file as TRUNCATED, with every whole record.
func TestDiskFullRun(t *testing.T) {
	bin := binary(t)
	srv, _ := fakeLlama(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := exec.Command("sh", "-c", `ulimit -f 16 && exec "$0" "$@"`, bin, "run", "--url", srv.URL+"/v1/chat/completions",
		"--model", "tiny", "--requests", "100", "--concurrency", "8", "--prompts", promptsFile(t), "--max-tokens", "3", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	require.Error(t, err, "the write error is the run's failure")
	file, rerr := os.ReadFile(out)
	require.NoError(t, rerr)
	require.Equal(t, 16*512, len(file), "the file filled its limit; %s", stderr.String())
	// The whole records, by encoding/json: every line but the header that
	// is valid JSON.
	whole := 0
	for i, line := range strings.Split(string(file), "\n") {
		if i > 0 && json.Valid([]byte(line)) {
			whole++
		}
	}
	code, rep, errs := runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(rep, "llmmetrics report: "+out+"\n\nTRUNCATED: "), rep)
	if file[len(file)-1] != '\n' && !json.Valid(file[bytes.LastIndexByte(file, '\n')+1:]) {
		assert.Contains(t, rep, "TRUNCATED: the file ends inside line ")
	}
	code, rep, errs = runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	// Without an end line, who interrupted the run and how many records
	// were written are not known: absent, with the reason, never "" or 0.
	assert.Contains(t, rep, fmt.Sprintf(`"completeness":{"state":"truncated","read":%d,`, whole))
	assert.Contains(t, rep, `"written":"no end line was read: it counts the records written"`)
}

// A run file cut before its first whole record, inside or just after its
// header, reports as TRUNCATED, not as a file of no records; a run file
// with a line after its end line is an error naming the line (issue #30,
// point 5).
func TestCutBeforeFirstRecord(t *testing.T) {
	dir := t.TempDir()
	_, file := sixRequestRun(t, dir)
	lines := strings.SplitAfter(string(file), "\n")
	head := len(lines[0])
	for _, c := range []struct {
		name string
		cut  int
		want string
	}{
		{"inside the header", head / 2, fmt.Sprintf("TRUNCATED: the file ends inside line 1 (%d bytes of an unfinished header), before any whole record", head/2)},
		{"after the header", head, "TRUNCATED: the file stops after its header, before any record and before the end line its header promised"},
		{"inside the first record", head + 10, "TRUNCATED: the file ends inside line 2 (10 bytes of an unfinished record), before any whole record"},
	} {
		name := filepath.Join(dir, "cut.jsonl")
		require.NoError(t, os.WriteFile(name, file[:c.cut], 0o644))
		code, _, errs := runCLI(t, "", "report", name)
		assert.Equal(t, 1, code, c.name)
		assert.Contains(t, errs, name+": "+c.want, c.name)
		assert.NotContains(t, errs, "no records", c.name)
	}

	after := filepath.Join(dir, "after.jsonl")
	require.NoError(t, os.WriteFile(after, append(append([]byte{}, file...), lines[1]...), 0o644))
	for _, lenient := range []string{"--strict", "--lenient"} {
		code, _, errs := runCLI(t, "", "report", lenient, after)
		assert.Equal(t, 1, code, "%s: %s", lenient, errs)
		assert.Contains(t, errs, fmt.Sprintf("line %d: syntax error: text after the run's end line (line %d)", len(lines), len(lines)-1), lenient)
	}
}
