package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeRun writes a JSONL run of 30 requests whose TTFT is base + i ms,
// each 11 tokens, one a second.
func writeRunFile(t *testing.T, dir, name string, base int) string {
	var b strings.Builder
	for i := range 30 {
		first := (base + i) * 1_000_000
		var chunks []string
		for k := range 11 {
			chunks = append(chunks, fmt.Sprint(first+k*20_000_000))
		}
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[%s],"completion_tokens":11}`+"\n",
			i, i*1_000_000_000, strings.Join(chunks, ","))
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	a1, a2, a3 := writeRunFile(t, dir, "a1.jsonl", 100), writeRunFile(t, dir, "a2.jsonl", 100), writeRunFile(t, dir, "a3.jsonl", 100)
	b1 := writeRunFile(t, dir, "b1.jsonl", 150)
	// Every B TTFT (150–179 ms) is above every A TTFT (100–129 ms).
	code, out, errs := runCLI(t, "", "diff", "--percentiles", "50", a1+","+a2+","+a3, b1)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "A: 3 run(s), B: 1 run(s)")
	// Pooled nearest-rank p50: A's 90 values rank 45 → 114 ms; B's 30
	// values rank 15 → 164 ms; +43.86%.
	assert.Regexp(t, `ttft p50 \(ms\)\s+114\s+164\s+\+43\.86% \(p=0\.000 n=90\+30\)`, out)
	assert.Regexp(t, `tpot p50 \(ms\)\s+20\s+20\s+~ \(p=1\.000 n=90\+30\)`, out)
	assert.Contains(t, out, "fewer than 3 runs a side")

	// A run against itself: nothing changed.
	code, out, errs = runCLI(t, "", "diff", "--json", a1, a1)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, `"significant":true`)

	for _, args := range [][]string{{"diff", a1}, {"diff", a1, b1, a2}, {"diff", "--from", "vllm", a1, b1}} {
		code, _, errs = runCLI(t, "", args...)
		assert.Equal(t, 2, code, args)
		assert.NotEmpty(t, errs)
	}
	code, _, _ = runCLI(t, "", "diff", a1, filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, 1, code)
}
