package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shard killed before it wrote its Parquet leaves only the JSONL it
// streamed, X.parquet.jsonl: the merge's refusal of the missing shard
// names that file, and the merge that names it reports the run as
// truncated.
func TestShardMergeNamesPartialFile(t *testing.T) {
	srv, _ := slowLlama(t)
	dir := t.TempDir()
	files := runShards(t, dir, "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "6",
		"--concurrency", "3", "--prompts", promptsFile(t), "--max-tokens", "4")
	// Shard 3 as run --out shard-3.parquet leaves it when killed: the
	// records streamed, without the end line.
	partial := copyFile(t, files[2], dir, "shard-3.parquet.jsonl", lastLine(t, files[2]))
	// Another plan's partial file is not named.
	other := filepath.Join(t.TempDir(), "x.jsonl")
	code, _, errs := runCLI(t, "", "run", "--shard", "3/3", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "3", "--concurrency", "3", "--prompts", promptsFile(t), "--max-tokens", "4", "--out", other)
	require.Equal(t, 0, code, errs)
	copyFile(t, other, dir, "stale.parquet.jsonl", 0)

	code, _, errs = runCLI(t, "", "report", "--merge", files[0], files[1])
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "--merge: shard 3/3 is missing: the merge of a plan needs every shard's file; "+
		partial+" holds what shard 3/3 streamed before it stopped: merge it by name with the others")
	assert.NotContains(t, errs, "stale")
	assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %s", errs)

	code, out, errs := runCLI(t, "", "report", "--merge", files[0], files[1], partial)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "TRUNCATED")
}
