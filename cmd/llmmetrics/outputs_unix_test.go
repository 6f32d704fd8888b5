//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A device or a FIFO named as an output is written without --force: it
// is not a file a run would overwrite (/dev/null was refused as
// "exists"). A regular file still needs --force.
func TestOutputsToDevices(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null on this system")
	}
	srv, _ := fakeLlama(t)
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2",
		"--concurrency", "1", "--prompts", promptsFile(t), "--max-tokens", "2", "--out", "/dev/null")
	assert.Equal(t, 0, code, errs)

	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // the reader the writer's open waits for
		got <- b
	}()
	files, _, err := openOutputs([]namedPath{{"--out", fifo}}, nil, false)
	require.NoError(t, err)
	_, err = files[0].WriteString("a line\n")
	require.NoError(t, err)
	files[0].Close()
	assert.Equal(t, "a line\n", string(<-got))

	file := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("keep me\n"), 0o644))
	_, _, err = openOutputs([]namedPath{{"--out", file}}, nil, false)
	assert.ErrorContains(t, err, "--out "+file+" exists; --force overwrites it")
}
